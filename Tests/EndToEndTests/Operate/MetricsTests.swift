import Foundation
import MirrorTestSupport
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorOperate
@testable import MirrorStore
@testable import SampleGallery

@Suite("Operating it: --metrics")
struct MetricsTests {
    @Test(
        "node_exporter's textfile collector serves a sync's metrics with the report's values; a failed run keeps the last success"
    )
    func throughNodeExporter() async throws {
        try ExternalTool.require(.nodeExporter, .promtool)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let textfiles = directory.url.appendingPathComponent("textfile")
        try FileManager.default.createDirectory(at: textfiles, withIntermediateDirectories: true)
        let mirror = directory.url.appendingPathComponent("mirror").standardizedFileURL
        let file = textfiles.appendingPathComponent("gallery.prom")
        let exporter = try await NodeExporter.start(
            textfiles: textfiles, log: directory.url.appendingPathComponent("exporter.log"))
        defer { exporter.stop() }
        @Sendable func readReport(_ name: String) throws -> RunReport {
            try RunReport.decode(Data(contentsOf: directory.url.appendingPathComponent(name)))
        }
        let m = ["mirror": mirror.path]
        let server = GalleryServer(catalog: Fixture.catalog())
        let succeeded = try await server.run { url in
            // Given a sync that writes metrics and a report,
            let first = try await Binary.run(
                ["sync", url.absoluteString, "--out", mirror.path, "--metrics", file.path, "--report", "first.json"],
                in: directory.url)
            #expect(first.status == 1, "\(first.stderr)")
            let report = try readReport("first.json")

            // then a scrape of node_exporter shows every metric, with the report's values.
            let scrape = try await exporter.scrape()
            #expect(scrape.value("node_textfile_scrape_error") == 0)
            #expect(scrape.value("catalog_mirror_exit_status", m) == 1)
            #expect(scrape.value("catalog_mirror_last_run_timestamp_seconds", m) == report.finishedAt.timeIntervalSince1970)
            #expect(scrape.value("catalog_mirror_last_success_timestamp_seconds", m) == report.finishedAt.timeIntervalSince1970)
            let duration = try #require(scrape.value("catalog_mirror_run_duration_seconds", m))
            #expect(abs(duration - report.durationSeconds) < 0.001)
            let states = [
                "published": report.published, "added": report.added, "replaced": report.replaced, "unchanged": report.unchanged,
                "removed": report.removed,
            ]
            for (state, count) in states {
                #expect(scrape.value("catalog_mirror_images", m.merging(["state": state]) { $1 }) == Double(count), "\(state)")
            }
            #expect(report.added == 12 && report.published == 12)
            #expect(scrape.all("catalog_mirror_failed", m).count == report.failed.count)
            for (reason, count) in report.failed {
                #expect(scrape.value("catalog_mirror_failed", m.merging(["reason": reason]) { $1 }) == Double(count))
            }
            #expect(scrape.all("catalog_mirror_rejected", m).count == report.rejected.count)
            for (reason, count) in report.rejected {
                #expect(scrape.value("catalog_mirror_rejected", m.merging(["reason": reason]) { $1 }) == Double(count))
            }
            #expect(scrape.value("catalog_mirror_downloaded_bytes", m) == Double(report.bytesDownloaded))
            #expect(scrape.value("catalog_mirror_documents", m.merging(["kind": "page"]) { $1 }) == Double(report.pages))
            #expect(scrape.value("catalog_mirror_documents", m.merging(["kind": "feed"]) { $1 }) == Double(report.feeds))
            let build = try #require(scrape.all("catalog_mirror_build_info", m).first)
            #expect(
                build.value == 1 && build.labels["version"] == CatalogMirrorVersion.current && build.labels["revision"] != nil)
            // Every sample of ours names the mirror.
            #expect(
                scrape.samples.filter { $0.name.hasPrefix("catalog_mirror_") }.allSatisfy { $0.labels["mirror"] == mirror.path })
            // promtool's linter finds nothing to say about the file.
            let lint = try await ExternalTool.promtool.run(["check", "metrics"], input: Data(contentsOf: file))
            #expect(lint.status == 0 && lint.stdout.isEmpty, "\(lint.stdout)\(lint.stderr)")
            // Nothing but the file in the textfile folder (its temporary file was renamed).
            #expect(try FileManager.default.contentsOfDirectory(atPath: textfiles.path) == ["gallery.prom"])

            // A second mirror writes a file of its own into the same folder: both are scraped, and
            // node_exporter finds no series twice.
            let other = directory.url.appendingPathComponent("other").standardizedFileURL
            let second = try await Binary.run(
                [
                    "sync", url.absoluteString, "--out", other.path, "--metrics",
                    textfiles.appendingPathComponent("other.prom").path,
                ],
                in: directory.url)
            #expect(second.status == 1, "\(second.stderr)")
            let both = try await exporter.scrape()
            #expect(both.value("node_textfile_scrape_error") == 0)
            #expect(both.all("catalog_mirror_build_info").count == 2)
            #expect(both.value("catalog_mirror_exit_status", ["mirror": other.path]) == 1)
            #expect(both.value("catalog_mirror_exit_status", m) == 1)
            #expect(!exporter.logged.contains("collected before"), "\(exporter.logged)")

            // The cron form, with no option at all, keeps writing the saved file.
            let cron = try await Binary.run(["sync", "--out", mirror.path, "--report", "cron.json"], in: directory.url)
            #expect(cron.status == 1, "\(cron.stderr)")
            let cronReport = try readReport("cron.json")
            let saved = Scrape(try String(contentsOf: file, encoding: .utf8))
            #expect(saved.value("catalog_mirror_last_run_timestamp_seconds", m) == cronReport.finishedAt.timeIntervalSince1970)
            #expect(saved.value("catalog_mirror_images", m.merging(["state": "unchanged"]) { $1 }) == 12)
            #expect(saved.value("catalog_mirror_images", m.merging(["state": "added"]) { $1 }) == 0)
            return cronReport.finishedAt.timeIntervalSince1970
        }

        // When the source is down (the server has stopped), the cron form exits 3: the file says so,
        // with this run's time and status, and keeps the last success.
        let down = try await Binary.run(["sync", "--out", mirror.path, "--report", "down.json"], in: directory.url)
        #expect(down.status == 3, "\(down.stderr)")
        let downReport = try readReport("down.json")
        let scrape = try await exporter.scrape()
        #expect(scrape.value("node_textfile_scrape_error") == 0)
        #expect(scrape.value("catalog_mirror_exit_status", m) == 3)
        #expect(scrape.value("catalog_mirror_last_success_timestamp_seconds", m) == succeeded)
        #expect(scrape.value("catalog_mirror_last_run_timestamp_seconds", m) == downReport.finishedAt.timeIntervalSince1970)
        #expect(scrape.value("catalog_mirror_images", m.merging(["state": "published"]) { $1 }) == 0)
        let lint = try await ExternalTool.promtool.run(["check", "metrics"], input: Data(contentsOf: file))
        #expect(lint.status == 0 && lint.stdout.isEmpty, "\(lint.stdout)\(lint.stderr)")
    }

    @Test("SIGINT (exit 130) and the delete guard (exit 4) write metrics; bad options (exit 2) and a held lock (exit 75) do not")
    func whichRunsWrite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let metrics = directory.url.appendingPathComponent("m.prom")
        let mirror = directory.url.appendingPathComponent("m").standardizedFileURL

        // Exit 2: an option that does not parse, and settings that do not read.
        let usage = try await Binary.run(
            ["sync", "http://127.0.0.1:1/", "--out", mirror.path, "--metrics", metrics.path, "--max-pages", "0"],
            in: directory.url)
        #expect(usage.status == 2)
        #expect(!FileManager.default.fileExists(atPath: metrics.path))

        // Exit 75: another sync holds the lock.
        let held = try MirrorLock.acquire(MirrorLayout(root: mirror), create: true)
        let locked = try await Binary.run(
            ["sync", "http://127.0.0.1:1/", "--out", mirror.path, "--metrics", metrics.path], in: directory.url)
        #expect(locked.status == 75)
        #expect(!FileManager.default.fileExists(atPath: metrics.path))
        withExtendedLifetime(held) {}
        try FileManager.default.removeItem(at: mirror)

        // Exit 130: stopped by SIGINT while a download hangs.
        final class Release: Sendable { let done = Mutex(false) }
        let release = Release()
        defer { release.done.withLock { $0 = true } }
        let server = TestServer()
        try await server.run(routes: { router, _ in
            router.get("/") { _, _ in html("<img src=\"/stuck.png\">") }
            router.get("/stuck.png") { _, _ in
                for _ in 0..<3_000 where !release.done.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
                return bytes(Fixture.png)
            }
        }) { origin in
            let running = try Binary.start(
                ["sync", origin + "/", "--out", mirror.path, "--metrics", metrics.path], in: directory.url)
            while !server.log.contains("/stuck.png") { try await Task.sleep(for: .milliseconds(20)) }
            running.process.interrupt()
            #expect(await running.wait() == 130)
            release.done.withLock { $0 = true }
        }
        let stopped = Scrape(try String(contentsOf: metrics, encoding: .utf8))
        #expect(stopped.value("catalog_mirror_exit_status", ["mirror": mirror.path]) == 130)
        #expect(stopped.all("catalog_mirror_last_success_timestamp_seconds").isEmpty)
        #expect(stopped.value("catalog_mirror_last_run_timestamp_seconds", ["mirror": mirror.path]) != nil)

        // Exit 4: the delete guard; the last success (of the first sync) is carried over.
        let gallery = GalleryServer(catalog: Fixture.catalog())
        let guarded = directory.url.appendingPathComponent("guarded").standardizedFileURL
        try await gallery.run { url in
            let first = try await Binary.run(
                ["sync", url.absoluteString, "--out", guarded.path, "--metrics", metrics.path], in: directory.url)
            #expect(first.status == 1)
            let success = Scrape(try String(contentsOf: metrics, encoding: .utf8)).value(
                "catalog_mirror_last_success_timestamp_seconds", ["mirror": guarded.path])
            #expect(success != nil)
            gallery.update { $0.entries = Array($0.entries.prefix(2)) }
            let stop = try await Binary.run(["sync", "--out", guarded.path], in: directory.url)
            #expect(stop.status == 4)
            let after = Scrape(try String(contentsOf: metrics, encoding: .utf8))
            #expect(after.value("catalog_mirror_exit_status", ["mirror": guarded.path]) == 4)
            #expect(after.value("catalog_mirror_images", ["mirror": guarded.path, "state": "removed"]) == 10)
            #expect(after.value("catalog_mirror_last_success_timestamp_seconds", ["mirror": guarded.path]) == success)
            // A dry run writes nothing, the metrics file included.
            let before = try Data(contentsOf: metrics)
            #expect(try await Binary.run(["sync", "--out", guarded.path, "--dry-run"], in: directory.url).status == 4)
            #expect(try Data(contentsOf: metrics) == before)
        }
    }
}
