import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorStore

/// Issue 48: a store whose mirror has no manifest on disk starts from its bucket's: the items
/// the bucket holds become rows that a lookup returns (so the loader revalidates them), a 304
/// confirms them without a file, and the publish check does not call them missing.
@Suite("A store started from its bucket's manifest")
struct PublishedCopiesTests {
    static let at = Date(timeIntervalSince1970: 1_000)

    static func item(_ name: String, sha: Character, variantOf: String? = nil) -> Manifest.Item {
        var item = Manifest.Item(
            key: "http://h/\(name).jpg", path: "images/\(name)-0123456789.jpg", sha256: String(repeating: sha, count: 64),
            bytes: 100, contentType: "image/jpeg", etag: "\"\(name)\"", firstSeen: at, lastChecked: at)
        item.variantOf = variantOf
        item.width = 40
        item.height = 30
        item.camera = "Camera \(name)"
        item.fingerprint = "ab"
        return item
    }

    /// A bucket that holds `big`, `small` (a rendition of big) and `other`, but `other` with other bytes.
    static func copies(in directory: TemporaryDirectory) throws -> (PublishedCopies, Manifest) {
        let manifest = Manifest(
            source: "http://h/", generatedAt: at,
            items: [item("big", sha: "a"), item("other", sha: "c"), item("small", sha: "b", variantOf: "http://h/big.jpg")],
            rejected: [])
        let file = directory.url.appendingPathComponent("bucket-manifest.json")
        try manifest.encoded().write(to: file)
        var files: [String: PublishedCopies.File] = [:]
        for item in manifest.items { files[item.path] = .init(sha256: item.sha256, bytes: item.bytes) }
        files["images/other-0123456789.jpg"] = .init(sha256: String(repeating: "d", count: 64), bytes: 100)
        return (PublishedCopies(files: files, manifest: (file, manifest)), manifest)
    }

    @Test("the bucket's items become rows, revalidated and confirmed without a file; one it does not hold is not")
    func startsFromTheBucket() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (copies, _) = try Self.copies(in: directory)
        let layout = MirrorLayout(root: directory.url.appendingPathComponent("mirror"))
        let storage = try await ImageDatabase.open(layout, copies: copies)
        // The last run is the bucket's manifest,
        #expect(await storage.previousManifest?.items.count == 3)
        // and a lookup finds the rows of the images the bucket holds, with their validators,
        let big = try #require(CanonicalURL("http://h/big.jpg"))
        let found = await storage.lookup(big)
        #expect(found?.etag == "\"big\"")
        #expect(found?.dimensions == ImageDimensions.checked(width: 40, height: 30))
        #expect(found?.embedded?.camera == "Camera big")
        #expect(found?.fingerprint == "ab")
        // but not of one whose bytes there are not the manifest's.
        #expect(await storage.lookup(try #require(CanonicalURL("http://h/other.jpg"))) == nil)
        // A 304 confirms the row, keeping what the file said, with no file to read.
        let confirmed = try await storage.confirm(big, validators: Validators(etag: "\"big2\"", lastModified: nil), at: Self.at)
        #expect(confirmed?.etag == "\"big2\"")
        #expect(confirmed?.embedded?.camera == "Camera big")
        // The pair the manifest grouped is answered as matching.
        let answers = await storage.previousPixelAnswers()
        #expect(answers.map { "\($0.first) \($0.second) \($0.matches)" } == ["http://h/big.jpg http://h/small.jpg true"])
        await ImageDatabase.close(storage)
    }

    @Test("a published item the bucket holds is not missing; one it does not hold is")
    func missingFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (copies, manifest) = try Self.copies(in: directory)
        let layout = MirrorLayout(root: directory.url)
        var held = manifest
        held.items.removeAll { $0.key.hasSuffix("other.jpg") }
        #expect(Publication.missingFiles(of: held.table, in: layout, heldBy: copies) == nil)
        let missing = Publication.missingFiles(of: manifest.table, in: layout, heldBy: copies)
        #expect(missing?.contains("images/other-0123456789.jpg") == true, "\(missing ?? "")")
        #expect(Publication.missingFiles(of: held.table, in: layout) != nil)
    }
}
