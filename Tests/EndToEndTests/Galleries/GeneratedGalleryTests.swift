import AsyncHTTPClient
import Foundation
import MirrorTestSupport
import NIOCore
import Testing

@testable import CatalogMirror
@testable import MirrorMarkup

/// Issue 10: galleries as popular static gallery generators write them (sigal with three themes,
/// llgal, lazygal, fgallery; igal2 and jigl over real photographs, issue 45) and hand-written ones
/// of other common markup kinds, served as static files, mirrored from the start page alone with
/// no flag (`PixelGalleryTests` adds `--variants largest`). Ground truth: `Galleries/Scripts/`.
@Suite("GeneratedGalleryTests", .tags(.generatedGalleries))
struct GeneratedGalleryTests {
    @Test("each fixture gallery is served and links every rendition its ground truth names", arguments: GalleryFixtures.all)
    func fixtureMatchesItsTruth(name: String) async throws {
        let (site, truth) = try await GalleryFixtures.gallery(name)
        #expect(truth.photos.count >= 5, "\(name) has only \(truth.photos.count) photos")
        let texts = try siteTexts(site)
        for photo in truth.photos {
            for path in photo.renditions + photo.optional {
                #expect(
                    FileManager.default.fileExists(atPath: site.appendingPathComponent(path).path), "\(name): \(path) missing")
                let file = (path as NSString).lastPathComponent
                // igal2 percent-encodes a file name's hyphens (`.thumb_fresh%2Dflower.jpg`).
                #expect(
                    texts.contains { $0.contains(file) || $0.removingPercentEncoding?.contains(file) == true },
                    "\(name): no page or listing names \(file)")
            }
            #expect(photo.renditions.last == photo.largest, "\(name): \(photo.id) lists its largest rendition last")
        }
        let server = StaticSiteServer(directory: site, mount: GalleryFixtures.mount(name))
        try await server.run { base in
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                try await checkServing(client: client, base: base, truth: truth)
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    private func checkServing(client: HTTPClient, base: String, truth: GalleryTruth) async throws {
        // Each body is read to its end: an unread body holds its connection.
        let start = try await client.execute(HTTPClientRequest(url: base + truth.start), timeout: .seconds(30))
        _ = try await start.body.collect(upTo: 16 << 20)
        #expect(start.status.code == 200)
        #expect(start.headers.first(name: "content-type")?.hasPrefix("text/html") == true)
        let first = try #require(truth.photos.first)
        let image = try await client.execute(HTTPClientRequest(url: base + first.largest), timeout: .seconds(30))
        _ = try await image.body.collect(upTo: 64 << 20)
        #expect(image.headers.first(name: "content-type") == "image/jpeg")
        let etag = try #require(image.headers.first(name: "etag"))
        var again = HTTPClientRequest(url: base + first.largest)
        again.headers.add(name: "If-None-Match", value: etag)
        let revalidated = try await client.execute(again, timeout: .seconds(30))
        _ = try await revalidated.body.collect(upTo: 1 << 20)
        #expect(revalidated.status.code == 304)
    }

    @Test("every photo is published once, with its largest rendition, album and title", arguments: GalleryFixtures.all)
    func mirrorsEveryPhoto(name: String) async throws {
        try await withGallery(name) { run in
            let (truth, base, mirror) = (run.truth, run.base, run.mirror)
            let result = try await run.sync()
            #expect(result.status == 0, "\(name): sync exited \(result.status): \(result.stderr.suffix(800))")
            let manifest = try #require(
                try? MirrorManifest(mirror: mirror), "\(name): no manifest.json; sync said: \(result.stderr.suffix(800))")
            let checks = GalleryChecks(truth: truth, base: base, manifest: manifest)
            let (found, problems) = checks.itemProblems()
            #expect(
                found == truth.photos.count,
                "\(name): \(found) of \(truth.photos.count) photos published with their largest rendition; \(manifest.items.count) items"
            )
            for problem in problems.prefix(40) { Issue.record("\(name): \(problem)") }
            if problems.count > 40 { Issue.record("\(name): and \(problems.count - 40) more problems") }
            for problem in checks.albumProblems() { Issue.record("\(name): \(problem)") }
            for problem in try checks.siteProblems(mirror: mirror).prefix(20) {
                Issue.record("\(name): generated site: \(problem)")
            }
        }
    }

    @Test("a second sync sends only conditional requests for what it has and changes nothing", arguments: GalleryFixtures.all)
    func resyncIsConditional(name: String) async throws {
        try await withGallery(name) { run in
            let (server, mirror) = (run.server, run.mirror)
            let first = try await run.sync()
            try #require(first.status == 0, "\(name): first sync exited \(first.status): \(first.stderr.suffix(600))")
            let before = try publishedFiles(mirror)
            let firstRun = server.log
            let fetched = Set(firstRun.filter { $0.method == "GET" && $0.status == 200 }.map(\.path))
            let second = try await run.sync()
            #expect(second.status == 0, "\(name): second sync exited \(second.status): \(second.stderr.suffix(600))")
            let secondRun = server.log.dropFirst(firstRun.count)
            let unconditional = secondRun.filter { fetched.contains($0.path) && !$0.isConditional }.map(\.path)
            #expect(
                unconditional.isEmpty,
                "\(name): \(unconditional.count) of \(secondRun.count) requests of the second sync re-fetch without If-None-Match/If-Modified-Since: \(unconditional.prefix(10).joined(separator: ", "))"
            )
            #expect(secondRun.filter { $0.status == 200 && $0.method == "GET" && fetched.contains($0.path) }.isEmpty)
            let after = try publishedFiles(mirror)
            let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
            #expect(changed.isEmpty, "\(name): the second sync changed \(changed.prefix(10).joined(separator: ", "))")
        }
    }

    @Test("a gallery with no image exits 3, writes nothing and says what it read")
    func sourceWithNoImage() async throws {
        try await withGallery("no-image") { run in
            let (server, mirror) = (run.server, run.mirror)
            let result = try await run.sync()
            #expect(result.status == 3, "sync exited \(result.status): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: mirror.path), "the mirror directory was created")
            let lines = result.stderr.split(separator: "\n").filter { !$0.hasPrefix("warning") }
            #expect(lines.count == 1, "expected one error line, got: \(result.stderr)")
            let line = lines.last.map(String.init) ?? ""
            #expect(line.contains("2 pages"), "the error line does not say that 2 pages were read: \(line)")
            #expect(server.log.contains { $0.path == "/about.html" }, "about.html was not read")
        }
    }

    /// One gallery served for one test: what it must give, where it is served, and where it is mirrored.
    private struct GalleryRun: Sendable {
        let truth: GalleryTruth
        let server: StaticSiteServer
        let base: String
        let directory: URL
        var mirror: URL { directory.appendingPathComponent("mirror") }

        /// `catalog-mirror sync` of the gallery's start page into `mirror`.
        func sync() async throws -> Binary.Result {
            try await Binary.run(["sync", base + truth.start, "--out", mirror.path], in: directory)
        }
    }

    /// Serves fixture gallery `name` for `body`, in a temporary directory removed afterwards.
    private func withGallery(_ name: String, _ body: @Sendable (GalleryRun) async throws -> Void) async throws {
        let (site, truth) = try await GalleryFixtures.gallery(name)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = StaticSiteServer(directory: site, mount: GalleryFixtures.mount(name))
        try await server.run { base in
            try await body(GalleryRun(truth: truth, server: server, base: base, directory: directory.url))
        }
    }

    /// The text of every page, script, listing and feed of a site (where renditions can be named).
    private func siteTexts(_ site: URL) throws -> [String] {
        var texts: [String] = []
        let enumerator = FileManager.default.enumerator(atPath: site.path)
        while let path = enumerator?.nextObject() as? String {
            guard [".html", ".json", ".js", ".xml"].contains(where: path.hasSuffix), !path.contains("static/") else { continue }
            texts.append((try? String(contentsOf: site.appendingPathComponent(path), encoding: .utf8)) ?? "")
        }
        return texts
    }
}

/// Issue 28: every page real generators write reads the same streamed (`PageStream`) as it did
/// read whole as one tree.
@Suite("Pages of real galleries, streamed and whole", .tags(.generatedGalleries))
struct StreamedPageTests {
    @Test("every HTML page of each fixture gallery gives the same scan streamed as read whole", arguments: GalleryFixtures.all)
    func streamedEqualsWhole(name: String) async throws {
        let (site, _) = try await GalleryFixtures.gallery(name)
        var pages = 0
        let files = FileManager.default.enumerator(at: site, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard ["html", "htm"].contains(file.pathExtension.lowercased()) else { continue }
            let bytes = try [UInt8](Data(contentsOf: file))
            let streamed = try PageStream.read(bytes, url: file.absoluteString, encoding: nil, keepingWholePage: false)
            let whole = try PageStream.read(bytes, url: file.absoluteString, encoding: nil, keepingWholePage: true)
            #expect(streamed.scan == whole.scan, "\(name): \(file.lastPathComponent)")
            #expect(streamed.peakElements <= whole.peakElements)
            pages += 1
        }
        #expect(pages > 0, "\(name) has no HTML page")
    }
}
