import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorStore
@testable import SampleGallery

/// Issue 26: an image's size is kept with its row, so a 304 keeps it, and a row stored before
/// sizes were kept gains it from the file's header on its next confirmation.
@Suite("Stored image sizes")
struct StoredDimensionsTests {
    @Test("a download's size is stored with its row; a row from before sizes were kept gains it when it is confirmed")
    func sizesKeptAndGained() async throws {
        // Given a mirror an older version wrote: one published PNG, in the manifest only.
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        try FileManager.default.createDirectory(at: layout.images, withIntermediateDirectories: true)
        let png = SampleImage.bundled.first { $0.format == "png" }!.bytes
        let expected = try #require(
            ImageHeader.dimensions(.png, head: Array(png.prefix(4096)), length: Int64(png.count)) { _, _ in [] })
        try Data(png).write(to: layout.images.appendingPathComponent("a-0123456789.png"))
        let manifest = Manifest(
            source: "http://h/", generatedAt: Date(timeIntervalSince1970: 0),
            items: [
                .init(
                    key: "http://h/a.png", path: "images/a-0123456789.png", sha256: sha256Hex(png), bytes: Int64(png.count),
                    contentType: "image/png", etag: "\"a\"", firstSeen: Date(timeIntervalSince1970: 0),
                    lastChecked: Date(timeIntervalSince1970: 0))
            ], rejected: [])
        try manifest.encoded().write(to: layout.manifest)
        let key = CanonicalURL("http://h/a.png")!

        // When the store takes it in, the row has no size; a 304 confirms it.
        var storage = try await ImageDatabase.open(layout)
        #expect(await storage.lookup(key)?.dimensions == nil)
        let confirmed = try await storage.confirm(key, validators: Validators(etag: "\"a\"", lastModified: nil), at: Date())
        #expect(confirmed?.dimensions == expected)
        await ImageDatabase.close(storage)

        // Then the size is in the database, and the next confirmation keeps it.
        let rows = try StateDatabase.open(layout, readOnly: true).allImages()
        #expect(rows.first?.dimensions == expected)
        storage = try await ImageDatabase.open(layout)
        #expect(await storage.lookup(key)?.dimensions == expected)
        await ImageDatabase.close(storage)
    }
}
