import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorOperate

@Suite("Metrics of a run (--metrics)")
struct RunMetricsTests {
    static let build = RunMetrics.Build(version: "9.9.9", revision: "abcdef012345")

    /// A finished run's report: exit 1, two failures, one rejection.
    static func report(output: String = "/srv/gallery", exitStatus: Int32 = 1, error: String? = nil) -> RunReport {
        var report = RunReport(
            source: "http://h/gallery/", output: output, startedAt: Date(timeIntervalSince1970: 1_800_000_000),
            finishedAt: Date(timeIntervalSince1970: 1_800_000_042), durationSeconds: 42.25, exitStatus: exitStatus, pages: 3,
            feeds: 2, keys: 20, published: 12, downloaded: 12, memoryHits: 4, diskHits: 0, bytesDownloaded: 123_456,
            rejected: ["out-of-scope": 3], failed: ["http-404": 1, "not-an-image": 1], warnings: [], error: error)
        report.added = 12
        return report
    }

    @Test("a finished run: every documented metric, labelled with the mirror, as the report counts")
    func finished() {
        let text = RunMetrics(report: Self.report(), build: Self.build, previous: nil).text
        let m = "mirror=\"/srv/gallery\""
        let expected = """
            # HELP catalog_mirror_last_run_timestamp_seconds End of the last sync of this mirror, in Unix seconds.
            # TYPE catalog_mirror_last_run_timestamp_seconds gauge
            catalog_mirror_last_run_timestamp_seconds{\(m)} 1800000042
            # HELP catalog_mirror_last_success_timestamp_seconds End of the last sync of this mirror that finished (exit 0 or 1), in Unix seconds.
            # TYPE catalog_mirror_last_success_timestamp_seconds gauge
            catalog_mirror_last_success_timestamp_seconds{\(m)} 1800000042
            # HELP catalog_mirror_run_duration_seconds Wall time of the last sync, in seconds.
            # TYPE catalog_mirror_run_duration_seconds gauge
            catalog_mirror_run_duration_seconds{\(m)} 42.250
            # HELP catalog_mirror_exit_status Exit status of the last sync (0 ok, 1 some items failed, 3 source, 4 delete guard, 130 stopped).
            # TYPE catalog_mirror_exit_status gauge
            catalog_mirror_exit_status{\(m)} 1
            # HELP catalog_mirror_images Images of the last sync by state: published in the mirror, added, replaced, unchanged, removed.
            # TYPE catalog_mirror_images gauge
            catalog_mirror_images{\(m),state="published"} 12
            catalog_mirror_images{\(m),state="added"} 12
            catalog_mirror_images{\(m),state="replaced"} 0
            catalog_mirror_images{\(m),state="unchanged"} 0
            catalog_mirror_images{\(m),state="removed"} 0
            # HELP catalog_mirror_rejected Keys the last sync rejected, by reason.
            # TYPE catalog_mirror_rejected gauge
            catalog_mirror_rejected{\(m),reason="out-of-scope"} 3
            # HELP catalog_mirror_failed Items that failed in the last sync, by reason.
            # TYPE catalog_mirror_failed gauge
            catalog_mirror_failed{\(m),reason="http-404"} 1
            catalog_mirror_failed{\(m),reason="not-an-image"} 1
            # HELP catalog_mirror_downloaded_bytes Bytes of image bodies the last sync received.
            # TYPE catalog_mirror_downloaded_bytes gauge
            catalog_mirror_downloaded_bytes{\(m)} 123456
            # HELP catalog_mirror_documents Documents the last sync read, by kind: HTML pages, feeds and listings.
            # TYPE catalog_mirror_documents gauge
            catalog_mirror_documents{\(m),kind="page"} 3
            catalog_mirror_documents{\(m),kind="feed"} 2
            # HELP catalog_mirror_build_info The catalog-mirror that ran the last sync; always 1.
            # TYPE catalog_mirror_build_info gauge
            catalog_mirror_build_info{\(m),version="9.9.9",revision="abcdef012345"} 1

            """
        #expect(text == expected)
    }

    @Test("a run that stopped keeps the last success of the file it replaces, and only this mirror's")
    func carriedOver() {
        let first = RunMetrics(report: Self.report(exitStatus: 0), build: Self.build, previous: nil)
        var stopped = Self.report(exitStatus: 3, error: "cannot crawl http://h/gallery/")
        stopped.finishedAt = Date(timeIntervalSince1970: 1_800_003_600)
        let second = RunMetrics(report: stopped, build: Self.build, previous: first.text)
        #expect(second.lastSuccess == 1_800_000_042 && second.lastRun == 1_800_003_600 && second.exitStatus == 3)
        #expect(second.text.contains("catalog_mirror_last_success_timestamp_seconds{mirror=\"/srv/gallery\"} 1800000042\n"))
        // A third failure still carries it.
        let third = RunMetrics(report: stopped, build: Self.build, previous: second.text)
        #expect(third.lastSuccess == 1_800_000_042)
        // Never a success: no sample, and no HELP or TYPE line for it either.
        let never = RunMetrics(report: stopped, build: Self.build, previous: nil)
        #expect(never.lastSuccess == nil && !never.text.contains("last_success"))
        // Another mirror's file gives nothing; nor does a run that exited 1 without publishing.
        let other = RunMetrics(
            report: Self.report(output: "/srv/other", exitStatus: 3, error: "x"), build: Self.build, previous: first.text)
        #expect(other.lastSuccess == nil)
        let storage = RunMetrics(report: Self.report(exitStatus: 1, error: "cannot write"), build: Self.build, previous: nil)
        #expect(storage.lastSuccess == nil)
    }

    @Test("label values are escaped; the path is made absolute and standard")
    func escaping() {
        let text = RunMetrics(report: Self.report(output: "/srv/a \"b\"\\c\nd/../e/"), build: Self.build, previous: nil).text
        let mirror = URL(fileURLWithPath: "/srv/a \"b\"\\c\nd/../e/").standardizedFileURL.path
        #expect(text.contains("catalog_mirror_exit_status{mirror=\"\(RunMetrics.escaped(mirror))\"} 1\n"))
        #expect(RunMetrics.escaped("a\"b\\c\nd") == "a\\\"b\\\\c\\nd")
        // The line feed in the path did not split a sample.
        #expect(
            text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().allSatisfy {
                $0.hasPrefix("# ") || $0.hasPrefix("catalog_mirror_")
            })
        // And read back for the carry-over.
        let stopped = RunMetrics(
            report: Self.report(output: "/srv/a \"b\"\\c\nd/../e/", exitStatus: 130, error: "stopped"), build: Self.build,
            previous: text)
        #expect(stopped.lastSuccess == 1_800_000_042)
    }

    @Test("the file is replaced through a temporary file in its own folder, which is gone after")
    func atomicWrite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let file = directory.url.appendingPathComponent("gallery.prom")
        try Data("old".utf8).write(to: file)
        let written = try RunMetrics.write(Self.report(), build: Self.build, to: file)
        #expect(try String(contentsOf: file, encoding: .utf8) == written.text)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["gallery.prom"])
        let missing = directory.url.appendingPathComponent("no-such-folder/gallery.prom")
        #expect(throws: PublishError.self) { try RunMetrics.write(Self.report(), build: Self.build, to: missing) }
    }
}
