import Foundation
import Testing

@testable import MirrorCore
@testable import MirrorCrawl

@Suite("The frontier")
struct FrontierTests {
    @Test("the frontier goes breadth-first within scope, depth and page limits, each page once")
    func frontier() throws {
        let start = try #require(CanonicalURL("http://h/g/"))
        var frontier = Frontier(
            start: start, scope: CrawlScope(source: start, scope: .directory), maxDepth: 1, maxPages: 3)
        #expect(frontier.next()?.url == start)
        for link in [
            "http://h/g/a/", "http://h/other/", "http://h/g/a/", "http://h/elsewhere/", "http://h/g/b/", "http://h/g/c/",
        ] {
            frontier.offer(try #require(CanonicalURL(link)), from: 0)
        }
        frontier.offer(try #require(CanonicalURL("http://h/g/a/deeper/")), from: 1)
        #expect(frontier.next()?.url.string == "http://h/g/a/")
        #expect(frontier.next()?.url.string == "http://h/g/b/")
        #expect(frontier.next() == nil)
        #expect(frontier.refusals == .init(outOfScope: 2, beyondDepth: 1, beyondPageLimit: 1))
        // A URL is not judged by its name: a photo's own page may end in ".jpg".
        #expect(frontier.scope.contains(try #require(CanonicalURL("http://h/g/File:pic.jpg"))))
        let hostWide = CrawlScope(source: start, scope: .host)
        #expect(hostWide.contains(try #require(CanonicalURL("http://h/other/"))))
        #expect(hostWide.contains(try #require(CanonicalURL("https://h/g/x"))))
        #expect(!hostWide.contains(try #require(CanonicalURL("http://h:8080/g/x"))))
    }
}
