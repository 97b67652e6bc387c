import Foundation
import MirrorCore

/// The metrics of one sync in Prometheus's text exposition format, as node_exporter's textfile
/// collector reads them (`--metrics FILE`): `# HELP` and `# TYPE` lines, gauges, no timestamps,
/// every sample labelled with the mirror directory's absolute path, so several mirrors can
/// write one file each into one textfile directory.
///
/// Made from the run's ``RunReport``, so the metrics say what `--report` says, count for count.
/// `catalog_mirror_last_success_timestamp_seconds` is the end of this run when it finished
/// (exit 0 or 1, its mirror published); a run that stopped (exit 1 for a mirror that could not
/// be written, 3, 4, 130) carries over the value of the file it replaces, so "no success for
/// two hours" is one alert rule. `catalog_mirror_build_info` carries the `mirror` label too:
/// node_exporter refuses the same series from two files of one directory.
public struct RunMetrics: Sendable, Equatable {
    /// The program that ran: the labels of `catalog_mirror_build_info`.
    public struct Build: Sendable, Equatable {
        /// The version (`CatalogMirrorVersion.current`).
        package var version: String
        /// The git revision it was built from.
        package var revision: String

        /// A build of `version` from `revision`.
        public init(version: String, revision: String) {
            self.version = version
            self.revision = revision
        }
    }

    /// The mirror directory's absolute path: the `mirror` label.
    package var mirror: String
    /// End of this run, Unix seconds (whole, as the report writes `finishedAt`).
    package var lastRun: Int64
    /// End of the last run that finished, Unix seconds; nil until one has.
    package var lastSuccess: Int64?
    /// This run's wall time, seconds.
    package var duration: Double
    /// This run's exit status.
    package var exitStatus: Int32
    /// The report's counts by `state`: published, added, replaced, unchanged, removed.
    package var images: [String: Int]
    /// Keys rejected this run, by reason.
    package var rejected: [String: Int]
    /// Items failed this run, by reason.
    package var failed: [String: Int]
    /// Body bytes of images received this run.
    package var downloadedBytes: Int64
    /// Pages and feeds (or listings) read, by `kind`: page, feed.
    package var documents: [String: Int]
    /// The program that ran.
    package var build: Build

    /// The metrics of the run `report` describes, for `build`; `previous` is the text of the
    /// metrics file this run replaces (nil when there is none), which a run that did not finish
    /// takes its last success from.
    package init(report: RunReport, build: Build, previous: String?) {
        let mirror = URL(fileURLWithPath: report.output).standardizedFileURL.path
        let end = Int64(report.finishedAt.timeIntervalSince1970.rounded(.down))
        let finished =
            report.error == nil && !report.dryRun
            && (report.exitStatus == ExitStatus.ok || report.exitStatus == ExitStatus.itemsFailed)
        self.mirror = mirror
        lastRun = end
        lastSuccess = finished ? end : previous.flatMap { Self.lastSuccess(in: $0, mirror: mirror) }
        duration = report.durationSeconds
        exitStatus = report.exitStatus
        images = [
            "published": report.published, "added": report.added, "replaced": report.replaced,
            "unchanged": report.unchanged, "removed": report.removed,
        ]
        rejected = report.rejected
        failed = report.failed
        downloadedBytes = report.bytesDownloaded
        documents = ["page": report.pages, "feed": report.feeds]
        self.build = build
    }

    /// The file's text: each metric's `# HELP` and `# TYPE gauge` lines, then its samples
    /// (labels sorted by value); a metric with no sample (no rejection this run, no success
    /// yet) is left out whole.
    package var text: String {
        var out = ""
        func family(_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: String)]) {
            guard !samples.isEmpty else { return }
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for sample in samples {
                let labels = ([("mirror", mirror)] + sample.labels).map { "\($0.0)=\"\(Self.escaped($0.1))\"" }
                out += "\(name){\(labels.joined(separator: ","))} \(sample.value)\n"
            }
        }
        func byLabel(_ label: String, _ counts: [String: Int]) -> [(labels: [(String, String)], value: String)] {
            counts.sorted { $0.key < $1.key }.map { ([(label, $0.key)], String($0.value)) }
        }
        family(
            "catalog_mirror_last_run_timestamp_seconds", "End of the last sync of this mirror, in Unix seconds.",
            [([], String(lastRun))])
        family(
            "catalog_mirror_last_success_timestamp_seconds",
            "End of the last sync of this mirror that finished (exit 0 or 1), in Unix seconds.",
            lastSuccess.map { [([], String($0))] } ?? [])
        family(
            "catalog_mirror_run_duration_seconds", "Wall time of the last sync, in seconds.",
            [([], String(format: "%.3f", duration))])
        family(
            "catalog_mirror_exit_status",
            "Exit status of the last sync (0 ok, 1 some items failed, 3 source, 4 delete guard, 130 stopped).",
            [([], String(exitStatus))])
        family(
            "catalog_mirror_images",
            "Images of the last sync by state: published in the mirror, added, replaced, unchanged, removed.",
            ["published", "added", "replaced", "unchanged", "removed"].map { ([("state", $0)], String(images[$0] ?? 0)) })
        family("catalog_mirror_rejected", "Keys the last sync rejected, by reason.", byLabel("reason", rejected))
        family("catalog_mirror_failed", "Items that failed in the last sync, by reason.", byLabel("reason", failed))
        family(
            "catalog_mirror_downloaded_bytes", "Bytes of image bodies the last sync received.",
            [([], String(downloadedBytes))])
        family(
            "catalog_mirror_documents", "Documents the last sync read, by kind: HTML pages, feeds and listings.",
            ["page", "feed"].map { ([("kind", $0)], String(documents[$0] ?? 0)) })
        family(
            "catalog_mirror_build_info", "The catalog-mirror that ran the last sync; always 1.",
            [([("version", build.version), ("revision", build.revision)], "1")])
        return out
    }

    /// The last success that a metrics file's `text` gives for `mirror`: nil when it gives none
    /// (or names another mirror, or is not a file this type wrote).
    package static func lastSuccess(in text: String, mirror: String) -> Int64? {
        let prefix = "catalog_mirror_last_success_timestamp_seconds{mirror=\"\(escaped(mirror))\"} "
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            let value = line.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
            if let seconds = Int64(value) { return seconds }
            if let seconds = Double(value), seconds.isFinite { return Int64(seconds.rounded(.down)) }
        }
        return nil
    }

    /// Writes the metrics of `report` to `file`, atomically (a temporary file in the same
    /// folder, then a rename), carrying the last success over from the file it replaces.
    ///
    /// - Returns: the metrics written.
    /// - Throws: A one-line `PublishError` naming the file when it cannot be written.
    @discardableResult
    public static func write(_ report: RunReport, build: Build, to file: URL) throws(PublishError) -> RunMetrics {
        let previous = (try? Data(contentsOf: file)).map { String(decoding: $0, as: UTF8.self) }
        let metrics = RunMetrics(report: report, build: build, previous: previous)
        let bytes = Array(metrics.text.utf8)
        try AtomicFile.replace(file) { writer in try bytes.withUnsafeBytes { try writer.write($0) } }
        return metrics
    }

    /// A label value as the text format writes it: backslash, double quote and line feed escaped.
    static func escaped(_ value: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\"": out.append(contentsOf: "\\\"".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
