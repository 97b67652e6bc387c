import Foundation
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorStore
@testable import SampleGallery

/// `Leftovers.discard(in:)`, what `catalog-mirror clean` runs: the downloads a stopped run kept
/// go, the published mirror stays.
@Suite("Leftovers of a stopped run")
struct LeftoversTests {
    @Test("clean removes staged rows, staged files and tmp/; published files and their rows stay")
    func discard() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, _, storage, loader) = try await StoreStateTests.pngStore(in: directory)
        let published = CanonicalURL("http://h/a.png")!
        let kept = [CanonicalURL("http://h/b.png")!, CanonicalURL("http://h/c.png")!]
        guard let first = await StoreStateTests.downloadAll([published], with: loader) else { return }
        try await storage.publish([published])
        // A later run verifies two downloads and stops before it publishes them.
        guard await StoreStateTests.downloadAll(kept, with: loader) != nil else { return }
        await ImageDatabase.close(storage)
        try Data("half a download".utf8).write(to: layout.temporary.appendingPathComponent("x.part"))

        let discarded = try await Leftovers.discard(in: layout)
        #expect(discarded.downloads == 2 && discarded.files == 3)
        #expect(discarded.bytes > 0)
        let rows = try StateDatabase.open(layout, readOnly: true).allImages()
        #expect(rows.map(\.key) == [published] && rows.allSatisfy { !$0.isStaged })
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.staged.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.temporary.path).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.images.path) == [first[0].fileName])

        // Nothing left the second time.
        #expect(try await Leftovers.discard(in: layout) == Leftovers.Discarded())
    }

    @Test("clean refuses a directory that is not a mirror, and a mirror whose lock a sync holds")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        do {
            _ = try await Leftovers.discard(in: layout)
            Issue.record("a directory without .catalog-mirror/ was cleaned")
        } catch {
            #expect(error.code == .notAMirror, "\(error)")
            #expect(error.message.contains("is not a mirror"))
        }
        let lock = try MirrorLock.acquire(layout, create: true)
        do {
            _ = try await Leftovers.discard(in: layout)
            Issue.record("a locked mirror was cleaned")
        } catch {
            #expect(error.code == .inUse, "\(error)")
            #expect(error.message.contains("another sync is running on \(layout.root.path)"))
        }
        withExtendedLifetime(lock) {}
    }
}
