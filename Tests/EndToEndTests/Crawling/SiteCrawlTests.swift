import Foundation
import Hummingbird
import MirrorTestSupport
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorOperate

@Suite("Crawling a whole site")
struct SiteCrawlTests {
    @Test("a 50,000-page site stops at the default --max-pages with a warning, and nothing past it is requested")
    func pageLimit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = TestServer()
        let pageCount = 50_000
        try await server.run(routes: { router, _ in
            // Page n links to pages 5n+1 ... 5n+5: a tree of 50,000 pages, one photo each.
            router.get("/site/p/{name}") { _, context in
                let name = context.parameters.get("name") ?? ""
                guard name.hasSuffix(".html"), let number = Int(name.dropLast(5)), number < pageCount else {
                    return Response(status: .notFound)
                }
                let links = (1...5).map { 5 * number + $0 }.filter { $0 < pageCount }
                    .map { "<a href=\"\($0).html\">\($0)</a>" }.joined()
                return html("<title>Page \(number)</title><img src=\"../img/\(number).png\" alt=\"Photo \(number)\">\(links)")
            }
            router.get("/site/img/{name}") { _, _ in bytes(Fixture.png) }
        }) { origin in
            let output = directory.url.appendingPathComponent("m")
            let result = try await Binary.run(
                ["sync", origin + "/site/p/0.html", "--out", output.path, "--report", "report.json"], in: directory.url)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("--max-pages 2000 reached"), "\(result.stderr)")
            let report = try JSONCoding.decode(
                RunReport.self, from: Data(contentsOf: directory.url.appendingPathComponent("report.json")))
            #expect(report.pages == 2000)
            #expect(report.published == 2000)
            #expect(report.warnings.contains { $0.hasPrefix("--max-pages 2000 reached") })
            // Memory stays bounded: the run's own peak, as its report gives it. (Not `getrusage`
            // of the test's children: a spawned child inherits this test process's high-water
            // mark at `exec`, and the tests beside this one count in it.)
            let peak = try #require(report.peakMemoryBytes)
            #expect(peak < 300 << 20, "peak resident memory \(peak >> 20) MB")
        }
        // Breadth-first: exactly pages 0 ... 1999 were requested, each once.
        let pages = server.log.filter { $0.hasPrefix("/site/p/") }
        #expect(pages.count == 2000)
        #expect(Set(pages) == Set((0..<2000).map { "/site/p/\($0).html" }))
    }

    @Test("pages are fetched several at a time but read in crawl order: albums do not depend on timing")
    func concurrentPagesDeterministicAlbums() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let albumBAsked = Mutex(false)
        try await TestServer().run(routes: { router, _ in
            router.get("/g/") { _, _ in
                html("<title>Gallery</title><a href=\"a/\">A</a><a href=\"b/\">B</a><img src=\"shared.png\" alt=\"Shared\">")
            }
            // Album A answers only once album B has been asked for (B answers at once), so A,
            // first in crawl order, is the last to arrive. The 20 s limit only ends the wait of
            // a crawler that asks for one page at a time.
            router.get("/g/a/") { _, _ in
                for _ in 0..<1_000 where !albumBAsked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
                return html("<title>Album A</title><img src=\"one.png\" alt=\"One\"><img src=\"../both.png\" alt=\"Both\">")
            }
            router.get("/g/b/") { _, _ in
                albumBAsked.withLock { $0 = true }
                return html("<title>Album B</title><img src=\"two.png\"><img src=\"../both.png\">")
            }
            router.get("/g/{name}") { _, _ in bytes(Fixture.png) }
            router.get("/g/a/{name}") { _, _ in bytes(Fixture.png) }
            router.get("/g/b/{name}") { _, _ in bytes(Fixture.png) }
        }) { origin in
            let output = directory.url.appendingPathComponent("m")
            let report = try await MirrorEngine(configuration: testConfiguration(source: origin + "/g/", output: output)).run()
            #expect(report.pages == 3)
            let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            let albums = Dictionary(
                uniqueKeysWithValues: manifest.items.map {
                    ($0.key.replacingOccurrences(of: origin, with: ""), $0.album?.replacingOccurrences(of: origin, with: ""))
                })
            // both.png is on A and B; A comes first in crawl order although it answered last.
            #expect(albums["/g/both.png"] == "/g/a/")
            #expect(albums["/g/a/one.png"] == "/g/a/")
            #expect(albums["/g/shared.png"] == "/g/")
            #expect(manifest.albums?.map(\.title) == ["Gallery", "Album A", "Album B"])
            #expect(manifest.title == "Gallery")
            #expect(try unresolvedReferences(in: output) == [])
        }
    }

    @Test("the next pages are read while the engine is still taking a long page's photos")
    func pagesReadAheadOfTheEngine() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let moreAsked = Mutex(false)
        let waitedInVain = Mutex(0)
        try await TestServer().run(routes: { router, _ in
            // The start page shows 300 photos, far more than the engine takes in before it
            // waits for their downloads, and links one more page.
            router.get("/g/") { _, _ in
                html(
                    "<title>Gallery</title><a href=\"more.html\">More</a>"
                        + (0..<300).map { "<img src=\"p/\($0).png\" alt=\"Photo \($0)\">" }.joined())
            }
            router.get("/g/more.html") { _, _ in
                moreAsked.withLock { $0 = true }
                return html("<title>More</title><img src=\"p/last.png\" alt=\"Last\">")
            }
            // No photo answers before the second page has been asked for. A crawler that reads
            // that page only once the engine has taken every photo of the first makes the
            // first photos wait here until the 10 s limit; the rest then answer at once.
            router.get("/g/p/{name}") { _, _ in
                func waiting() -> Bool { !moreAsked.withLock { $0 } && waitedInVain.withLock { $0 } == 0 }
                for _ in 0..<500 where waiting() { try await Task.sleep(for: .milliseconds(20)) }
                if !moreAsked.withLock({ $0 }) { waitedInVain.withLock { $0 += 1 } }
                return bytes(Fixture.png)
            }
        }) { origin in
            let output = directory.url.appendingPathComponent("m")
            let report = try await MirrorEngine(configuration: testConfiguration(source: origin + "/g/", output: output)).run()
            #expect(report.pages == 2)
            #expect(report.published == 301)
            #expect(waitedInVain.withLock { $0 } == 0, "photos waited for a page the crawler had not asked for")
            // Crawl order still decides the albums: every photo of the first page is in its album.
            let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            for item in manifest.items {
                let album = item.album?.replacingOccurrences(of: origin, with: "")
                #expect(album == (item.key.hasSuffix("/last.png") ? "/g/more.html" : "/g/"), "\(item.key)")
            }
        }
    }

    @Test("a source that shows no image exits 3, writes nothing, and says what it read")
    func nothingFound() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try await TestServer().run(routes: { router, _ in
            router.get("/g/") { _, _ in
                html("<a href=\"about.html\">About</a><a href=\"/elsewhere/\">Out</a><img src=\"http://other.example/x.png\">")
            }
            router.get("/g/about.html") { _, _ in html("<p>Nothing here</p>") }
        }) { origin in
            let output = directory.url.appendingPathComponent("m")
            let result = try await Binary.run(["sync", origin + "/g/", "--out", output.path], in: directory.url)
            #expect(result.status == 3)
            #expect(!FileManager.default.fileExists(atPath: output.path))
            let line = result.stderr
            #expect(line.contains("read 2 pages"), "\(line)")
            #expect(line.contains("1 image URL out-of-scope"), "\(line)")
            #expect(line.contains("1 link out of the crawl scope"), "\(line)")
            #expect(line.contains("--allow-host") && line.contains("--crawl-scope host") && line.contains("--feed"), "\(line)")
        }
    }
}
