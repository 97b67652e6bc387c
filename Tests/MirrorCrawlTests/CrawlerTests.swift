import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorFetch
@testable import MirrorValidate

/// The crawler against a real server on 127.0.0.1: what it requests, and the discoveries it
/// sends, in crawl order, through `DiscoveryBatches`.
@Suite("The crawler")
struct CrawlerTests {
    /// What a crawl sent and said.
    struct Crawl: Sendable {
        var discoveries: [Discovery]
        var summary: CrawlSummary
        /// Targets the site was asked for, in arrival order.
        var requests: [String]

        /// The discoveries' keys as paths, in the order sent.
        var paths: [String] { discoveries.map(\.key.path) }
    }

    /// Crawls `site` from `/gallery/` as the engine does (the scope, then with `robots` the
    /// robots.txt gate, before every request), collecting every batch it sends.
    static func crawl(
        _ site: TestSite, configuration: CrawlConfiguration = CrawlConfiguration(), robots: Bool = false
    ) async throws -> Crawl {
        let (discoveries, summary) = try await site.run { origin in
            var fetch = FetchConfiguration()
            fetch.retry = RetryPolicy(
                maxAttempts: 2, baseDelay: .milliseconds(5), maxDelay: .milliseconds(10), maxRetryAfter: .seconds(1))
            fetch.documentDeadline = .seconds(10)
            return try await HTTPClients.with(fetch) { clients in
                let session = HTTPSession(clients: clients, configuration: fetch)
                let source = try #require(CanonicalURL(origin + "/gallery/"))
                let scope = ScopeRule(hosts: [source.host], next: nil)
                let scopeGate: RequestGate = { url in url.isWeb && scope.contains(url) ? nil : .outOfScope }
                var gate = scopeGate
                if robots {
                    let cache = RobotsCache { url in await RobotsTxt.fetch(url, session: session, gate: scopeGate) }
                    gate = { url in
                        if let refusal = await scopeGate(url) { return refusal }
                        return await cache.allows(url) ? nil : .robots
                    }
                }
                let crawler = Crawler(
                    source: source, configuration: configuration, session: session, startGate: scopeGate, gate: gate,
                    progress: ProgressBoard())
                let start = try await crawler.fetchStart()
                let batches = DiscoveryBatches(size: 2)
                let collecting = Task {
                    var all: [Discovery] = []
                    for await batch in batches { all += batch }
                    return all
                }
                let summary: CrawlSummary
                do {
                    summary = try await crawler.crawl(start: start, into: batches)
                } catch {
                    batches.finish()
                    throw error
                }
                batches.finish()
                return (await collecting.value, summary)
            }
        }
        return Crawl(discoveries: discoveries, summary: summary, requests: site.log)
    }

    @Test("a page robots.txt disallows is not requested, and counted as refused")
    func robotsDisallowed() async throws {
        let site = TestSite([
            "/robots.txt": .init(type: "text/plain", body: "User-agent: *\nDisallow: /gallery/private/\n"),
            "/gallery/": .init(
                body: "<html><body><a href=\"private/secret.html\">x</a> <a href=\"open.html\">y</a></body></html>"),
            "/gallery/private/secret.html": .init(body: "<html><body><img src=\"secret.jpg\"></body></html>"),
            "/gallery/open.html": .init(body: "<html><body><img src=\"open.jpg\"></body></html>"),
        ])
        let crawl = try await Self.crawl(site, robots: true)
        #expect(!crawl.requests.contains("/gallery/private/secret.html"))
        #expect(crawl.requests.contains("/robots.txt") && crawl.requests.contains("/gallery/open.html"))
        #expect(crawl.summary.robotsRefused == 1)
        #expect(crawl.paths == ["/gallery/open.jpg"])
        #expect(crawl.summary.pageFailures.isEmpty)
    }

    /// An album of two photos, each thumbnail linking to its photo page, and a second page of
    /// the album with a third.
    static let album: [String: String] = [
        "/gallery/": """
        <html><head><title>Album</title></head><body>
        <a href="photo/1.html"><img src="thumbs/1.jpg" alt="One"></a>
        <a href="photo/2.html"><img src="thumbs/2.jpg" alt="Two"></a>
        <a href="?page=2">Next</a>
        </body></html>
        """,
        "/gallery/?page=2": """
        <html><head><title>Album, page 2</title></head><body>
        <a href="photo/3.html"><img src="thumbs/3.jpg" alt="Three"></a>
        </body></html>
        """,
        "/gallery/photo/1.html": "<html><body><img src=\"../full/1.jpg\"></body></html>",
        "/gallery/photo/2.html": "<html><body><img src=\"../full/2.jpg\"></body></html>",
        "/gallery/photo/3.html": "<html><body><img src=\"../full/3.jpg\"></body></html>",
    ]

    @Test("an album's thumbnails, its photo pages' images, then the next page's, in crawl order")
    func albumPhotoPagesPagination() async throws {
        let crawl = try await Self.crawl(TestSite(pages: Self.album))
        // Breadth first: the album (0), its photo pages and its next page (1-3), then the
        // photo page of the next page (4).
        #expect(
            crawl.paths == [
                "/gallery/thumbs/1.jpg", "/gallery/thumbs/2.jpg", "/gallery/full/1.jpg", "/gallery/full/2.jpg",
                "/gallery/thumbs/3.jpg", "/gallery/full/3.jpg",
            ])
        #expect(crawl.discoveries.map(\.document) == [0, 0, 1, 2, 3, 4])
        #expect(crawl.discoveries.first?.reference.title == "One")
        #expect(crawl.summary.pages == 5)
        #expect(crawl.summary.pageFailures.isEmpty && crawl.summary.warnings.isEmpty)
        // Each thumbnail is tied to the photo page it links to.
        #expect(
            crawl.summary.photoLinks.map { "\($0.document) \($0.photo) \($0.page.path)" } == [
                "0 0 /gallery/photo/1.html", "0 1 /gallery/photo/2.html", "3 0 /gallery/photo/3.html",
            ])
        #expect(crawl.summary.documents[3]?.title == "Album, page 2")
        // Every page once; nothing but pages (no robots.txt: it is not honoured here).
        #expect(crawl.requests.sorted() == Self.album.keys.sorted())
    }

    @Test("--max-depth: pages deeper than the limit are not requested, and a warning says how many")
    func maxDepth() async throws {
        let crawl = try await Self.crawl(TestSite(pages: Self.album), configuration: CrawlConfiguration(maxDepth: 1))
        #expect(!crawl.requests.contains("/gallery/photo/3.html"))
        #expect(crawl.summary.pages == 4)
        #expect(!crawl.paths.contains("/gallery/full/3.jpg"))
        #expect(crawl.paths.contains("/gallery/thumbs/3.jpg"))
        #expect(crawl.summary.refusals.beyondDepth == 1)
        #expect(crawl.summary.warnings == ["--max-depth 1 reached: 1 deeper page was not crawled"])
    }

    @Test("a listing reached by two URLs is read once: its images are sent once, as one document")
    func listingByTwoURLs() async throws {
        let listing = { (order: [String]) in
            "<html><body>" + order.map { "<img src=\"img/\($0).jpg\">" }.joined() + "</body></html>"
        }
        let site = TestSite(pages: [
            "/gallery/": "<html><body><a href=\"?sort=date\">By date</a> <a href=\"?view=grid\">Grid</a></body></html>",
            "/gallery/?sort=date": listing(["a", "b", "c"]),
            "/gallery/?view=grid": listing(["c", "a", "b"]),
        ])
        let crawl = try await Self.crawl(site)
        #expect(crawl.paths == ["/gallery/img/a.jpg", "/gallery/img/b.jpg", "/gallery/img/c.jpg"])
        // Both URLs were fetched; the second is the first's document, not one of its own.
        #expect(crawl.requests.sorted() == ["/gallery/", "/gallery/?sort=date", "/gallery/?view=grid"])
        #expect(crawl.summary.documents.count == 2)
        let numbers = crawl.summary.pageNumbers.filter { $0.key.string.contains("?") }
        #expect(numbers.count == 2 && Set(numbers.values) == [1])
    }

    @Test("links out of scope (another directory, another host) are not requested")
    func outOfScope() async throws {
        let site = TestSite(pages: [
            "/gallery/": """
            <html><body><img src="a.jpg">
            <a href="/other/page.html">elsewhere</a>
            <a href="http://localhost:1/gallery/b.html">another host</a>
            <a href="inside.html">inside</a>
            </body></html>
            """,
            "/gallery/inside.html": "<html><body><img src=\"b.jpg\"></body></html>",
            "/other/page.html": "<html><body><img src=\"c.jpg\"></body></html>",
        ])
        let crawl = try await Self.crawl(site)
        #expect(crawl.requests.sorted() == ["/gallery/", "/gallery/inside.html"])
        #expect(crawl.paths == ["/gallery/a.jpg", "/gallery/b.jpg"])
        #expect(crawl.summary.refusals.outOfScope == 2)
        #expect(crawl.summary.pages == 2)
    }

    @Test("a page that answers 404 is a dead link: a warning, not a failure, and the crawl goes on")
    func deadLink() async throws {
        let site = TestSite(pages: [
            "/gallery/": "<html><body><a href=\"gone.html\">gone</a> <a href=\"here.html\">here</a></body></html>",
            "/gallery/here.html": "<html><body><img src=\"a.jpg\"></body></html>",
        ])
        let crawl = try await Self.crawl(site)
        #expect(crawl.requests.filter { $0 == "/gallery/gone.html" }.count == 1)
        #expect(crawl.summary.deadLinks == 1)
        #expect(crawl.summary.pageFailures.isEmpty)
        #expect(crawl.summary.warnings.count == 1)
        #expect(crawl.summary.warnings.first?.contains("/gallery/gone.html") == true)
        #expect(crawl.paths == ["/gallery/a.jpg"])
    }
}
