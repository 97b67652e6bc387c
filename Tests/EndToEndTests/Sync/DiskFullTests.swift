import Foundation
import Hummingbird
import MirrorTestSupport
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorStore
@testable import SampleGallery

/// A disk that fills up, everywhere it can during a sync: the downloads of a first run and of
/// an update, the index's commit, the manifest's write. Each run stops with one line and exit 1,
/// leaves what a web server serves as it was, and keeps what it verified; the next run with room
/// completes, fetching only what it lacks (counted in the server's log). Each mirror is on a
/// small tmpfs of its own (`Mounted`, root only).
@Suite("A full disk", .serialized)
struct DiskFullTests {
    /// The image bodies (200s of the image endpoint) of the server's exchanges after `start`,
    /// and the keys asked conditionally and answered 304.
    static func imageExchanges(_ server: GalleryServer, after start: Int, url: URL) -> (
        bodies: [GalleryServer.Exchange], notModified: Set<String>
    ) {
        let images = server.exchangeLog.dropFirst(start).filter { $0.target.hasPrefix("/gallery/image?") }
        let origin = "http://127.0.0.1:\(url.port!)"
        return (
            images.filter { $0.status == 200 && $0.bodyBytes > 0 },
            Set(images.filter { $0.status == 304 }.map { origin + $0.target })
        )
    }

    /// The rows the index holds for downloads that wait in `staged/` (kept by a run that stopped).
    static func keptRows(_ output: URL) throws -> [StoredImage] {
        try StateDatabase.open(MirrorLayout(root: output), readOnly: true).allImages().filter(\.isStaged)
    }

    @Test("disk full on a first run: one line, nothing published; with room, the next run fetches only what was not kept")
    func firstRun() async throws {
        let mount = try Mounted()
        try mount.tmpfs(size: "16m")
        defer { mount.unmount() }
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        // Thirty photos, ten to a page (about 500 KB).
        let catalog = GalleryCatalog(
            title: "Full Disk Gallery",
            entries: SampleImage.bundled.prefix(30).enumerated().map { index, image in
                GalleryCatalog.Entry(id: index + 1, name: image.name, price: image.price, bytes: image.bytes)
            }, perPage: 10)
        let count = catalog.entries.count
        let server = GalleryServer(catalog: catalog)
        let output = mount.point.appendingPathComponent("m")
        let total = catalog.entries.reduce(0) { $0 + $1.bytes.count }
        try await server.run { url in
            // Room for about half the images.
            let filler = try mount.fill(leaving: total / 2)
            let full = try await FaultTests.sync(url.absoluteString, output, in: directory.url)
            #expect(full.status == 1, "\(full.stderr)")
            #expect(FaultTests.saysDiskFull(full.stderr), "\(full.stderr)")
            // Nothing is published: no page, no manifest, no images/; what was verified waits in
            // .catalog-mirror/ with its rows.
            #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == [".catalog-mirror"])
            let failed = Self.imageExchanges(server, after: 0, url: url).bodies
            let kept = try Self.keptRows(output)
            #expect(!kept.isEmpty && kept.count < count, "kept \(kept.count)")
            for row in kept {
                let file = output.appendingPathComponent(".catalog-mirror/staged/" + (row.stagedName ?? ""))
                #expect(incompleteImage(file) == nil)
            }

            try FileManager.default.removeItem(at: filler)
            let start = server.exchangeLog.count
            let again = try await FaultTests.sync(url.absoluteString, output, in: directory.url)
            #expect(again.status == 0, "\(again.stderr)")
            let resumed = Self.imageExchanges(server, after: start, url: url)
            // Every kept download is revalidated (a 304), and only the rest is fetched.
            #expect(resumed.notModified == Set(kept.map(\.key.string)))
            #expect(resumed.bodies.count == count - kept.count)
            #expect(try FaultTests.lastReport(directory.url).downloaded == count - kept.count)
            try await FaultTests.expectWhole(output, images: count, in: directory.url)
            print(
                "disk full on a first run: the failed run fetched \(failed.count) image bodies "
                    + "(\(failed.reduce(0) { $0 + $1.bodyBytes }) bytes) and kept \(kept.count); the resumed run "
                    + "revalidated those and fetched \(resumed.bodies.count) (\(resumed.bodies.reduce(0) { $0 + $1.bodyBytes }) bytes)"
            )
        }
    }

    @Test("disk full during an update: pages and manifest.json as before, changed images kept; with room, only the rest")
    func update() async throws {
        let mount = try Mounted()
        try mount.tmpfs(size: "16m")
        defer { mount.unmount() }
        let output = mount.point.appendingPathComponent("m")
        try await FaultTests().afterFirstSync(into: output) { server, url, output, directory in
            // Every image changes, and one is new: more than the disk has room for.
            server.update { catalog in
                for index in catalog.entries.indices {
                    catalog.entries[index].bytes = SampleImage.bundled[12 + index].bytes
                }
                catalog.entries.append(.init(id: 13, name: "Newcomer", price: "3.00", bytes: SampleImage.bundled[30].bytes))
            }
            let served = try FaultTests.served(output)
            let filler = try mount.fill(leaving: 300_000)
            let full = try await FaultTests.sync(nil, output, in: directory)
            #expect(full.status == 1, "\(full.stderr)")
            #expect(FaultTests.saysDiskFull(full.stderr), "\(full.stderr)")
            #expect(try FaultTests.served(output) == served)
            #expect(try await FaultTests.verify(output, in: directory) == 0)
            let kept = try Self.keptRows(output)
            #expect(!kept.isEmpty && kept.count < 13, "kept \(kept.count)")

            try FileManager.default.removeItem(at: filler)
            let start = server.exchangeLog.count
            let again = try await FaultTests.sync(nil, output, in: directory)
            #expect(again.status == 0, "\(again.stderr)")
            let resumed = Self.imageExchanges(server, after: start, url: url)
            #expect(resumed.notModified == Set(kept.map(\.key.string)))
            #expect(resumed.bodies.count == 13 - kept.count)
            try await FaultTests.expectWhole(output, images: 13, in: directory)
            print("disk full during an update: \(kept.count) of 13 changed images kept, \(resumed.bodies.count) fetched after")
        }
    }

    @Test("disk full at the index's commit: one line, the mirror as it was; with room, nothing is downloaded again")
    func indexWrite() async throws {
        let mount = try Mounted()
        try mount.tmpfs(size: "16m")
        defer { mount.unmount() }
        let output = mount.point.appendingPathComponent("m")
        try await FaultTests().afterFirstSync(into: output) { server, url, output, directory in
            // Nothing changed at the source: the run's first write is the index's commit of each
            // image's lastChecked, before the publish step. The disk fills once the index is open
            // and set up, while the revalidations are slowed down: when the server has answered
            // a request of the crawl past its start page (the start page and robots.txt are read
            // before the store opens; the rest of the crawl after). Its write-ahead log existing
            // is not enough: under load the store could still be opening, and fail there.
            server.update { $0.imageDelay = .milliseconds(300) }
            let served = try FaultTests.served(output)
            let before = server.exchangeLog.count
            async let run = FaultTests.sync(nil, output, in: directory)
            let started = ContinuousClock.now
            func crawling() -> Bool {
                server.exchangeLog.dropFirst(before).contains {
                    $0.target.contains("page=") || $0.target.hasPrefix("/gallery/feed") || $0.target.hasPrefix("/gallery/image")
                }
            }
            while !crawling(), started.duration(to: .now) < .seconds(30) {
                try await Task.sleep(for: .milliseconds(1))
            }
            let filler = try mount.fill(leaving: 0)
            let full = try await run
            #expect(full.status == 1, "\(full.stderr)")
            #expect(FaultTests.saysDiskFull(full.stderr), "\(full.stderr)")
            #expect(full.stderr.contains("cannot write") && full.stderr.contains("state.sqlite"), "\(full.stderr)")
            #expect(try FaultTests.served(output) == served)
            #expect(try await FaultTests.verify(output, in: directory) == 0)

            try FileManager.default.removeItem(at: filler)
            server.update { $0.imageDelay = .zero }
            let start = server.exchangeLog.count
            let again = try await FaultTests.sync(nil, output, in: directory)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(Self.imageExchanges(server, after: start, url: url).bodies.isEmpty)
            try await FaultTests.expectWhole(output, images: 12, in: directory)
        }
    }

    @Test("disk full opening the index: one line that says so, the mirror as it was; with room, syncs go on")
    func indexOpen() async throws {
        let mount = try Mounted()
        try mount.tmpfs(size: "16m")
        defer { mount.unmount() }
        let output = mount.point.appendingPathComponent("m")
        try await FaultTests().afterFirstSync(into: output) { server, url, output, directory in
            // SQLite says "disk I/O error" when it cannot make its log's index: the line names
            // the full disk all the same.
            let served = try FaultTests.served(output)
            let filler = try mount.fill(leaving: 0)
            let full = try await FaultTests.sync(nil, output, in: directory)
            #expect(full.status == 1, "\(full.stderr)")
            #expect(FaultTests.saysDiskFull(full.stderr), "\(full.stderr)")
            #expect(try FaultTests.served(output) == served)
            try FileManager.default.removeItem(at: filler)
            let start = server.exchangeLog.count
            let again = try await FaultTests.sync(nil, output, in: directory)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(Self.imageExchanges(server, after: start, url: url).bodies.isEmpty)
            try await FaultTests.expectWhole(output, images: 12, in: directory)
        }
    }

    @Test("disk full writing manifest.json: one line, the mirror as it was; with room, nothing is downloaded again")
    func manifestWrite() async throws {
        let mount = try Mounted()
        try mount.tmpfs(size: "16m")
        defer { mount.unmount() }
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = mount.point.appendingPathComponent("m")
        let server = TestServer()
        // Twelve photos, and 3,000 images on another host: each is listed in manifest.json's
        // `rejected` (out-of-scope), so the manifest is large while the pages, the index and a
        // re-sync's requests (304s) stay small.
        let page =
            (1...12).map { "<img src=\"/photos/\($0).png\" alt=\"Photo \($0)\">" }.joined()
            + (1...3_000).map { "<img src=\"http://elsewhere.example/p/\($0).png\">" }.joined()
        try await server.run(routes: { router, _ in
            router.get("/") { request, _ in Self.conditional(Array(page.utf8), type: "text/html", request: request) }
            router.get("/photos/:n") { request, context in
                let number = Int(context.parameters.get("n")?.prefix { $0.isNumber } ?? "") ?? 0
                return Self.conditional(SampleImage.bundled[number % 12].bytes, type: "image/png", request: request)
            }
        }) { origin in
            let first = try await FaultTests.sync(origin + "/", output, in: directory.url)
            try #require(first.status == 0, "\(first.stderr)")
            let manifestSize = try #require(FileSystem.size(atPath: output.appendingPathComponent("manifest.json").path))
            #expect(manifestSize > 150_000)
            let served = try FaultTests.served(output)

            // Room for the index's commit, not for the manifest.
            let filler = try mount.fill(leaving: 64 * 1024)
            let full = try await FaultTests.sync(nil, output, in: directory.url)
            #expect(full.status == 1, "\(full.stderr)")
            #expect(FaultTests.saysDiskFull(full.stderr), "\(full.stderr)")
            #expect(full.stderr.contains("manifest.json"), "\(full.stderr)")
            #expect(try FaultTests.served(output) == served)
            #expect(try await FaultTests.verify(output, in: directory.url) == 0)

            try FileManager.default.removeItem(at: filler)
            let asked = server.log.count
            let again = try await FaultTests.sync(nil, output, in: directory.url)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try FaultTests.lastReport(directory.url).downloaded == 0)
            #expect(server.log.dropFirst(asked).filter { $0.hasPrefix("/photos/") }.count == 12)
            try await FaultTests.expectWhole(output, images: 12, in: directory.url)
        }
    }

    /// A 200 with `body` and a strong ETag of it, or a 304 when the request's `If-None-Match`
    /// matches it.
    static func conditional(_ body: [UInt8], type: String, request: Request) -> Response {
        let etag = "\"" + sha256Hex(body).prefix(16) + "\""
        if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: [.eTag: etag]) }
        return bytes(body, type: type, headers: [.eTag: etag])
    }
}
