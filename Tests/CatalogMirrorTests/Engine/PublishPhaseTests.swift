import Foundation
import Testing

@testable import CatalogMirror
@testable import MirrorCatalog
@testable import MirrorCore
@testable import MirrorFetch
@testable import MirrorPublish
@testable import MirrorStore

/// The publish phase against a real mirror directory and a real store.
@Suite("The publish phase")
struct PublishPhaseTests {
    @Test("a plan's staged images go into images/ (a first run's folder, a later run's files), then pages and manifest name them")
    func publishesStagedImages() async throws {
        let fixture = try PhaseFixture()
        defer { fixture.cleanup() }
        let layout = fixture.layout
        try await fixture.withStore { storage in
            await storage.stageUnderFinalNamesOnFirstRun()
            let entries = [
                try await PhaseFixture.stage("a", PhaseFixture.png(1), in: storage),
                try await PhaseFixture.stage("b", PhaseFixture.png(2), in: storage),
            ]
            let planned = try await fixture.plan(entries, storage: storage)
            #expect(planned.plan.staged.count == 2)
            // Nothing is visible before the phase runs.
            #expect(!FileManager.default.fileExists(atPath: layout.images.path))
            #expect(!FileManager.default.fileExists(atPath: layout.manifest.path))
            let published = try await fixture.publish(planned, storage: storage)
            #expect(published.removed.isEmpty)
            for key in ["a", "b"].map(PhaseFixture.key) { #expect(await storage.lookup(key)?.isStaged == false) }
        }
        try Self.expectPublished(["a": 1, "b": 2], in: fixture)

        // A later run's staged files are renamed into images/ one by one, by the plan's keys.
        try await fixture.withStore { storage in
            let entries = [
                try await PhaseFixture.stage("a", PhaseFixture.png(3), in: storage),
                PhaseFixture.entry("b", .stored(staged: false)),
                try await PhaseFixture.stage("c", PhaseFixture.png(4), in: storage),
            ]
            let planned = try await fixture.plan(entries, storage: storage)
            #expect(planned.plan.staged.count == 2)
            _ = try await fixture.publish(planned, storage: storage)
        }
        try Self.expectPublished(["a": 3, "b": 2, "c": 4], in: fixture)
    }

    /// Expects the mirror of `fixture` to publish exactly the images `variants` names, each
    /// with the bytes `PhaseFixture.png(variant)`, in `images/`, named by `index.html`, with
    /// nothing left in `staged/`.
    static func expectPublished(_ variants: [String: UInt8], in fixture: PhaseFixture) throws {
        let layout = fixture.layout
        let items = try fixture.manifestItems()
        #expect(Set(items.keys) == Set(variants.keys.map { PhaseFixture.key($0).string }))
        let index = try String(contentsOf: layout.root.appendingPathComponent("index.html"), encoding: .utf8)
        for (name, variant) in variants {
            let path = try #require(items[PhaseFixture.key(name).string])
            #expect(path.hasPrefix("images/"))
            #expect(Array(try Data(contentsOf: layout.root.appendingPathComponent(path))) == PhaseFixture.png(variant))
            #expect(index.contains(path))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.staged.path).isEmpty)
    }

    @Test("images that cannot be put in place publish no page and no manifest")
    func imagesFirst() async throws {
        let fixture = try PhaseFixture()
        defer { fixture.cleanup() }
        let layout = fixture.layout
        let outcome = try await fixture.withStore { storage in
            await storage.stageUnderFinalNamesOnFirstRun()
            let entries = [try await PhaseFixture.stage("a", PhaseFixture.png(1), in: storage)]
            let planned = try await fixture.plan(entries, storage: storage)
            // A file where images/ should be: no staged image can be moved into place.
            try Data("not a folder".utf8).write(to: layout.images)
            return await fixture.publishing(planned, storage: storage)
        }
        guard case .failure(let error) = outcome else {
            Issue.record("published into a file")
            return
        }
        #expect(error.code == .storage)
        #expect(!FileManager.default.fileExists(atPath: layout.manifest.path))
        #expect(!FileManager.default.fileExists(atPath: layout.root.appendingPathComponent("index.html").path))
    }

    @Test("a file gone from images/ while the run published leaves the pages and manifest.json as they were")
    func missingFileKeepsPages() async throws {
        let fixture = try PhaseFixture()
        defer { fixture.cleanup() }
        let layout = fixture.layout
        try await fixture.publishFirstRun(["a", "b"])
        let manifestBefore = try Data(contentsOf: layout.manifest)
        let indexBefore = try Data(contentsOf: layout.root.appendingPathComponent("index.html"))
        let gone = try #require(try fixture.manifestItems()[PhaseFixture.key("b").string])

        let outcome = try await fixture.withStore { storage in
            // The next run: a is downloaded again with other bytes; b is unchanged.
            let entries = [
                try await PhaseFixture.stage("a", PhaseFixture.png(9), in: storage),
                PhaseFixture.entry("b", .stored(staged: false)),
            ]
            let planned = try await fixture.plan(entries, storage: storage)
            #expect(planned.plan.replaced.count == 1 && planned.plan.unchanged == 1)
            // b's file is deleted after the plan was made.
            try FileManager.default.removeItem(at: layout.root.appendingPathComponent(gone))
            return await fixture.publishing(planned, storage: storage)
        }
        guard case .failure(let error) = outcome else {
            Issue.record("published a manifest naming a missing file")
            return
        }
        #expect(error.code == .storage)
        #expect(error.description.contains("\(gone) went missing while the run published"))
        #expect(try Data(contentsOf: layout.manifest) == manifestBefore)
        #expect(try Data(contentsOf: layout.root.appendingPathComponent("index.html")) == indexBefore)
    }

    @Test("over --max-delete the phase refuses: nothing is published or deleted, the download stays staged")
    func maxDeleteGuard() async throws {
        var fixture = try PhaseFixture()
        defer { fixture.cleanup() }
        let layout = fixture.layout
        try await fixture.publishFirstRun(["a", "b", "c"])
        fixture.configuration.publish.maxDelete = .count(1)
        let before = fixture.snapshot()

        let (outcome, staged) = try await fixture.withStore { storage in
            // Only a new key is seen: a, b and c would be removed.
            let entries = [try await PhaseFixture.stage("d", PhaseFixture.png(4), in: storage)]
            let planned = try await fixture.plan(entries, storage: storage)
            #expect(planned.plan.removed.count == 3 && planned.previousCount == 3)
            let staged = try FileManager.default.contentsOfDirectory(atPath: layout.staged.path)
            let outcome = await fixture.publishing(planned, storage: storage)
            return (outcome, staged)
        }
        guard case .failure(let error) = outcome else {
            Issue.record("published past --max-delete")
            return
        }
        #expect(error.code == .pruneGuard)
        #expect(staged.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.staged.path) == staged)
        // Outside .catalog-mirror/ (where the index and the staged download are), nothing changed.
        let outside = { (files: [String: String]) in files.filter { !$0.key.hasPrefix(".catalog-mirror") } }
        #expect(outside(fixture.snapshot()) == outside(before))
    }

    @Test("a dry run's publish phase writes nothing and still says what would be removed")
    func dryRunWritesNothing() async throws {
        var fixture = try PhaseFixture()
        defer { fixture.cleanup() }
        try await fixture.publishFirstRun(["a", "b"])
        fixture.configuration.dryRun = true
        try await fixture.withStore { storage in
            // A dry run probes a new key and sees a again; b is gone from the source.
            let entries = [PhaseFixture.entry("a", .stored(staged: false)), PhaseFixture.entry("c", .probed)]
            let planned = try await fixture.plan(entries, storage: storage)
            let before = fixture.snapshot()
            let published = try await fixture.publish(planned, storage: storage)
            #expect(published.removed.map(\.key) == [PhaseFixture.key("b").string])
            #expect(fixture.snapshot() == before)
        }
        #expect(Set(try fixture.manifestItems().keys) == [PhaseFixture.key("a").string, PhaseFixture.key("b").string])
    }
}
