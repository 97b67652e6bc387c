import Foundation
import Testing

@testable import CatalogMirror
@testable import MirrorCatalog
@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorOperate
@testable import MirrorStore

/// The plan and report phases: what a second run's catalog plans against the first run's
/// mirror, and what the report says of it.
@Suite("The plan and report phases")
struct RunReportingTests {
    /// The report of `planned` as the engine makes it once the run has published.
    static func report(_ fixture: PhaseFixture, _ planned: PlannedRun, removed: [RunChanges.Entry] = []) -> RunReport {
        let startedAt = Date()
        return RunReporting(configuration: fixture.configuration, progress: ProgressBoard())
            .report(
                planned, published: PublishedRun(removed: removed),
                times: .init(startedAt: startedAt, fetchedAt: startedAt.addingTimeInterval(1)))
    }

    @Test("a second run's plan: 4 added, 1 replaced, 5 unchanged, 3 removed, 2 failed and kept; exit 1")
    func countsFromAPlan() async throws {
        let fixture = try PhaseFixture()
        defer { fixture.cleanup() }
        let (unchanged, kept, removed, added) = (
            (1...5).map { "u\($0)" }, ["k1", "k2"], ["x1", "x2", "x3"], (1...4).map { "n\($0)" }
        )
        try await fixture.publishFirstRun(unchanged + ["r1"] + kept + removed)
        let report = try await fixture.withStore { storage in
            var entries = unchanged.map { PhaseFixture.entry($0, .stored(staged: false)) }
            entries.append(try await PhaseFixture.stage("r1", PhaseFixture.png(7), in: storage))
            entries += kept.map { PhaseFixture.entry($0, .failed(FetchFailure(.http(500), "HTTP 500"))) }
            for (number, name) in added.enumerated() {
                entries.append(try await PhaseFixture.stage(name, PhaseFixture.png(UInt8(10 + number)), in: storage))
            }
            let planned = try await fixture.plan(entries, storage: storage)
            let published = try await fixture.publish(planned, storage: storage)
            return Self.report(fixture, planned, removed: published.removed)
        }
        #expect(report.added == 4 && report.replaced == 1 && report.unchanged == 5)
        #expect(report.removed == 3 && report.kept == 2)
        #expect(report.published == 12 && report.keys == 12)
        #expect(report.failed == ["http-500": 2])
        #expect(report.exitStatus == 1)
        let keys = { (names: [String]) in names.map { PhaseFixture.key($0).string } }
        #expect(report.changes?.keys(.added) == keys(added))
        #expect(report.changes?.keys(.replaced) == keys(["r1"]))
        #expect(report.changes?.keys(.removed) == keys(removed))
        #expect(report.phases["fetch"] == 1)
        #expect(report.dryRun == false)
        // What the report counts is what the mirror now holds.
        #expect(Set(try fixture.manifestItems().keys) == Set(keys(unchanged + ["r1"] + kept + added)))
    }

    @Test("exit status: 0 when nothing failed, 1 when an image or a page failed")
    func exitStatus() async throws {
        let fixture = try PhaseFixture()
        defer { fixture.cleanup() }
        try await fixture.publishFirstRun(["a"])
        try await fixture.withStore { storage in
            let unchanged = [PhaseFixture.entry("a", .stored(staged: false))]
            let clean = try await fixture.plan(unchanged, storage: storage)
            #expect(Self.report(fixture, clean).exitStatus == 0)
            #expect(Self.report(fixture, clean).unchanged == 1)

            var pageFailed = CrawlSummary()
            pageFailed.pageFailures = ["page http://gallery.test/2.html: connection refused (network-error)"]
            let withPageFailure = try await fixture.plan(unchanged, summary: pageFailed, storage: storage)
            #expect(Self.report(fixture, withPageFailure).exitStatus == 1)

            let imageFailed = [
                PhaseFixture.entry("a", .stored(staged: false)),
                PhaseFixture.entry("z", .failed(FetchFailure(.timeout, "timed out"))),
            ]
            let withImageFailure = try await fixture.plan(imageFailed, storage: storage)
            #expect(withImageFailure.plan.failed.values.reduce(0, +) == 1)
            #expect(Self.report(fixture, withImageFailure).exitStatus == 1)
        }
    }

    @Test("a plan with nothing to publish stops the run: an empty source never empties a mirror")
    func emptyCrawl() async throws {
        let fixture = try PhaseFixture()
        defer { fixture.cleanup() }
        try await fixture.publishFirstRun(["a"])
        let outcome = try await fixture.withStore { storage in
            do throws(MirrorError) {
                return Result<PlannedRun, MirrorError>.success(try await fixture.plan([], storage: storage))
            } catch {
                return .failure(error)
            }
        }
        guard case .failure(let error) = outcome else {
            Issue.record("planned to publish nothing")
            return
        }
        #expect(error.code == .sourceUnavailable)
        #expect(try fixture.manifestItems().keys.sorted() == [PhaseFixture.key("a").string])
    }
}
