import Synchronization
import Testing

@testable import CatalogMirror

@Suite("Validator chain")
struct ValidationTests {
    func candidate(_ url: String, length: Int64? = nil, type: String? = nil) -> Candidate {
        Candidate(key: CanonicalURL(url)!, declaredLength: length, declaredType: type)
    }

    @Test("what is not http(s) never becomes a key, and the scheme rule passes http(s) keys on")
    func scheme() async {
        #expect(CanonicalURL("ftp://h/a.png") == nil)
        let rule = SchemeRule(next: nil)
        #expect(await rule.handle(candidate("https://h/a.png")) == .accepted)
        #expect(await rule.handle(candidate("http://h/a.png")) == .accepted)
    }

    @Test("the scope rule compares hosts case-insensitively and ignores ports")
    func scope() async {
        let rule = ScopeRule(hosts: ["Example.com", "127.0.0.1"], next: nil)
        #expect(await rule.handle(candidate("http://EXAMPLE.com:8080/a.png")) == .accepted)
        #expect(await rule.handle(candidate("http://127.0.0.1:1/a.png")) == .accepted)
        #expect(await rule.handle(candidate("http://localhost/a.png")) == .rejected(.outOfScope))
        #expect(await rule.handle(candidate("http://cdn.example.com/a.png")) == .rejected(.outOfScope))
    }

    @Test("include and exclude globs match the decoded path")
    func filters() async {
        let rule = FilterRule(include: ["/gallery/**", "*.webp"], exclude: ["**/thumbs/*"], next: nil)
        #expect(await rule.handle(candidate("http://h/gallery/a/b/c.png")) == .accepted)
        #expect(await rule.handle(candidate("http://h/gallery/thumbs/c.png")) == .rejected(.excluded))
        #expect(await rule.handle(candidate("http://h/other/c.webp")) == .accepted)
        #expect(await rule.handle(candidate("http://h/other/c.png")) == .rejected(.excluded))
        let spaced = FilterRule(include: ["/my photos/*.png"], exclude: [], next: nil)
        #expect(await spaced.handle(candidate("http://h/my%20photos/x.png?size=2")) == .accepted)
    }

    @Test(
        "glob semantics",
        arguments: [
            ("/a/*.png", "/a/b.png", true), ("/a/*.png", "/a/b/c.png", false), ("/a/**.png", "/a/b/c.png", true),
            ("/a/**/c.png", "/a/c.png", true), ("/a/**/c.png", "/a/x/y/c.png", true), ("*.png", "/deep/er/x.png", true),
            ("/a/?.png", "/a/b.png", true), ("/a/?.png", "/a/bb.png", false), ("/a", "/a/b", false),
            // A combining mark after "/" must not hide the segment boundary from "*".
            ("/a/*", "/a/x/\u{0301}y", false), ("/a/**", "/a/x/\u{0301}y", true),
        ])
    func glob(pattern: String, path: String, matches: Bool) {
        #expect(Glob(pattern).matches(path) == matches)
    }

    @Test("declared type and size are checked before any request")
    func declared() async {
        let size = DeclaredSizeRule(maxSize: 1000, next: nil)
        #expect(await size.handle(candidate("http://h/a.png", length: 1001)) == .rejected(.tooLarge))
        #expect(await size.handle(candidate("http://h/a.png", length: 1000)) == .accepted)
        #expect(await size.handle(candidate("http://h/a.png")) == .accepted)
        let type = DeclaredTypeRule(next: nil)
        #expect(await type.handle(candidate("http://h/a", type: "audio/mpeg")) == .rejected(.unsupportedType))
        #expect(await type.handle(candidate("http://h/a", type: "image/svg+xml")) == .rejected(.unsupportedType))
        #expect(await type.handle(candidate("http://h/a", type: "IMAGE/PNG; q=1")) == .accepted)
        #expect(await type.handle(candidate("http://h/a", type: "application/octet-stream")) == .accepted)
    }

    @Test("duplicates are decided once")
    func duplicates() async {
        let rule = DuplicateRule(next: ScopeRule(hosts: ["h"], next: nil))
        #expect(await rule.handle(candidate("http://h/a.png")) == .accepted)
        #expect(await rule.handle(candidate("HTTP://h:80/a.png#x")) == .duplicate)
        #expect(await rule.handle(candidate("http://elsewhere/a.png")) == .rejected(.outOfScope))
        #expect(await rule.handle(candidate("http://elsewhere/a.png")) == .duplicate)
    }

    @Test("robots.txt is only consulted for keys the earlier rules let through")
    func chainOrder() async {
        let fetches = Mutex<[String]>([])
        let robots = RobotsCache { url in
            fetches.withLock { $0.append(url.string) }
            return RobotsTxt(parsing: "User-agent: *\nDisallow: /private/", userAgent: "catalog-mirror")
        }
        var configuration = ValidationConfiguration()
        configuration.exclude = ["**/skip/**"]
        let chain = ValidationChain.make(configuration, sourceHost: "h", robots: robots)
        #expect(await chain.handle(candidate("http://other/a.png")) == .rejected(.outOfScope))
        #expect(await chain.handle(candidate("http://h/skip/a.png")) == .rejected(.excluded))
        #expect(fetches.withLock { $0 }.isEmpty)
        #expect(await chain.handle(candidate("http://h/private/a.png")) == .rejected(.robots))
        #expect(await chain.handle(candidate("http://h/public/a.png")) == .accepted)
        #expect(await chain.handle(candidate("http://h/public/a.png")) == .duplicate)
        #expect(fetches.withLock { $0 } == ["http://h/robots.txt"])
    }

    @Test("the order comes from configuration")
    func configuredOrder() async {
        var configuration = ValidationConfiguration()
        configuration.maxSize = 10
        configuration.order = [.declaredSize, .scope]
        let sizeFirst = ValidationChain.make(configuration, sourceHost: "h", robots: nil)
        #expect(await sizeFirst.handle(candidate("http://elsewhere/a.png", length: 99)) == .rejected(.tooLarge))
        configuration.order = [.scope, .declaredSize]
        let scopeFirst = ValidationChain.make(configuration, sourceHost: "h", robots: nil)
        #expect(await scopeFirst.handle(candidate("http://elsewhere/a.png", length: 99)) == .rejected(.outOfScope))
        configuration.order = []
        #expect(
            await ValidationChain.make(configuration, sourceHost: "h", robots: nil).handle(candidate("http://x/y")) == .accepted)
    }
}

@Suite("Request pacing")
struct PolitenessTests {
    @Test("the token bucket lets a burst through, then one request per 1/rate")
    func tokenBucket() async {
        let politeness = Politeness(rate: 20, perHost: 100)
        let started = ContinuousClock.now
        for _ in 0..<30 {
            await politeness.acquire(host: "h", crawlDelay: nil)
            politeness.release(host: "h")
        }
        // 20 tokens at once, then 10 more at 1/20 s each: at least 0.5 s (sleeps never end early).
        #expect(ContinuousClock.now - started >= .milliseconds(490))
    }

    @Test("crawl delay spaces requests to one host, not to others")
    func crawlDelay() async {
        let politeness = Politeness(rate: nil, perHost: 10)
        let started = ContinuousClock.now
        for _ in 0..<3 {
            await politeness.acquire(host: "slow", crawlDelay: .milliseconds(100))
            politeness.release(host: "slow")
        }
        #expect(ContinuousClock.now - started >= .milliseconds(200))
    }

    @Test("a host's slots are handed over, never exceeded")
    func hostSlots() async {
        let politeness = Politeness(rate: nil, perHost: 2)
        let inFlight = InFlight()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    await politeness.acquire(host: "h", crawlDelay: nil)
                    inFlight.change(+1)
                    await Task.yield()
                    inFlight.change(-1)
                    politeness.release(host: "h")
                }
            }
        }
        #expect(inFlight.maximum <= 2)
        #expect(inFlight.maximum >= 1)
    }
}

/// Counts what is in flight and remembers the most at once.
final class InFlight: Sendable {
    private let state = Mutex((now: 0, max: 0))
    func change(_ delta: Int) {
        state.withLock {
            $0.now += delta; $0.max = max($0.max, $0.now)
        }
    }
    var maximum: Int { state.withLock { $0.max } }
}
