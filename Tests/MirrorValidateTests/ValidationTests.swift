import Synchronization
import Testing

@testable import MirrorCore
@testable import MirrorValidate

@Suite("Validator chain")
struct ValidationTests {
    func candidate(_ url: String, length: Int64? = nil, type: String? = nil) -> Candidate {
        Candidate(key: CanonicalURL(url)!, declaredLength: length, declaredType: type)
    }

    /// `scheme://h/a.png` as a key. The parser gives no key of a scheme other than http(s), so a
    /// key that the scheme rule must reject is built from its parts (the initializer the
    /// extractors use for text known to be canonical).
    func key(scheme: String) -> CanonicalURL {
        let host = scheme.utf8.count + 3
        return CanonicalURL(
            canonical: "\(scheme)://h/a.png", schemeEnd: scheme.utf8.count, authorityStart: host, hostStart: host,
            hostEnd: host + 1, pathStart: host + 1, queryStart: -1, port: -1)
    }

    @Test("the scheme rule rejects a key that is not http(s) as out-of-scope and passes http(s) keys on")
    func scheme() async {
        // Another scheme gives no key through the parser;
        #expect(CanonicalURL("ftp://h/a.png") == nil)
        // one that got in all the same is rejected, and the rules after it are not asked.
        let next = RecordingRule()
        let rule = SchemeRule(next: next)
        for scheme in ["ftp", "file", "data", "javascript"] {
            let foreign = key(scheme: scheme)
            #expect(foreign.scheme == scheme && foreign.string == "\(scheme)://h/a.png")
            #expect(await rule.handle(Candidate(key: foreign)) == .rejected(.outOfScope), "\(scheme)")
        }
        #expect(next.asked.withLock { $0 }.isEmpty)
        // http(s) keys go on to the next rule, whose verdict stands.
        #expect(await rule.handle(candidate("https://h/a.png")) == .rejected(.excluded))
        #expect(await rule.handle(candidate("http://h/a.png")) == .rejected(.excluded))
        #expect(next.asked.withLock { $0 } == ["https://h/a.png", "http://h/a.png"])
        // At the end of the chain an http(s) key is accepted.
        #expect(await SchemeRule(next: nil).handle(candidate("http://h/a.png")) == .accepted)
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

    @Test("the robots.txt of an origin out of scope is known without a request, whoever asks")
    func robotsOutOfScope() async {
        let fetches = Mutex<[String]>([])
        let robots = RobotsCache(inScope: { $0.host == "h" }) { url in
            fetches.withLock { $0.append(url.string) }
            return .disallowAll
        }
        let elsewhere = CanonicalURL("http://127.0.0.2:8080/x.png")!
        // The collector holds a key until its origin's policy is known: out of scope it is at once.
        #expect(robots.fetchedPolicy(for: elsewhere) != nil)
        #expect(await robots.policy(for: elsewhere).allows(elsewhere))
        #expect(await robots.allows(elsewhere))
        #expect(fetches.withLock { $0 }.isEmpty)
        #expect(robots.fetchedPolicy(for: CanonicalURL("http://h/a.png")!) == nil)
        #expect(await !robots.allows(CanonicalURL("http://h/a.png")!))
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

/// A rule that records the keys it is asked about and rejects each as `excluded`: what a rule
/// before it passed on, and that it did.
final class RecordingRule: ValidationHandler {
    let next: (any ValidationHandler)? = nil
    let asked = Mutex<[String]>([])

    func handle(_ candidate: Candidate) async -> Verdict {
        asked.withLock { $0.append(candidate.key.string) }
        return .rejected(.excluded)
    }
}
