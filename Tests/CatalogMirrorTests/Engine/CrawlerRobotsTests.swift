import Foundation
import MirrorTestSupport
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorFetch
@testable import MirrorValidate

/// The crawler behind the engine's robots.txt gate (`RunPreparation.fetchRobots`, in
/// CatalogMirror), against a real server on 127.0.0.1. The crawler's other tests build against
/// MirrorCrawl alone (MirrorCrawlTests' `CrawlerTests`).
@Suite("The crawler behind robots.txt")
struct CrawlerRobotsTests {
    /// What a crawl sent and said.
    struct Crawl: Sendable {
        var discoveries: [Discovery]
        var summary: CrawlSummary
        /// Targets the site was asked for, in arrival order.
        var requests: [String]

        /// The discoveries' keys as paths, in the order sent.
        var paths: [String] { discoveries.map(\.key.path) }
    }

    /// Crawls `site` from `/gallery/` as the engine does (scope, then robots.txt fetched by
    /// `RunPreparation.fetchRobots`, before every request), collecting every batch it sends.
    static func crawl(_ site: TestSite) async throws -> Crawl {
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
                let robots = RobotsCache { url in await RunPreparation.fetchRobots(url, session: session, gate: scopeGate) }
                let gate: RequestGate = { url in
                    if let refusal = await scopeGate(url) { return refusal }
                    return await robots.allows(url) ? nil : .robots
                }
                let crawler = Crawler(
                    source: source, configuration: CrawlConfiguration(), session: session, startGate: scopeGate, gate: gate,
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
        let crawl = try await Self.crawl(site)
        #expect(!crawl.requests.contains("/gallery/private/secret.html"))
        #expect(crawl.requests.contains("/robots.txt") && crawl.requests.contains("/gallery/open.html"))
        #expect(crawl.summary.robotsRefused == 1)
        #expect(crawl.paths == ["/gallery/open.jpg"])
        #expect(crawl.summary.pageFailures.isEmpty)
    }
}
