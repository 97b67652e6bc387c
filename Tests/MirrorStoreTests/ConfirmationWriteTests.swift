import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorStore
@testable import SampleGallery

/// Issue 29: a confirmation that changes nothing but `lastChecked` (a 304 with the same
/// validators, what almost every key of a re-sync gets) is written as that one column; any
/// other change still writes the whole row. Either way the database ends up with the row the
/// store last handed out.
@Suite("Confirmations written to the state database")
struct ConfirmationWriteTests {
    /// A mirror with one published PNG, its row confirmed once (so it has its file's time and
    /// size, and the next confirmations change only what they say).
    static func mirror(in directory: TemporaryDirectory) async throws -> (MirrorLayout, CanonicalURL) {
        let layout = MirrorLayout(root: directory.url)
        try FileManager.default.createDirectory(at: layout.images, withIntermediateDirectories: true)
        let png = SampleImage.bundled.first { $0.format == "png" }!.bytes
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
        let storage = try await ImageDatabase.open(layout)
        _ = await storage.lookup(key)
        _ = try await storage.confirm(
            key, validators: Validators(etag: "\"a\"", lastModified: nil), at: Date(timeIntervalSince1970: 1))
        await ImageDatabase.close(storage)
        return (layout, key)
    }

    static func row(_ layout: MirrorLayout) throws -> StoredImage? {
        try StateDatabase.open(layout, readOnly: true).allImages().first
    }

    @Test("a 304 with the same validators writes the new lastChecked and leaves the rest of the row as it was")
    func onlyChecked() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, key) = try await Self.mirror(in: directory)
        let before = try #require(try Self.row(layout))
        #expect(before.fileModified != nil)
        #expect(before.dimensions != nil)

        let storage = try await ImageDatabase.open(layout)
        #expect(await storage.lookup([key]).count == 1)
        let confirmed = try await storage.confirm(
            key, validators: Validators(etag: "\"a\"", lastModified: nil), at: Date(timeIntervalSince1970: 2))
        await ImageDatabase.close(storage)

        var expected = before
        expected.lastChecked = Date(timeIntervalSince1970: 2)
        #expect(confirmed == expected)
        #expect(try Self.row(layout) == expected)
    }

    @Test("new validators, or a row changed earlier in the same run and not yet written, write the whole row")
    func wholeRow() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, key) = try await Self.mirror(in: directory)
        let before = try #require(try Self.row(layout))

        // A new ETag, then a confirmation that changes only the time of that unwritten row: the
        // second must not be written as the time alone (the database has the old ETag).
        let storage = try await ImageDatabase.open(layout)
        _ = try await storage.confirm(
            key, validators: Validators(etag: "\"b\"", lastModified: nil), at: Date(timeIntervalSince1970: 3))
        _ = try await storage.confirm(
            key, validators: Validators(etag: "\"b\"", lastModified: nil), at: Date(timeIntervalSince1970: 4))
        await ImageDatabase.close(storage)
        var expected = before
        expected.etag = "\"b\""
        expected.lastChecked = Date(timeIntervalSince1970: 4)
        #expect(try Self.row(layout) == expected)

        // The time alone, then new validators before anything is written: the whole row again.
        let again = try await ImageDatabase.open(layout)
        _ = try await again.confirm(
            key, validators: Validators(etag: "\"b\"", lastModified: nil), at: Date(timeIntervalSince1970: 5))
        _ = try await again.confirm(
            key, validators: Validators(etag: "\"c\"", lastModified: "Tue, 21 Nov 2026 12:00:00 GMT"),
            at: Date(timeIntervalSince1970: 6))
        await ImageDatabase.close(again)
        expected.etag = "\"c\""
        expected.lastModified = "Tue, 21 Nov 2026 12:00:00 GMT"
        expected.lastChecked = Date(timeIntervalSince1970: 6)
        #expect(try Self.row(layout) == expected)
    }
}
