import Foundation
import Hummingbird
import MirrorTestSupport
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import SampleGallery

/// A URL a page only suggests is an image (a link's target, a `data-*` value, a script's string)
/// is what its server answers: an image is a key, a page is read as a page (a photo's own page),
/// anything else is rejected `unconfirmed` and fails nothing (SPEC "Shown and guessed").
@Suite("Guessed image URLs are what their server answers")
struct GuessedLinkTests {
    /// Distinct images: renditions of one photo must differ in bytes.
    static let image = SampleImage.bundled.map(\.bytes)

    /// A wiki's gallery: each thumbnail (three sizes in `srcset`) links to the photo's own page,
    /// whose name ends in `.jpg` like MediaWiki's `File:` pages; that page shows a display size
    /// linking to the original. Nothing on the gallery page names the original.
    static func wikiRoutes(_ router: Router<BasicRequestContext>) {
        router.get("/w/Gallery") { _, _ in
            html(
                """
                <title>Gallery - Test Wiki</title><h1>Gallery</h1>
                <ul class="gallery">
                <li><a href="/w/File:Aqua.jpg" class="image"><img alt="Aqua" src="/images/thumb/a/ab/Aqua.jpg/120px-Aqua.jpg"
                  srcset="/images/thumb/a/ab/Aqua.jpg/180px-Aqua.jpg 1.5x, /images/thumb/a/ab/Aqua.jpg/240px-Aqua.jpg 2x"></a>
                  <div class="gallerytext">Water in the morning</div></li>
                <li><a href="/w/File:Stone.jpg" class="image"><img alt="Stone" src="/images/thumb/c/cd/Stone.jpg/120px-Stone.jpg"></a>
                  <div class="gallerytext">A grey stone</div></li>
                </ul>
                """)
        }
        router.get("/w/{name}") { _, context in
            let name = context.parameters.get("name") ?? ""
            let file = name.hasPrefix("File:") ? String(name.dropFirst(5)) : ""
            guard file == "Aqua.jpg" || file == "Stone.jpg" else { return Response(status: .notFound) }
            let folder = file == "Aqua.jpg" ? "a/ab" : "c/cd"
            return html(
                """
                <title>File:\(file) - Test Wiki</title><h1>File:\(file)</h1>
                <div class="fullImageLink"><a href="/images/\(folder)/\(file)"><img alt="File:\(file)"
                  src="/images/thumb/\(folder)/\(file)/800px-\(file)" width="800" height="600"></a></div>
                <p><a href="/w/Gallery">Gallery</a></p>
                """)
        }
        router.get("/images/thumb/{a}/{ab}/{file}/{size}") { _, context in
            let size = context.parameters.get("size") ?? ""
            let file = context.parameters.get("file") ?? ""
            // Each file's sizes are renditions of one photo (its pixels, in other bytes).
            let photo = Rendition.photos[file == "Aqua.jpg" ? 0 : 1]
            switch size.prefix(while: \.isNumber) {
            case "120": return bytes(Rendition.of(photo, 1))
            case "180": return bytes(Rendition.of(photo, 2))
            case "240": return bytes(Rendition.of(photo, 3))
            case "800": return bytes(Rendition.of(photo, 4))
            default: return Response(status: .notFound)
            }
        }
        router.get("/images/{a}/{ab}/{file}") { _, context in
            bytes(Rendition.photos[context.parameters.get("file") == "Aqua.jpg" ? 0 : 1])
        }
    }

    @Test("a photo's own page behind a .jpg link is read as a page: its original is mirrored, exit 0")
    func photoPageBehindImageLink() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = TestServer()
        for depth in [20, 1] {
            try await server.run(routes: { router, _ in Self.wikiRoutes(router) }) { origin in
                let output = directory.url.appendingPathComponent("m\(depth)")
                var configuration = testConfiguration(source: origin + "/w/Gallery", output: output)
                configuration.crawl.maxDepth = depth
                let report = try await MirrorEngine(configuration: configuration).run()
                #expect(report.exitStatus == 0, "--max-depth \(depth): \(report.failed) \(report.warnings)")
                let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
                let keys = Set(manifest.items.map(\.key))
                for original in ["/images/a/ab/Aqua.jpg", "/images/c/cd/Stone.jpg"] {
                    #expect(keys.contains(origin + original), "--max-depth \(depth): \(keys.sorted())")
                }
                // The File: pages are pages, neither images nor rejected keys.
                #expect(!manifest.rejected.contains { $0.key.contains("File:") }, "\(manifest.rejected)")
                #expect(!keys.contains { $0.contains("File:") })
                // Every rendition is one photo with its original, found on the gallery page.
                let aqua = manifest.items.filter { $0.key.contains("Aqua") }
                #expect(aqua.count == 5, "\(aqua.map(\.key))")
                let original = origin + "/images/a/ab/Aqua.jpg"
                for item in aqua where item.key != original {
                    #expect(item.variantOf == original, "\(item.key) is a variant of \(item.variantOf ?? "nothing")")
                }
                #expect(aqua.allSatisfy { $0.album == origin + "/w/Gallery" }, "\(aqua.map { $0.album ?? "" })")
                #expect(manifest.albums?.map(\.url) == [origin + "/w/Gallery"])
            }
        }
    }

    @Test("--variants largest keeps the original that only the photo's own page names")
    func largestThroughPhotoPage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try await TestServer().run(routes: { router, _ in Self.wikiRoutes(router) }) { origin in
            let output = directory.url.appendingPathComponent("m")
            var configuration = testConfiguration(source: origin + "/w/Gallery", output: output)
            configuration.crawl.variants = .largest
            let report = try await MirrorEngine(configuration: configuration).run()
            #expect(report.exitStatus == 0, "\(report.failed) \(report.warnings)")
            let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            #expect(
                Set(manifest.items.map(\.key)) == [origin + "/images/a/ab/Aqua.jpg", origin + "/images/c/cd/Stone.jpg"],
                "\(manifest.items.map(\.key))")
        }
    }

    @Test("a guessed link that answers JSON or 404 is rejected unconfirmed; an <img> that does fails the run")
    func unconfirmedGuesses() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try await TestServer().run(routes: { router, _ in
            router.get("/g/") { _, _ in
                html(
                    """
                    <title>Gallery</title>
                    <img src="a.png" alt="A">
                    <a href="api/doc.jpg">an API document named like an image</a>
                    <a href="gone.jpg"><img src="b.png" alt="B"></a>
                    <img src="c.png" alt="C" data-full="missing-full.png">
                    """)
            }
            router.get("/g/api/doc.jpg") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: "{\"id\": 1}")))
            }
            router.get("/g/a.png") { _, _ in bytes(Self.image[0]) }
            router.get("/g/b.png") { _, _ in bytes(Self.image[1]) }
            router.get("/g/c.png") { _, _ in bytes(Self.image[2]) }
        }) { origin in
            let output = directory.url.appendingPathComponent("m")
            let report = try await MirrorEngine(configuration: testConfiguration(source: origin + "/g/", output: output)).run()
            #expect(report.exitStatus == 0, "\(report.failed)")
            #expect(report.failed.isEmpty)
            #expect(report.rejected["unconfirmed"] == 3, "\(report.rejected)")
            let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            #expect(Set(manifest.items.map(\.key)) == Set(["a.png", "b.png", "c.png"].map { origin + "/g/" + $0 }))
            let reasons = Dictionary(uniqueKeysWithValues: manifest.rejected.map { ($0.key, $0.reason) })
            #expect(reasons[origin + "/g/api/doc.jpg"] == "unconfirmed")
            #expect(reasons[origin + "/g/gone.jpg"] == "unconfirmed")
            #expect(reasons[origin + "/g/missing-full.png"] == "unconfirmed")
        }
        // The same failures on images the page shows are failures.
        try await TestServer().run(routes: { router, _ in
            router.get("/g/") { _, _ in html("<title>Gallery</title><img src=\"a.png\" alt=\"A\"><img src=\"gone.png\">") }
            router.get("/g/a.png") { _, _ in bytes(Self.image[0]) }
        }) { origin in
            let output = directory.url.appendingPathComponent("shown")
            let report = try await MirrorEngine(configuration: testConfiguration(source: origin + "/g/", output: output)).run()
            #expect(report.exitStatus == 1)
            #expect(report.failed["http-404"] == 1, "\(report.failed)")
        }
    }
}

/// Under `--variants largest` a smaller rendition is discarded only once its pixels matched a
/// larger one: it is downloaded to be compared (thumbnails are cheap), and a proposed rendition
/// whose pixels differ is a photo of its own (SPEC "manifest.json").
@Suite("Guesses under --variants largest")
struct GuessedLargestTests {
    /// Records each request's method and path.
    struct MethodRecorder<Context: RequestContext>: RouterMiddleware {
        let record: @Sendable (String) -> Void
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
            -> Response
        {
            record("\(request.method) \(request.uri.path)")
            return try await next(request, context)
        }
    }

    @Test("a smaller rendition is compared, then rejected smaller-rendition; one whose pixels differ is kept")
    func comparedFirst() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let requests = Mutex<[String]>([])
        try await TestServer().run(routes: { router, _ in
            router.middlewares.add(MethodRecorder(record: { line in requests.withLock { $0.append(line) } }))
            router.get("/g/") { _, _ in
                html(
                    """
                    <title>Gallery</title>
                    <a href="display.jpg"><img src="thumb.jpg" alt="Lake" data-big="original.jpg"></a>
                    <a href="next.jpg"><img src="cover.jpg" alt="Not the same photo"></a>
                    """)
            }
            let lake = Rendition.photos[0]
            let files: [(String, [UInt8])] = [
                ("thumb.jpg", Rendition.of(lake, 1)), ("display.jpg", Rendition.of(lake, 2)), ("original.jpg", lake),
                ("cover.jpg", Rendition.photos[1]), ("next.jpg", Rendition.photos[2]),
            ]
            for (name, body) in files { router.get("/g/\(name)") { _, _ in bytes(body, type: "image/jpeg") } }
        }) { origin in
            let output = directory.url.appendingPathComponent("m")
            var configuration = testConfiguration(source: origin + "/g/", output: output)
            configuration.crawl.variants = .largest
            let report = try await MirrorEngine(configuration: configuration).run()
            #expect(report.exitStatus == 0, "\(report.failed)")
            let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            #expect(
                Set(manifest.items.map(\.key)) == Set(["original.jpg", "next.jpg", "cover.jpg"].map { origin + "/g/" + $0 }),
                "\(manifest.items.map(\.key))")
            #expect(
                Set(manifest.rejected.filter { $0.reason == "smaller-rendition" }.map(\.key))
                    == Set(["thumb.jpg", "display.jpg"].map { origin + "/g/" + $0 }), "\(manifest.rejected)")
        }
        // Each image was fetched once, the smaller ones to be compared.
        let log = requests.withLock { $0 }
        for name in ["thumb.jpg", "display.jpg", "original.jpg"] {
            #expect(log.filter { $0 == "GET /g/\(name)" }.count == 1, "\(log)")
        }
        #expect(!log.contains { $0.hasPrefix("HEAD") }, "\(log)")
    }
}
