import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorStore

/// The store's naming part on its own (`FileNames` over a `RowIndex` on a real state database):
/// two keys' names differ only by a hash collision, which a sync cannot be made to meet, so the
/// lengthening of a taken name is tested here, with rows written to hold the names.
@Suite("Free file names")
struct FileNamesTests {
    @Test("a name another key's row holds, written or still queued, gets a longer hash; a key's own name is kept")
    func takenNames() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (given, expected) = try await Self.names(in: MirrorLayout(root: directory.url))
        #expect(given == expected)
        #expect(expected.map(\.count) == [18, 22, 26, 18])
    }

    /// The names `FileNames` gives one request as rows come to hold them, and the names it
    /// should give: free; held by another key's written row; also held by another key's
    /// queued row; held by the key's own row.
    @ImageDatabase static func names(in layout: MirrorLayout) throws -> (given: [String], expected: [String]) {
        try DiskStorage.prepareDirectories(layout, readOnly: false)
        var rows = RowIndex(database: try StateDatabase.open(layout, readOnly: false), rootPath: layout.root.path)
        defer { rows.close() }
        let naming = FileNames()
        let request = ImageRequest(key: CanonicalURL("http://h/b.png")!, title: "Bee")
        let file = DownloadedFile(
            temporaryPath: layout.staged.path + "/dl.part", sha256: String(repeating: "ab", count: 32), byteCount: 1,
            format: .png)
        func name(_ length: Int) -> String {
            FileNamer.fileName(
                key: request.key, title: request.title, sha256: file.sha256, format: file.format, hashLength: length)
        }
        func row(_ key: String, named fileName: String) -> StoredImage {
            StoredImage(
                key: CanonicalURL(key)!, fileName: fileName, sha256: file.sha256, byteCount: 1, contentType: "image/png",
                etag: nil, lastModified: nil, firstSeen: Date(), lastChecked: Date())
        }
        var given: [String] = []
        given.append(try naming.freeName(for: request, file: file, rows: rows))
        try rows.write([row("http://h/a.png", named: name(10))])
        given.append(try naming.freeName(for: request, file: file, rows: rows))
        // Queued, not written: a staged row waits for 63 more or a second.
        try rows.keep(row("http://h/c.png", named: name(14)), newFile: true)
        given.append(try naming.freeName(for: request, file: file, rows: rows))
        try rows.delete([CanonicalURL("http://h/a.png")!])
        try rows.write([row(request.key.string, named: name(10))])
        given.append(try naming.freeName(for: request, file: file, rows: rows))
        return (given, [name(10), name(14), name(18), name(10)])
    }
}
