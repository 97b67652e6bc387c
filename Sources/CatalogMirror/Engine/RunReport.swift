import Foundation

/// The summary of one sync: what `--report FILE` writes and what the exit status comes from.
public struct RunReport: Codable, Sendable, Equatable {
    /// The source URL, canonical.
    public var source: String
    /// The mirror directory's absolute path.
    public var output: String
    /// When the run started (whole seconds, as the manifest writes times).
    public var startedAt: Date
    /// When the run ended (whole seconds).
    public var finishedAt: Date
    /// Wall-clock length of the run, in seconds (not truncated).
    public var durationSeconds: Double
    /// 0 all good; 1 some accepted keys failed (or a page could not be read); 2, 3, 4, 75 and
    /// 130 for runs that stopped (see `MirrorError`).
    public var exitStatus: Int32
    /// True for `--dry-run`: the counts below say what a real run would do.
    public var dryRun: Bool = false
    /// Keys published for the first time.
    public var added: Int = 0
    /// Keys whose bytes changed.
    public var replaced: Int = 0
    /// Keys confirmed unchanged (304 or identical bytes).
    public var unchanged: Int = 0
    /// Items of the previous manifest deleted (or, stopped by the guard, that would have been).
    public var removed: Int = 0
    /// Items of the previous manifest that failed this run and were kept as they were.
    public var kept: Int = 0
    /// With `--dry-run`: the keys that would be added, replaced and removed.
    public var changes: [String: [String]]?
    /// Seconds from the start of the run to the end of each phase: `crawl` (pages, feeds and
    /// sitemaps read), `fetch` (every download settled; overlaps the crawl), `publish`.
    public var phases: [String: Double] = [:]
    /// HTML pages read.
    public var pages: Int
    /// Feeds, listings and sitemaps read.
    public var feeds: Int
    /// Distinct keys seen.
    public var keys: Int
    /// Items in the manifest.
    public var published: Int
    /// Images fetched over the network in this run.
    public var downloaded: Int
    /// Requests for a key answered by a download already made or under way in this run.
    public var memoryHits: Int
    /// Keys answered from a stored file: found current on revalidation (a 304, or identical bytes).
    public var diskHits: Int
    /// Bytes of image bodies received in this run.
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
        var report = RunReport(
            source: configuration.source.string, output: configuration.output.standardizedFileURL.path,
            startedAt: Timestamp.truncated(startedAt), finishedAt: Timestamp.truncated(finishedAt),
            durationSeconds: finishedAt.timeIntervalSince(startedAt), exitStatus: error.exitStatus,
            pages: progress.pagesCrawled, feeds: progress.feedsRead, keys: progress.keysFound, published: 0,
            downloaded: 0, memoryHits: progress.memoryHits, diskHits: progress.diskHits, bytesDownloaded: progress.bytes,
            rejected: [:], failed: [:], warnings: [], error: error.description)
        report.dryRun = configuration.dryRun
        if let deletions = error.deletions { report.removed = deletions.wouldDelete }
        return report
    }

    /// The one-line summary printed at the end of every run.
    public var summaryLine: String {
        var parts =
            dryRun
            ? ["dry run: would add \(added), replace \(replaced), delete \(removed)", "\(unchanged) unchanged"]
            : [
                Self.count(published, "image") + " published", "\(added) added", "\(replaced) replaced", "\(unchanged) unchanged",
                "\(removed) removed",
            ]
        if kept > 0 { parts.append("\(kept) kept from the last run") }
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
        parts.append(String(format: "%.1f MB downloaded", Double(bytesDownloaded) / 1e6))
        return "catalog-mirror: " + parts.joined(separator: ", ") + " → \(output)"
    }

    /// Reads a report written by ``encoded()``.
    ///
    /// - Throws: A `DecodingError` when `data` is not such a report.
    public static func decode(_ data: Data) throws -> RunReport { try JSONCoding.decode(RunReport.self, from: data) }

    private static func count(_ value: Int, _ noun: String) -> String {
        "\(value) \(noun)\(value == 1 ? "" : "s")"
    }

    /// The report as `--report FILE` writes it: pretty JSON with sorted keys, dates as
    /// second-precision UTC RFC 3339 strings.
    ///
    /// - Throws: An `EncodingError` if a value cannot be encoded (not expected for a report).
    public func encoded() throws -> Data { try JSONCoding.encode(self) }
}
