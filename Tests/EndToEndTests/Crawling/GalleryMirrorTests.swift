import Foundation
import MirrorTestSupport
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorPublish
@testable import MirrorStore
@testable import SampleGallery

@Suite("Mirroring a real gallery server")
struct GalleryMirrorTests {
    @Test("pages, feed and listing become a complete, self-contained mirror")
    func mirrorsGallery() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let catalog = Fixture.catalog()
        let server = GalleryServer(catalog: catalog)
        let output = directory.url.appendingPathComponent("mirror")

        try await server.run { url in
            let origin = "http://127.0.0.1:\(url.port!)"
            let key = { (id: Int) in "\(origin)/gallery/image?\(id)" }

            // When the gallery is mirrored ...
            let report = try await MirrorEngine(configuration: testConfiguration(source: url.absoluteString, output: output))
                .run()

            // ... the manifest lists exactly the twelve good images, with the served bytes ...
            let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            #expect(manifest.items.map(\.key) == (1...12).map(key).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
            for item in manifest.items {
                let id = Int(item.key.split(separator: "?").last!)!
                let entry = catalog.entries.first { $0.id == id }!
                #expect(item.sha256 == sha256Hex(entry.bytes))
                #expect(item.bytes == Int64(entry.bytes.count))
                #expect(item.title == entry.name)
                #expect(item.metadata?["price"] == entry.price)
                let file = try Data(contentsOf: output.appendingPathComponent(item.path))
                #expect(Array(file) == entry.bytes)
                #expect(item.path.hasPrefix("images/"))
                // The size read from the image's header as it was checked (issue 26).
                #expect(item.width ?? 0 > 0 && item.height ?? 0 > 0, "\(item.key) has no size")
                #expect(item.path.hasSuffix(entry.bytes[0] == 0x89 ? ".png" : entry.bytes[0] == 0xFF ? ".jpg" : ".gif"))
            }
            // ... every other key is rejected with its reason ...
            #expect(
                manifest.rejected == [
                    .init(key: key(13), reason: "not-an-image"), .init(key: key(14), reason: "http-404"),
                    .init(key: "\(origin)/gallery/private/preview.png", reason: "robots"),
                ])
            #expect(report.exitStatus == 1)
            #expect(report.failed == ["not-an-image": 1, "http-404": 1])
            #expect(report.rejected == ["robots": 1])
            #expect(report.published == 12)
            // ... each image was requested once although pages, feed and listing name it often ...
            let imageRequests = server.requestLog.filter { $0.hasPrefix("/gallery/image?") }
            #expect(imageRequests.count == 14)
            #expect(Set(imageRequests).count == 14)
            // ... and every repeated sighting of an accepted key was answered from the loader's
            // memory (the listing alone names each image three times).
            #expect(report.memoryHits >= 2 * 14)
            #expect(!server.requestLog.contains("/gallery/private/preview.png"))
            // ... the pages reference only files inside the mirror, and copy nothing executable.
            #expect(try unresolvedReferences(in: output) == [])
            let index = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
            // The one script is the mirror's own (the photo view and search), from its assets.
            #expect(index.matches(of: /<script\b[^>]*>/).map { String($0.0) } == [#"<script src="assets/gallery.js" defer>"#])
            #expect(!index.contains("onload"))
            #expect(!index.contains("tracker"))
            #expect(try MirrorVerifier.verify(MirrorLayout(root: output)).isClean)
            #expect(try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("images").path).count == 12)
        }
    }

    @Test("a second run over an unchanged gallery downloads nothing and keeps every name")
    func secondRun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = GalleryServer(catalog: Fixture.catalog())
        let output = directory.url.appendingPathComponent("mirror")
        try await server.run { url in
            let configuration = testConfiguration(source: url.absoluteString, output: output)
            _ = try await MirrorEngine(configuration: configuration).run()
            let first = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            let requestsBefore = server.requestLog.count

            let exchangesBefore = server.exchangeLog.count
            let report = try await MirrorEngine(configuration: configuration).run()
            let second = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            // Every stored image is revalidated with a conditional request answered 304: no body.
            let goodImageExchanges = server.exchangeLog.dropFirst(exchangesBefore).filter {
                $0.target.hasPrefix("/gallery/image?") && !$0.target.hasSuffix("?13") && !$0.target.hasSuffix("?14")
            }
            #expect(goodImageExchanges.count == 12)
            #expect(goodImageExchanges.allSatisfy { $0.conditional && $0.status == 304 && $0.bodyBytes == 0 })
            #expect(server.requestLog.count > requestsBefore)
            #expect(report.downloaded == 0)
            #expect(report.bytesDownloaded == 0)
            #expect(report.diskHits == 12)
            #expect(report.unchanged == 12 && report.added == 0 && report.replaced == 0 && report.removed == 0)
            #expect(second.items.map(\.path) == first.items.map(\.path))
            #expect(second.items.map(\.firstSeen) == first.items.map(\.firstSeen))
            #expect(try MirrorVerifier.verify(MirrorLayout(root: output)).isClean)
        }
    }

    @Test("an unreachable source exits 3 and creates nothing")
    func unreachable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        // A port that was just in use and is now closed.
        let closed = try await TestServer().run(routes: { _, _ in }) { origin in origin }
        let output = directory.url.appendingPathComponent("mirror")
        await #expect {
            _ = try await MirrorEngine(configuration: testConfiguration(source: closed + "/gallery/", output: output)).run()
        } throws: { error in
            (error as? MirrorError)?.exitStatus == 3
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("a feed that cannot be read is a warning: the pages are still mirrored, exit 1")
    func brokenFeed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("mirror")
        let server = GalleryServer(catalog: Fixture.catalog())
        try await server.run { url in
            var broken = testConfiguration(source: url.absoluteString, output: output)
            broken.crawl.feed = CanonicalURL(url.absoluteString + "?page=1")  // an HTML page, not a feed
            let report = try await MirrorEngine(configuration: broken).run()
            #expect(report.exitStatus == 1)
            #expect(report.published > 0)
            #expect(report.warnings.contains { $0.contains("?page=1") && $0.contains("not RSS, Atom or JSON") })
        }
    }
}

/// Every file outside `.catalog-mirror/` with its bytes.
func snapshot(_ root: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(atPath: root.path)
    while let path = enumerator?.nextObject() as? String {
        if path.hasPrefix(".catalog-mirror") { continue }
        var isDirectory: ObjCBool = false
        let url = root.appendingPathComponent(path)
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            files[path] = try Data(contentsOf: url)
        }
    }
    return files
}
