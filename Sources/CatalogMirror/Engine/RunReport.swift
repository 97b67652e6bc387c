import Foundation

/// The summary of one sync: what `--report FILE` writes and what the exit status comes from.
public struct RunReport: Codable, Sendable, Equatable {
    public var source: String
    public var output: String
    public var startedAt: Date
    public var finishedAt: Date
    public var durationSeconds: Double
    /// 0 all good; 1 some accepted keys failed (or a page could not be read).
    public var exitStatus: Int32
    public var pages: Int
    public var feeds: Int
    /// Distinct keys seen.
    public var keys: Int
    /// Items in the manifest.
    public var published: Int
    /// Images fetched over the network in this run.
    public var downloaded: Int
    public var memoryHits: Int
    public var diskHits: Int
    public var bytesDownloaded: Int64
    /// Policy rejections by reason.
    public var rejected: [String: Int]
    /// Failures of accepted keys by reason.
    public var failed: [String: Int]
    /// Lines worth a person's attention (failed pages and keys), at most 50.
    public var warnings: [String]
    /// Why the run stopped before publishing, when it did.
    public var error: String?

    /// The report of a run that stopped with `error` before publishing anything.
    public static func stopped(
        _ error: MirrorError, configuration: MirrorConfiguration, startedAt: Date, progress: ProgressSnapshot
    ) -> RunReport {
        let finishedAt = Date()
        return RunReport(
            source: configuration.source.string, output: configuration.output.standardizedFileURL.path,
            startedAt: Timestamp.truncated(startedAt), finishedAt: Timestamp.truncated(finishedAt),
            durationSeconds: finishedAt.timeIntervalSince(startedAt), exitStatus: error.exitStatus,
            pages: progress.pagesCrawled, feeds: progress.feedsRead, keys: progress.keysFound, published: 0,
            downloaded: 0, memoryHits: progress.memoryHits, diskHits: progress.diskHits, bytesDownloaded: progress.bytes,
            rejected: [:], failed: [:], warnings: [], error: error.description)
    }

    /// The one-line summary printed at the end of every run.
    public var summaryLine: String {
        var parts = [Self.count(published, "image") + " published", "\(downloaded) downloaded", "\(diskHits) unchanged"]
        let rejectedCount = rejected.values.reduce(0, +)
        let failedCount = failed.values.reduce(0, +)
        if rejectedCount > 0 { parts.append("\(rejectedCount) rejected") }
        if failedCount > 0 {
            parts.append(
                "\(failedCount) failed ("
                    + failed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
        }
        parts.append(Self.count(pages, "page") + ", " + Self.count(feeds, "feed"))
        parts.append(String(format: "%.1f s", durationSeconds))
        return "catalog-mirror: " + parts.joined(separator: ", ") + " → \(output)"
    }

    /// Reads a report written by `encoded()`.
    public static func decode(_ data: Data) throws -> RunReport { try JSONCoding.decode(RunReport.self, from: data) }

    private static func count(_ value: Int, _ noun: String) -> String {
        "\(value) \(noun)\(value == 1 ? "" : "s")"
    }

    /// Pretty JSON with sorted keys and UTC dates.
    public func encoded() throws -> Data { try JSONCoding.encode(self) }
}

/// What stops a run before it finishes, mapped to SPEC's exit statuses by `exitStatus`.
public enum MirrorError: Error, Sendable, CustomStringConvertible {
    /// The source could not be crawled; the mirror is as it was (exit 3).
    case sourceUnavailable(String)
    /// The mirror directory could not be written (exit 1: nothing new is published).
    case storage(String)
    /// The run was cancelled (SIGINT/SIGTERM); the mirror is as it was (exit 130).
    case cancelled

    public var description: String {
        switch self {
        case .sourceUnavailable(let message), .storage(let message): message
        case .cancelled: "cancelled; the mirror was left as it was"
        }
    }

    public var exitStatus: Int32 {
        switch self {
        case .sourceUnavailable: 3
        case .storage: 1
        case .cancelled: 130
        }
    }
}
