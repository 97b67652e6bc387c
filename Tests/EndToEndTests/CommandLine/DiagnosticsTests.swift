import Foundation
import Hummingbird
import MirrorTestSupport
import Testing

@testable import CatalogMirror

/// `--verbose` and `--debug` through the binary: diagnostics on standard error, one line per
/// event, and none by default (cron mails only warnings and the summary).
@Suite("Diagnostics on standard error")
struct DiagnosticsTests {
    /// A start page with a second page, a good image, a missing one and a redirect.
    static func routes(_ router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in
            html("<a href=\"/two.html\">next</a><img src=\"/a.png\"><img src=\"/missing.png\"><img src=\"/moved.png\">")
        }
        router.get("/two.html") { _, _ in html("<img src=\"/a.png\"><img src=\"/b.png\">") }
        router.get("/a.png") { _, _ in bytes(Fixture.png) }
        router.get("/b.png") { _, _ in bytes(Fixture.jpeg, type: "image/jpeg") }
        router.get("/moved.png") { _, _ in Response(status: .movedPermanently, headers: [.location: "/b.png"]) }
    }

    @Test("--debug logs one line per request with its method, URL and status; a default run logs none")
    func debugRequests() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = TestServer()
        try await server.run(routes: { router, _ in Self.routes(router) }) { origin in
            let debug = try await Binary.run(["sync", origin + "/", "--out", "debug", "--debug"], in: directory.url)
            #expect(debug.status == 1, "\(debug.stderr)")  // /missing.png is a 404
            let requests = server.log
            let lines = debug.stderr.split(separator: "\n").map(String.init)
            let requestLines = lines.filter { $0.hasPrefix("catalog-mirror: debug: GET ") }
            // Every request the server saw, and only those, has its line with the status it got.
            #expect(requestLines.count == requests.count, "\(requests)\n\(debug.stderr)")
            for (path, status) in [("/", 200), ("/robots.txt", 404), ("/two.html", 200), ("/a.png", 200), ("/missing.png", 404)] {
                #expect(
                    requestLines.contains { $0.hasPrefix("catalog-mirror: debug: GET \(origin)\(path) \(status) ") },
                    "no request line for \(path) \(status):\n\(debug.stderr)")
            }
            #expect(requestLines.contains { $0.hasPrefix("catalog-mirror: debug: GET \(origin)/moved.png 301 ") })
            #expect(requestLines.allSatisfy { $0.wholeMatch(of: /catalog-mirror: debug: GET \S+ \d{3} \d+\.\d{3} s/) != nil })
            // --debug includes what --verbose says.
            #expect(lines.contains { $0.hasPrefix("catalog-mirror: info: page \(origin)/ read") })
            #expect(lines.contains("catalog-mirror: info: key \(origin)/missing.png: accepted"))
            #expect(lines.contains { $0.hasPrefix("catalog-mirror: info: image \(origin)/missing.png: failed http-404") })
            #expect(lines.contains { $0.hasPrefix("catalog-mirror: info: image \(origin)/a.png: downloaded ") })

            let quiet = try await Binary.run(["sync", origin + "/", "--out", "default"], in: directory.url)
            #expect(quiet.status == 1, "\(quiet.stderr)")
            #expect(!quiet.stderr.contains("debug:") && !quiet.stderr.contains("info:"), "\(quiet.stderr)")
            #expect(!quiet.stderr.contains(origin + "/a.png"), "\(quiet.stderr)")
            #expect(quiet.stderr.split(separator: "\n").count == 2, "a warning for the 404 and the summary: \(quiet.stderr)")
        }
    }

    @Test("--verbose says what each stage decided, without the requests")
    func verbose() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try await TestServer().run(routes: { router, _ in Self.routes(router) }) { origin in
            let result = try await Binary.run(
                ["sync", origin + "/", "-v", "--exclude", "/b.png", "--report", "r.json"], in: directory.url)
            #expect(result.status == 1, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").map(String.init)
            #expect(!lines.contains { $0.contains("debug:") })
            #expect(
                lines.contains {
                    $0.hasPrefix("catalog-mirror: info: page \(origin)/two.html read (depth 1): 2 image references")
                })
            #expect(lines.contains("catalog-mirror: info: key \(origin)/b.png: rejected excluded"))
            #expect(lines.contains("catalog-mirror: info: key \(origin)/a.png: accepted"))
            #expect(
                lines.contains {
                    $0.hasPrefix("catalog-mirror: info: image \(origin)/a.png: downloaded \(Fixture.png.count) bytes")
                })
            // The summary and warnings are unchanged, after the diagnostics.
            #expect(lines.last?.contains("2 photos in 2 files") == true, "\(result.stderr)")
            // Nothing of the log goes into the report (it may be served with the mirror).
            let report = try String(contentsOf: directory.url.appendingPathComponent("r.json"), encoding: .utf8)
            #expect(!report.contains("info:"))
        }
    }

    @Test("--verbose says which keys were rejected once the crawl was over")
    func rejectedAfterTheCrawl() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try await TestServer().run(routes: { router, _ in
            // A thumbnail linking to its original: two renditions of one photo.
            router.get("/") { _, _ in html("<a href=\"/big.png\"><img src=\"/small.png\"></a>") }
            router.get("/big.png") { _, _ in bytes(Fixture.png) }
            router.get("/small.png") { _, _ in bytes(Fixture.png) }
        }) { origin in
            let result = try await Binary.run(
                ["sync", origin + "/", "-v", "--variants", "largest"], in: directory.url)
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n").map(String.init)
            #expect(lines.contains("catalog-mirror: info: key \(origin)/small.png: accepted"), "\(result.stderr)")
            #expect(
                lines.contains("catalog-mirror: info: key \(origin)/small.png: rejected smaller-rendition after the crawl"),
                "\(result.stderr)")
            #expect(!lines.contains { $0.contains("big.png: rejected") }, "\(result.stderr)")
        }
    }

    @Test("a feed a page advertises that answers with a page is skipped quietly: a note for --verbose, no warning")
    func feedThatIsAPage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let feed = "/index.php?title=Special:RecentChanges&feed=atom"
        try await TestServer().run(routes: { router, _ in
            router.get("/") { _, _ in
                html(
                    "<html><head><link rel=\"alternate\" type=\"application/atom+xml\" href=\"/index.php?title=Special:RecentChanges&amp;feed=atom\">"
                        + "</head><body><img src=\"/a.png\"></body></html>")
            }
            // The wiki's feeds are off: its special page answers, as a page.
            router.get("/index.php") { _, _ in html("<html><body><h1>Recent changes</h1></body></html>") }
            router.get("/a.png") { _, _ in bytes(Fixture.png) }
        }) { origin in
            let quiet = try await Binary.run(["sync", origin + "/", "--out", "quiet"], in: directory.url)
            #expect(quiet.status == 0, "\(quiet.stderr)")
            #expect(!quiet.stderr.contains("warning"), "\(quiet.stderr)")
            #expect(quiet.stderr.split(separator: "\n").count == 1, "\(quiet.stderr)")
            let verbose = try await Binary.run(["sync", origin + "/", "--out", "verbose", "-v"], in: directory.url)
            #expect(verbose.status == 0, "\(verbose.stderr)")
            #expect(!verbose.stderr.contains("warning"), "\(verbose.stderr)")
            #expect(
                verbose.stderr.split(separator: "\n").contains {
                    $0.hasPrefix("catalog-mirror: info: feed \(origin)\(feed) skipped: ")
                }, "\(verbose.stderr)")
        }
    }
}
