import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorPipeline
@testable import MirrorStore
@testable import SampleGallery

/// What downloads the loader stored leave in the store: their sizes (issue 26), and what
/// `catalog-mirror clean` (`Leftovers.discard(in:)`) removes of a stopped run's. The store's
/// tests that need no download are MirrorStoreTests' `StoredDimensionsTests` and `LeftoversTests`.
@Suite("What a download leaves in the store")
struct DownloadedRowTests {
    @Test("the size read from a download's header goes into its row and the manifest's item")
    func downloadSize() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (_, _, storage, loader) = try await StoreStateTests.pngStore(in: directory)
        let key = CanonicalURL("http://h/a.png")!
        guard let stored = await StoreStateTests.downloadAll([key], with: loader)?.first else { return }
        let png = SampleImage.bundled.first { $0.format == "png" }!.bytes
        #expect(stored.dimensions == ImageHeader.dimensions(.png, head: png, length: Int64(png.count)) { _, _ in [] })
        #expect(stored.dimensions != nil)
        await ImageDatabase.close(storage)
    }

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
}
