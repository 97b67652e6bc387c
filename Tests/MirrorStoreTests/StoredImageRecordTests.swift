import Foundation
import GRDB
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorStore

/// A row is written by the batched insert from `StoredImage.columnValues` and read back by
/// column name: a value put in the wrong place, or a column left out, fails here.
@Suite("The index's image rows")
struct StoredImageRecordTests {
    @Test("every column a row holds is written by the batched insert and read back as it was")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        try FileManager.default.createDirectory(at: layout.state, withIntermediateDirectories: true)
        var embedded = EmbeddedMetadata()
        embedded.camera = "Camera"
        embedded.title = "Dunes"
        let image = StoredImage(
            key: try #require(CanonicalURL("http://h/g/a.jpg")), fileName: "a-0123456789.jpg",
            sha256: String(repeating: "ab", count: 32), byteCount: 1234, contentType: "image/jpeg", etag: "\"e\"",
            lastModified: "Tue, 01 Dec 2026 10:00:00 GMT", firstSeen: Date(timeIntervalSince1970: 1000),
            lastChecked: Date(timeIntervalSince1970: 2000), stagedName: "x1.part", fileModified: 3000,
            dimensions: ImageDimensions.checked(width: 640, height: 480), embedded: embedded,
            fingerprint: String(repeating: "f", count: 224))
        #expect(image.columnValues.count == StoredImage.Columns.allCases.count)
        let database = try StateDatabase.open(layout, readOnly: false)
        try database.save([image])
        let read = try #require(try database.images(for: [image.key])[image.key.string])
        #expect(read == image)
        // A second save of the same key replaces the row.
        var changed = image
        changed.etag = nil
        changed.fingerprint = nil
        try database.save([changed])
        #expect(try database.images(for: [image.key])[image.key.string] == changed)
    }
}
