import Foundation
import Testing

@testable import MirrorCore
@testable import MirrorObjectStore

/// What a publish reads of the mirror on disk (`BucketPublisher.mirrorFiles`): images as the
/// manifest describes them (on this disk or not), and every other file hashed unless the last
/// publish hashed it at its size and time.
@Suite struct MirrorFilesTests {
    static let at = Date(timeIntervalSince1970: 1_000)

    func withPublisher(_ body: (BucketPublisher, URL) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mirror-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let target = try #require(ObjectStoreTarget("s3://gallery/site"))
        let endpoint = ObjectStoreEndpoint(
            scheme: "http", authority: "127.0.0.1:9", basePath: "/gallery", region: "us-east-1",
            credentials: ObjectStoreCredentials(accessKeyID: "a", secretAccessKey: "b"))
        try await S3Client.with(target, endpoint: endpoint) { client in
            try await body(
                BucketPublisher(client: client, root: root, stateFile: root.appendingPathComponent("state.json")), root)
        }
    }

    @Test("the site the bucket's manifest names is kept in the state, and a state saved before it was kept reads as naming none")
    func siteInState() throws {
        let manifest = Manifest(source: "http://h/", generatedAt: Self.at, items: [], rejected: [])
        let head = S3Client.ObjectHead(bytes: 321, sha256: "content", site: "mark")
        let seeded = BucketState.seeded(from: manifest, target: "t", head: head)
        #expect(seeded.site == "mark" && seeded.seeded)
        #expect(seeded.objects["manifest.json"] == BucketState.Object(sha256: "content", bytes: 321))
        // A manifest put by a version that set no `x-amz-meta-sha256` stays unknown (sent again).
        let unknown = BucketState.seeded(from: manifest, target: "t", head: S3Client.ObjectHead(bytes: 321))
        #expect(unknown.objects["manifest.json"] == nil && unknown.site == nil)

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bucket-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try seeded.write(to: file)
        #expect(BucketState.read(file, target: "t") == seeded)
        try Data(#"{"target":"t","objects":{},"seeded":false}"#.utf8).write(to: file)
        #expect(BucketState.read(file, target: "t")?.site == nil)
    }

    @Test("a page at the size and time the last publish hashed it is not hashed again; a changed one is")
    func quickCheck() async throws {
        try await withPublisher { publisher, root in
            let page = root.appendingPathComponent("index.html")
            try Data("<p>first</p>".utf8).write(to: page)
            let manifest = Manifest(source: "http://h/", generatedAt: Self.at, items: [], rejected: [])
            let first = try publisher.mirrorFiles(manifest, known: BucketState(target: "t"))
            let hashed = try #require(first.first { $0.path == "index.html" })
            #expect(hashed.object.sha256 == FileSystem.sha256(atPath: page.path))
            // A state that says the bucket holds other bytes for this size and time is believed,
            var known = BucketState(target: "t", objects: ["index.html": .init(sha256: "not-hashed", bytes: hashed.object.bytes)])
            known.modified["index.html"] = try #require(hashed.modified)
            let quick = try publisher.mirrorFiles(manifest, known: known)
            #expect(quick.first { $0.path == "index.html" }?.object.sha256 == "not-hashed")
            // and a file written since (by rename, as pages are) is hashed again.
            let replacement = root.appendingPathComponent("index.tmp")
            try Data("<p>later</p>".utf8).write(to: replacement)
            try FileManager.default.removeItem(at: page)
            try FileManager.default.moveItem(at: replacement, to: page)
            if FileSystem.status(atPath: page.path)?.modified == known.modified["index.html"] {
                known.modified["index.html"] = 0  // a clock too coarse to tell: the size and time differ from the state's anyway
            }
            let changed = try publisher.mirrorFiles(manifest, known: known)
            #expect(changed.first { $0.path == "index.html" }?.object.sha256 == FileSystem.sha256(atPath: page.path))
        }
    }

    @Test("an image the manifest names that is not on this disk is listed as the manifest describes it, not on disk")
    func imagesNotOnDisk() async throws {
        try await withPublisher { publisher, _ in
            let item = Manifest.Item(
                key: "http://h/a.jpg", path: "images/a-0123456789.jpg", sha256: String(repeating: "a", count: 64), bytes: 7,
                contentType: "image/jpeg", firstSeen: Self.at, lastChecked: Self.at)
            let manifest = Manifest(source: "http://h/", generatedAt: Self.at, items: [item], rejected: [])
            let files = try publisher.mirrorFiles(manifest, known: BucketState(target: "t"))
            let image = try #require(files.first { $0.path == item.path })
            #expect(!image.onDisk)
            #expect(image.object == .init(sha256: item.sha256, bytes: 7))
            #expect(image.cacheControl == ObjectMetadata.immutable)
        }
    }
}
