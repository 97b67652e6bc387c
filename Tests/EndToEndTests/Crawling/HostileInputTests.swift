import Foundation
import Hummingbird
import MirrorTestSupport
import NIOCore
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorOperate
@testable import SampleGallery

/// Request arrival times and concurrency, recorded by a test server.
final class Timeline: Sendable {
    private let arrivals = Mutex<[(String, ContinuousClock.Instant)]>([])
    private let inFlight = Mutex((now: 0, max: 0))

    func arrived(_ path: String) { arrivals.withLock { $0.append((path, .now)) } }

    /// Arrival offsets from the first request whose path starts with `prefix`, in order.
    func offsets(_ prefix: String) -> [Duration] {
        let times = arrivals.withLock { $0 }.filter { $0.0.hasPrefix(prefix) }.map(\.1)
        guard let first = times.first else { return [] }
        return times.map { $0 - first }
    }

    func enter() {
        inFlight.withLock {
            $0.now += 1; $0.max = max($0.max, $0.now)
        }
    }
    func leave() { inFlight.withLock { $0.now -= 1 } }
    var maxInFlight: Int { inFlight.withLock { $0.max } }

    /// Holds a request until `count` requests have been in flight at once: a server that proves
    /// the client overlaps requests without depending on how fast the machine happens to be.
    /// `limit` only ends the wait of a client that never overlaps that many (its test then fails
    /// on `maxInFlight`), so it is far longer than any machine needs.
    func holdUntil(inFlight count: Int, within limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        while maxInFlight < count, ContinuousClock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }
}

@Suite("Real galleries, real servers, hostile input")
struct HostileInputTests {
    func mirror(
        routes: @escaping @Sendable (Router<BasicRequestContext>, @escaping @Sendable () -> String) -> Void,
        configure: @Sendable (inout MirrorConfiguration) -> Void = { _ in }
    ) async throws -> (manifest: Manifest, report: RunReport, output: URL, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let output = directory.url.appendingPathComponent("m")
        return try await TestServer().run(routes: routes) { origin in
            var configuration = testConfiguration(source: origin + "/", output: output)
            configure(&configuration)
            let report = try await MirrorEngine(configuration: configuration).run()
            return (try Manifest.read(from: output.appendingPathComponent("manifest.json")), report, output, directory)
        }
    }

    func paths(_ manifest: Manifest) -> Set<String> {
        Set(manifest.items.compactMap { CanonicalURL($0.key)?.path })
    }

    @Test("meta, noscript, inline styles, JSON Feed, Atom content and robots.txt sitemaps are all found")
    func discovery() async throws {
        let result = try await mirror(routes: { router, origin in
            router.get("/") { _, _ in
                html(
                    """
                    <html><head><meta property="og:image" content="/img/og.png">
                    <link rel="alternate" type="application/feed+json" href="/feed.json">
                    <link rel="alternate" type="application/atom+xml" href="/atom.xml"></head>
                    <body><noscript><img src="/img/noscript.png"></noscript>
                    <div style="background-image: url('/img/background.png')"></div></body></html>
                    """)
            }
            router.get("/robots.txt") { _, _ in html("User-agent: *\nAllow: /\nSitemap: \(origin())/sitemap-index.xml\n") }
            router.get("/sitemap-index.xml") { _, _ in
                bytes(
                    Array(
                        """
                        <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
                        <sitemap><loc>\(origin())/sitemap-images.xml</loc></sitemap></sitemapindex>
                        """.utf8), type: "application/xml")
            }
            router.get("/sitemap-images.xml") { _, _ in
                bytes(
                    Array(
                        """
                        <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
                        <url><loc>\(origin())/page</loc><image:image><image:loc>\(origin())/img/sitemap.png</image:loc>
                        <image:title>From the sitemap</image:title></image:image></url></urlset>
                        """.utf8), type: "application/xml")
            }
            router.get("/feed.json") { _, _ in
                bytes(
                    Array(
                        #"{"version": "https://jsonfeed.org/version/1.1", "items": [{"id": "1", "title": "JSON item", "image": "/img/jsonfeed.png"}]}"#
                            .utf8), type: "application/feed+json")
            }
            router.get("/atom.xml") { _, _ in
                bytes(
                    Array(
                        """
                        <feed xmlns="http://www.w3.org/2005/Atom"><entry><title>Atom entry</title>
                        <content type="html">&lt;img src="/img/atom.png"&gt;</content></entry></feed>
                        """.utf8), type: "application/atom+xml")
            }
            router.get("/img/{name}") { _, _ in bytes(Fixture.png) }
        })
        defer { result.directory.cleanup() }
        #expect(
            paths(result.manifest) == [
                "/img/og.png", "/img/noscript.png", "/img/background.png", "/img/sitemap.png", "/img/jsonfeed.png",
                "/img/atom.png",
            ])
        let titles = Set(result.manifest.items.compactMap(\.title))
        #expect(titles.isSuperset(of: ["From the sitemap", "JSON item", "Atom entry"]))
    }

    @Test("robots.txt rules and Crawl-delay are honoured, and --ignore-robots ignores them")
    func robots() async throws {
        let timeline = Timeline()
        let routes: @Sendable (Router<BasicRequestContext>, @escaping @Sendable () -> String) -> Void = { router, _ in
            router.get("/") { _, _ in
                html((1...4).map { "<img src=\"/img/\($0).png\">" }.joined() + "<img src=\"/private/p.png\">")
            }
            router.get("/robots.txt") { _, _ in html("User-agent: *\nDisallow: /private/\nCrawl-delay: 0.5\n") }
            router.get("/img/{name}") { request, _ in
                timeline.arrived(request.uri.path)
                return bytes(Fixture.png)
            }
            router.get("/private/{name}") { request, _ in
                timeline.arrived(request.uri.path)
                return bytes(Fixture.png)
            }
        }
        let polite = try await mirror(routes: routes)
        defer { polite.directory.cleanup() }
        #expect(polite.manifest.rejected.map(\.reason) == ["robots"])
        #expect(timeline.offsets("/private/").isEmpty, "the disallowed key was requested")
        // Four image requests, each started at least 0.5 s after the one before (the pacer's
        // sleeps never end early), so the last arrives at least 1.5 s after the first, less the
        // first one's time in transit. Without the delay the four go out at once on their own
        // connections and arrive within milliseconds of each other: the bound tells them apart.
        let offsets = timeline.offsets("/img/")
        #expect(offsets.count == 4)
        #expect((offsets.last ?? .zero) >= .milliseconds(750), "\(offsets)")

        let ignoring = try await mirror(routes: routes) { $0.validation.honourRobots = false }
        defer { ignoring.directory.cleanup() }
        #expect(ignoring.manifest.items.count == 5)
        #expect(ignoring.manifest.rejected.isEmpty)
    }

    @Test("--rate spaces requests by the token bucket; --connections-per-host caps what is in flight")
    func pacing() async throws {
        let rateTimeline = Timeline()
        let limitTimeline = Timeline()
        // The rated server holds each image until three are in flight, so the overlap the test
        // asserts does not depend on the machine's speed.
        let routes:
            @Sendable (Timeline, Int) -> @Sendable (Router<BasicRequestContext>, @escaping @Sendable () -> String) -> Void = {
                timeline, hold in
                { router, _ in
                    router.get("/") { _, _ in html((1...12).map { "<img src=\"/img/\($0).png\">" }.joined()) }
                    router.get("/img/{name}") { request, _ in
                        timeline.arrived(request.uri.path)
                        timeline.enter()
                        defer { timeline.leave() }
                        await timeline.holdUntil(inFlight: hold, within: .seconds(30))
                        try await Task.sleep(for: .milliseconds(50))
                        return bytes(Fixture.png)
                    }
                }
            }
        let rated = try await mirror(routes: routes(rateTimeline, 3)) {
            $0.fetch.rate = 4
            $0.fetch.concurrency = 8
        }
        defer { rated.directory.cleanup() }
        #expect(rated.manifest.items.count == 12)
        // A bucket of 4 tokens refilled at 4 a second lets at most 4 of the 12 images start at
        // once, then one every 0.25 s: the last starts at least 2 s after the first and arrives
        // at least that, less the first one's time in transit. Without the bucket the twelve go
        // out over 8 connections at once and arrive within about 0.1 s (two rounds of 50 ms).
        let offsets = rateTimeline.offsets("/img/")
        #expect(offsets.count == 12)
        #expect((offsets.last ?? .zero) >= .seconds(1), "\(offsets)")

        let limited = try await mirror(routes: routes(limitTimeline, 0)) {
            $0.fetch.connectionsPerHost = 2
            $0.fetch.concurrency = 8
        }
        defer { limited.directory.cleanup() }
        #expect(limited.manifest.items.count == 12)
        #expect(limitTimeline.maxInFlight <= 2)
        #expect(rateTimeline.maxInFlight > 2)
    }

    @Test("a server that trickles bytes forever is cut off by the per-item deadline")
    func trickle() async throws {
        let result = try await mirror(
            routes: { router, _ in
                router.get("/") { _, _ in html("<img src=\"/slow.png\"><img src=\"/fine.png\">") }
                router.get("/fine.png") { _, _ in bytes(Fixture.png) }
                router.get("/slow.png") { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "image/png"],
                        body: ResponseBody { writer in
                            for byte in Fixture.png.prefix(600) {
                                try await writer.write(ByteBuffer(bytes: [byte]))
                                try await Task.sleep(for: .milliseconds(100))
                            }
                            try await writer.finish(nil)
                        })
                }
            },
            configure: {
                // Far below the minute the trickle takes, far above what the fine image needs
                // on a machine busy with other builds.
                $0.fetch.imageDeadline = .seconds(6)
                $0.fetch.retry.maxAttempts = 2
            })
        defer { result.directory.cleanup() }
        #expect(result.manifest.rejected.map(\.reason) == ["timeout"])
        #expect(result.report.exitStatus == 1)
        #expect(result.manifest.items.count == 1)
    }

    @Test("hostile URLs become safe names inside images/; hostile titles render as text")
    func hostileNames() async throws {
        let references = [
            "/h/%2e%2e%2f%2e%2e%2fetc%2fpasswd.png", "/h/../../../etc/passwd.png",
            "/h/" + String(repeating: "x", count: 300) + ".png",
            "/h/%F0%9F%98%80%F0%9F%8E%A8.png", "/h/%E2%80%AEgnp.exe.png", "/h/nul%00byte.png", "/h/a%2F..%2F..%2Fb.png",
            "//h/absolute-host.png", "/h/C:%5Cwindows%5Cwin.ini.png",
        ]
        let result = try await mirror(routes: { router, _ in
            router.get("/") { _, _ in
                html(
                    references.enumerated().map { index, url in
                        let title = [
                            "<img src=x onerror=alert(1)>", "../../evil", "\u{202E}txt.exe", "\"><script>alert(2)</script>",
                        ][
                            index % 4]
                        return "<img src=\"\(url)\" alt=\"\(GalleryPagesEscape.escape(title))\">"
                    }.joined())
            }
            router.get("**") { _, _ in bytes(Fixture.png) }
        })
        defer { result.directory.cleanup() }
        let files = try FileManager.default.contentsOfDirectory(atPath: result.output.appendingPathComponent("images").path)
        #expect(files.count == result.manifest.items.count)
        #expect(result.manifest.items.count >= 7)
        for name in files {
            #expect(name.wholeMatch(of: /[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{10,}\.png/) != nil, "unsafe name \(name)")
        }
        // Nothing was written beside the mirror.
        #expect(try FileManager.default.contentsOfDirectory(atPath: result.directory.url.path) == ["m"])
        let index = try String(contentsOf: result.output.appendingPathComponent("index.html"), encoding: .utf8)
        #expect(!index.contains("<img src=x"))
        #expect(!index.contains("<script>"))
        #expect(index.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(try unresolvedReferences(in: result.output) == [])
    }

    @Test("a listing's own titles are kept verbatim, however they look (a path, markup), and escaped on the site")
    func listingTitlesVerbatim() async throws {
        let titles = ["../../../../cm-escape-3", "&lt;img src=x onerror=alert(1)&gt;", "<img src=x onerror=alert(2)>"]
        let result = try await mirror(routes: { router, _ in
            router.get("/") { _, _ in
                let listing = """
                    [{"title": "../../../../cm-escape-3", "url": "/image?1"},
                     {"title": "&lt;img src=x onerror=alert(1)&gt;", "url": "/image?2"},
                     {"title": "<img src=x onerror=alert(2)>", "url": "/image?3"}]
                    """
                return bytes(Array(listing.utf8), type: "application/json")
            }
            router.get("/image") { request, _ in
                // Three different files: a photo each.
                let image = SampleImage.bundled[(Int(request.uri.query ?? "") ?? 1) - 1]
                return bytes(image.bytes, type: image.format == "png" ? "image/png" : "image/jpeg")
            }
        })
        defer { result.directory.cleanup() }
        #expect(result.report.exitStatus == 0, "\(result.report.warnings)")
        let byKey = Dictionary(uniqueKeysWithValues: result.manifest.items.map { (String($0.key.suffix(1)), $0.title) })
        #expect(byKey == ["1": titles[0], "2": titles[1], "3": titles[2]])
        #expect(result.manifest.items.allSatisfy { $0.titleFrom == .page })
        // Shown as text: the markup escaped, the literal entities escaped again.
        var site = ""
        for page in try FileManager.default.contentsOfDirectory(atPath: result.output.path) where page.hasSuffix(".html") {
            site += try String(contentsOf: result.output.appendingPathComponent(page), encoding: .utf8)
        }
        #expect(!site.contains("<img src=x"))
        #expect(site.contains("&lt;img src=x onerror=alert(2)&gt;"))
        #expect(site.contains("&amp;lt;img src=x onerror=alert(1)&amp;gt;"))
        #expect(site.contains("../../../../cm-escape-3"))
        #expect(try unresolvedReferences(in: result.output) == [])
    }

    @Test(
        "a page whose script has an unterminated regular expression is mirrored, not read for ever (zzuf's finds)",
        arguments: ["x = /a", "/[/", "/ regex"])
    func unterminatedRegularExpression(script: String) async throws {
        let result = try await mirror(routes: { router, _ in
            router.get("/") { _, _ in
                html("<!DOCTYPE html><title>t</title><script>\(script)</script><img src=\"a.png\" alt=\"a\">")
            }
            router.get("/a.png") { _, _ in bytes(Fixture.png) }
        })
        defer { result.directory.cleanup() }
        #expect(result.manifest.items.map { $0.key.hasSuffix("/a.png") } == [true])
        #expect(result.report.exitStatus == 0)
        #expect(result.report.warnings.isEmpty)
    }

    @Test("SVG is not published: it can carry scripts")
    func svg() async throws {
        let result = try await mirror(routes: { router, _ in
            router.get("/") { _, _ in html("<img src=\"/logo.svg\"><img src=\"/sneaky.png\"><img src=\"/real.png\">") }
            router.get("/real.png") { _, _ in bytes(Fixture.png) }
            router.get("/logo.svg") { _, _ in
                bytes(
                    Array("<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'><script>alert(2)</script></svg>".utf8),
                    type: "image/svg+xml")
            }
            router.get("/sneaky.png") { _, _ in
                bytes(Array("<?xml version='1.0'?><svg xmlns='http://www.w3.org/2000/svg'/>".utf8))
            }
        })
        defer { result.directory.cleanup() }
        #expect(result.manifest.items.map(\.key).map { $0.hasSuffix("/real.png") } == [true])
        #expect(result.manifest.rejected.map(\.reason) == ["unsupported-type", "unsupported-type"])
        #expect(result.report.exitStatus == 0)
    }

    @Test(
        "feeds with external entities or entity bombs expand nothing and leak nothing; the pages are still mirrored",
        arguments: [
            #"<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY leak SYSTEM "file:///etc/passwd">]><rss><channel><item><title>&leak;</title><enclosure url="/a.png"/></item></channel></rss>"#,
            #"<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;"><!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">]><rss><channel><item><title>&g;</title></item></channel></rss>"#,
        ])
    func entities(feed: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("m")
        try await TestServer().run(routes: { router, _ in
            router.get("/") { _, _ in
                html("<link rel=\"alternate\" type=\"application/rss+xml\" href=\"/feed.rss\"><img src=\"/page.png\">")
            }
            router.get("/feed.rss") { _, _ in bytes(Array(feed.utf8), type: "application/rss+xml") }
            router.get("/a.png") { _, _ in bytes(Fixture.png) }
            router.get("/page.png") { _, _ in bytes(Fixture.png) }
        }) { origin in
            let report = try await MirrorEngine(configuration: testConfiguration(source: origin + "/", output: output)).run()
            #expect(report.published >= 1)
            let manifest = try String(contentsOf: output.appendingPathComponent("manifest.json"), encoding: .utf8)
            #expect(manifest.contains("/page.png"))
            #expect(!manifest.contains("root:") && !manifest.contains("aaaaaaaaaaaaaaaaaaaa"))
        }
    }
}

/// HTML attribute escaping for test pages.
enum GalleryPagesEscape {
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}

@Suite("Large feeds over the network")
struct LargeFeedNetworkTests {
    @Test("a large feed with one connection per host cannot wait on itself: it is read after its request ends")
    func feedDoesNotHoldItsSlot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = TestServer()
        let items = 5_000
        try await server.run(routes: { router, _ in
            router.get("/") { _, _ in html("<link rel=\"alternate\" type=\"application/rss+xml\" href=\"/big.rss\">") }
            router.get("/img/{name}") { _, _ in bytes(Fixture.png) }
            router.get("/big.rss") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "application/rss+xml"],
                    body: ResponseBody { writer in
                        var chunk = 0
                        while let bytes = LargeFeed.chunk(chunk, items: items, perChunk: 250) {
                            try await writer.write(ByteBuffer(bytes: bytes))
                            chunk += 1
                        }
                        try await writer.finish(nil)
                    })
            }
        }) { origin in
            var configuration = testConfiguration(source: origin + "/", output: directory.url.appendingPathComponent("m"))
            configuration.validation.include = ["/img/1*.png"]  // a few hundred downloads, the rest excluded
            // One connection to the host and one download at a time: a feed parsed while its
            // response held the only slot would wait forever on its own downloads.
            configuration.fetch.connectionsPerHost = 1
            configuration.fetch.concurrency = 1
            configuration.fetch.documentDeadline = .seconds(120)
            let report = try await MirrorEngine(configuration: configuration).run()
            #expect(report.keys == items)
            #expect(report.published == (0..<items).filter { String($0).hasPrefix("1") }.count)
        }
        // The feed was requested once, and every image after it.
        let log = server.log
        let feedIndex = try #require(log.firstIndex(of: "/big.rss"))
        #expect(log.dropFirst(feedIndex + 1).allSatisfy { $0.hasPrefix("/img/") || $0 == "/robots.txt" })
    }
}

/// A large RSS feed in chunks, generated on demand.
enum LargeFeed {
    static func chunk(_ index: Int, items: Int, perChunk: Int) -> [UInt8]? {
        let first = index * perChunk
        guard first < items else { return nil }
        var text = index == 0 ? "<?xml version=\"1.0\"?><rss><channel><title>Big</title>" : ""
        for item in first..<min(first + perChunk, items) {
            text += "<item><title>Item \(item)</title><enclosure url=\"/img/\(item).png\" type=\"image/png\"/></item>\n"
        }
        if first + perChunk >= items { text += "</channel></rss>" }
        return Array(text.utf8)
    }
}
