import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorObjectStore

/// The publisher's large-object path against a real SeaweedFS: a file over the threshold goes
/// up in parts, and the object the store assembles is the file, byte for byte.
@Suite("Multipart uploads (SeaweedFS)", .serialized)
struct MultipartTests {
    @Test("a file over the threshold goes up in 5 MiB parts and reads back whole; a no-op sends nothing")
    func largeFileInParts() async throws {
        try ExternalTool.require(.seaweedfs)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try await SeaweedFS.start(in: directory.url)
        defer { store.stop() }
        // Given a mirror with one 11 MiB image (three parts: 5, 5 and 1 MiB) and a page,
        let root = directory.url.appendingPathComponent("mirror")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent(".catalog-mirror"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("images"), withIntermediateDirectories: true)
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<(11 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try Data(bytes).write(to: root.appendingPathComponent("images/large.jpg"))
        try Data("<!DOCTYPE html><title>t</title>".utf8).write(to: root.appendingPathComponent("index.html"))
        let now = Date(timeIntervalSince1970: 1_796_646_960)
        let manifest = Manifest(
            source: "http://127.0.0.1/gallery/", generatedAt: now,
            items: [
                Manifest.Item(
                    key: "http://127.0.0.1/gallery/large.jpg", path: "images/large.jpg", sha256: sha256Hex(bytes),
                    bytes: Int64(bytes.count), contentType: "image/jpeg", firstSeen: now, lastChecked: now)
            ], rejected: [])
        try manifest.encoded().write(to: root.appendingPathComponent("manifest.json"))
        let target = try #require(ObjectStoreTarget("s3://\(SeaweedFS.bucket)/large"))
        let endpoint = try ObjectStoreEndpoint.resolve(target, environment: store.environment)
        let state = root.appendingPathComponent(".catalog-mirror/bucket.json")

        // when it is published with a 5 MiB threshold,
        let (first, second) = try await S3Client.with(target, endpoint: endpoint) { client in
            var publisher = BucketPublisher(client: client, root: root, stateFile: state)
            publisher.configuration.multipartThreshold = 5 << 20
            publisher.configuration.partSize = 5 << 20
            let first = try await publisher.publish(manifest)
            let second = try await publisher.publish(manifest)
            return (first, second)
        }
        // then the three files went up, the image in three parts, and a second publish sends nothing;
        #expect(first.uploaded == 3)
        #expect(second == BucketPublisher.Summary())
        let requests = try await store.requests()
        #expect(requests.filter { $0 == "PUT /gallery/large/images/large.jpg" }.count == 3, "\(requests)")
        #expect(requests.filter { $0 == "POST /gallery/large/images/large.jpg" }.count == 2, "\(requests)")
        // and a visitor reads the whole image back, typed and cached as an image.
        let object = try await store.anonymousGet("large/images/large.jpg")
        #expect(object.status == 200)
        #expect(object.body.count == bytes.count)
        #expect(sha256Hex(Array(object.body)) == sha256Hex(bytes))
        #expect(object.headers["content-type"] == "image/jpeg")
        #expect(object.headers["cache-control"] == "public, max-age=31536000, immutable")
        let report = try await S3Client.with(target, endpoint: endpoint) { try await BucketVerifier.verify($0) }
        #expect(report == BucketVerifier.Report(checked: 1, problems: []))
    }
}
