import Foundation
import Hummingbird
import MirrorTestSupport
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import SampleGallery

/// How the shapes CMS sites take are read: one listing under several URLs, furniture on every
/// page, the same photos in pages, a feed and a listing (issue 36).
@Suite("Site shapes of CMS galleries")
struct SiteShapeTests {
    static let image = SampleImage.bundled.map(\.bytes)

    @Test("one listing reached by several URLs is one page: in --max-pages and in which images most pages show")
    func listingVariants() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = TestServer()
        try await server.run(routes: { router, _ in
            router.get("/g/") { _, _ in
                html(
                    """
                    <title>Gallery</title>
                    <a href="list?sort=name">by name</a> <a href="list?sort=date">by date</a>
                    <a href="list?sort=date&utm_source=x">shared</a> <a href="list?view=grid">grid</a>
                    <a href="album/">Album</a>
                    """)
            }
            router.get("/g/list") { request, _ in
                // The same three photos in another order for each sort; a badge on every page.
                let order = request.uri.query?.contains("date") == true ? [2, 0, 1] : [0, 1, 2]
                let photos = order.map { "<img src=\"p\($0).png\" alt=\"Photo \($0)\">" }.joined()
                return html("<title>List</title>\(photos)<footer><img src=\"badge.png\"></footer>")
            }
            router.get("/g/album/") { _, _ in
                html("<title>Album</title><img src=\"../p3.png\" alt=\"Photo 3\"><footer><img src=\"../badge.png\"></footer>")
            }
            router.get("/g/{name}") { _, context in
                let name = context.parameters.get("name") ?? ""
                if name == "badge.png" { return bytes(Self.image[9]) }
                guard let number = Int(name.dropFirst().prefix { $0.isNumber }) else { return Response(status: .notFound) }
                return bytes(Self.image[number])
            }
        }) { origin in
            let output = directory.url.appendingPathComponent("m")
            var configuration = testConfiguration(source: origin + "/g/", output: output)
            // The start page, one listing and the album: the listing's other URLs give their places back.
            configuration.crawl.maxPages = 3
            let report = try await MirrorEngine(configuration: configuration).run()
            #expect(report.exitStatus == 0, "\(report.failed)")
            // Six pages read: the listing's three other URLs were read to know they are it.
            #expect(report.pages == 6, "\(report.pages) pages")
            #expect(!report.warnings.contains { $0.contains("--max-pages") }, "\(report.warnings)")
            let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            #expect(Set(manifest.items.map(\.key)) == Set((0...3).map { origin + "/g/p\($0).png" }))
            #expect(manifest.rejected.map(\.reason) == ["decoration"], "\(manifest.rejected)")
            #expect(manifest.albums?.count == 2)
        }
    }

    @Test("a no-op sync of photos a page, a feed and a listing all name rejects nothing; --include brings furniture back")
    func wordsAndInclude() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try await TestServer().run(routes: { router, _ in
            router.get("/g/") { _, _ in
                html(
                    """
                    <title>Gallery</title><link rel="alternate" type="application/rss+xml" href="feed.rss">
                    <link rel="alternate" type="application/json" href="photos.json">
                    <header><img src="logo.png" alt="Logo"></header>
                    \((0..<4).map { "<img src=\"p\($0).png\" alt=\"Photo \($0)\">" }.joined())
                    """)
            }
            router.get("/g/feed.rss") { _, _ in
                let items = (0..<4).map {
                    "<item><title>Photo \($0)</title><enclosure url=\"p\($0).png\" type=\"image/png\"/></item>"
                }
                return Response(
                    status: .ok, headers: [.contentType: "application/rss+xml"],
                    body: .init(byteBuffer: ByteBuffer(string: "<rss version=\"2.0\"><channel>\(items.joined())</channel></rss>"))
                )
            }
            router.get("/g/photos.json") { _, _ in
                let records = (0..<4).map { "{\"name\": \"Photo \($0)\", \"url\": \"p\($0).png\"}" }
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: "[\(records.joined(separator: ","))]")))
            }
            router.get("/g/{name}") { _, context in
                let name = context.parameters.get("name") ?? ""
                if name == "logo.png" { return bytes(Self.image[9]) }
                guard let number = Int(name.dropFirst().prefix { $0.isNumber }) else { return Response(status: .notFound) }
                return bytes(Self.image[number])
            }
        }) { origin in
            let output = directory.url.appendingPathComponent("m")
            let first = try await Binary.run(["sync", origin + "/g/", "--out", output.path], in: directory.url)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr.contains("1 rejected (decoration 1)"), "\(first.stderr)")
            let again = try await Binary.run(["sync", "--out", output.path], in: directory.url)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("4 unchanged"), "\(again.stderr)")
            #expect(again.stderr.contains("1 rejected (decoration 1)"), "\(again.stderr)")
            // Images asked for by name are never furniture.
            let included = directory.url.appendingPathComponent("all")
            let all = try await Binary.run(
                ["sync", origin + "/g/", "--out", included.path, "--include", "**"], in: directory.url)
            #expect(all.status == 0, "\(all.stderr)")
            let manifest = try Manifest.read(from: included.appendingPathComponent("manifest.json"))
            #expect(manifest.items.contains { $0.key == origin + "/g/logo.png" })
        }
    }
}

/// A feed or sitemap is parsed as a stream from a file: its size costs disk, not memory, and
/// no limit applies; a page or a JSON listing read whole has one (`--max-document-size`).
@Suite("Documents larger than what is read whole")
struct LargeDocumentTests {
    @Test("a feed larger than --max-document-size is read; a JSON listing that large is refused until the limit is raised")
    func streamedAndWhole() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        // 300 KB of text around two photos, against a limit of 100 KB.
        let padding = String(repeating: "Lorem ipsum dolor sit amet. ", count: 11_000)
        try await TestServer().run(routes: { router, _ in
            router.get("/g/feed.rss") { _, _ in
                let feed = """
                    <rss version="2.0"><channel><title>Big</title>
                    <item><title>One</title><description>\(padding)</description><enclosure url="one.png" type="image/png"/></item>
                    <item><title>Two</title><enclosure url="two.png" type="image/png"/></item></channel></rss>
                    """
                return Response(
                    status: .ok, headers: [.contentType: "application/rss+xml"], body: .init(byteBuffer: ByteBuffer(string: feed))
                )
            }
            router.get("/g/photos.json") { _, _ in
                let json = "[{\"name\": \"Three\", \"url\": \"three.png\", \"note\": \"\(padding)\"}]"
                return Response(
                    status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
            }
            router.get("/g/{name}") { _, context in
                switch context.parameters.get("name") {
                case "one.png": bytes(SiteShapeTests.image[0])
                case "two.png": bytes(SiteShapeTests.image[1])
                case "three.png": bytes(SiteShapeTests.image[2])
                default: Response(status: .notFound)
                }
            }
        }) { origin in
            var configuration = testConfiguration(
                source: origin + "/g/feed.rss", output: directory.url.appendingPathComponent("feed"))
            configuration.fetch.maxDocumentBytes = 100_000
            let feed = try await MirrorEngine(configuration: configuration).run()
            #expect(feed.exitStatus == 0, "\(feed.warnings)")
            #expect(feed.published == 2)

            // The listing is the source's only document here: refused whole, nothing to publish.
            let output = directory.url.appendingPathComponent("listing")
            var source = testConfiguration(source: origin + "/g/photos.json", output: output)
            source.fetch.maxDocumentBytes = 100_000
            await #expect(throws: MirrorError.self) { try await MirrorEngine(configuration: source).run() }
            source.fetch.maxDocumentBytes = 1 << 20
            let raised = try await MirrorEngine(configuration: source).run()
            #expect(raised.exitStatus == 0, "\(raised.warnings)")
            #expect(raised.published == 1)
        }
    }
}
