import Foundation
import MirrorTestSupport
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorOperate
@testable import MirrorPublish
@testable import SampleGallery

@Suite("Operating it: the mirror's feed.atom")
struct FeedTests {
    /// What feedparser (the Universal Feed Parser) makes of a feed, as JSON.
    struct Parsed: Decodable {
        struct Entry: Decodable {
            var id: String
            var title: String
            var updated: String
            var link: String
            var enclosures: [Enclosure]
        }
        struct Enclosure: Decodable {
            var href: String
            var type: String
            var length: String
        }
        var bozo: Bool
        var problem: String?
        var version: String
        var title: String
        var entries: [Entry]
    }

    /// Parses `file` with feedparser, as if it had been fetched from `location`.
    static func feedparser(_ file: URL, location: String) async throws -> Parsed {
        let script = """
            import feedparser, json, sys
            with open(sys.argv[1], 'rb') as f:
                d = feedparser.parse(f.read(), response_headers={'content-location': sys.argv[2], 'content-type': 'application/atom+xml'})
            print(json.dumps({
                'bozo': bool(d.bozo), 'problem': str(d.get('bozo_exception')) if d.bozo else None,
                'version': d.version, 'title': d.feed.get('title', ''),
                'entries': [{'id': e.id, 'title': e.title, 'updated': e.updated, 'link': e.link,
                             'enclosures': [{'href': x.href, 'type': x.type, 'length': x.length} for x in e.enclosures]}
                            for e in d.entries]}))
            """
        let result = try await ExternalTool.feedparser.run(["-c", script, file.path, location])
        #expect(result.status == 0, "\(result.stderr)")
        return try JSONDecoder().decode(Parsed.self, from: Data(result.stdout.utf8))
    }

    @Test("feedparser reads feed.atom without a complaint; after a second sync its newest photo comes first")
    func readByFeedparser() async throws {
        try ExternalTool.require(.feedparser)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = GalleryServer(catalog: Fixture.catalog())
        let output = directory.url.appendingPathComponent("m")
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        try await server.run { url in
            var configuration = testConfiguration(source: url.absoluteString, output: output)
            configuration.now = { clock.withLock { $0 } }
            _ = try await MirrorEngine(configuration: configuration).run()
            let location = "http://mirror.example/gallery/feed.atom"
            let first = try await Self.feedparser(output.appendingPathComponent("feed.atom"), location: location)
            #expect(!first.bozo, "\(first.problem ?? "")")
            let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            // Titled as the site is: the source's start page title, without the listing's page
            // number ("EmojiArt Sample Gallery — page 1"), as the pages are.
            let siteTitle = try #require(manifest.title.map(SitePlan.withoutPageNumber))
            #expect(first.version == "atom10" && first.title == siteTitle && siteTitle != manifest.title)
            #expect(first.entries.count == manifest.items.count)
            for entry in first.entries {
                let item = try #require(manifest.items.first { $0.key == entry.id })
                #expect(entry.title == item.title)
                #expect(entry.updated == Timestamp.string(item.firstSeen))
                #expect(entry.enclosures.count == 1)
                let enclosure = try #require(entry.enclosures.first)
                #expect(enclosure.href == "http://mirror.example/gallery/" + item.path)
                #expect(enclosure.type == item.contentType && enclosure.length == String(item.bytes))
                // The photo's link: the page of its card, at its anchor.
                let link = try #require(entry.link.wholeMatch(of: /http:\/\/mirror\.example\/gallery\/([^#]+)#(.+)/))
                let page = try String(contentsOf: output.appendingPathComponent(String(link.1)), encoding: .utf8)
                #expect(page.contains("id=\"\(link.2)\""))
            }

            // An hour later, image 15 is new (and 3 changed, which keeps its first sighting).
            server.update(mutate)
            clock.withLock { $0 += 3600 }
            _ = try await MirrorEngine(configuration: configuration).run()
            let second = try await Self.feedparser(output.appendingPathComponent("feed.atom"), location: location)
            #expect(!second.bozo, "\(second.problem ?? "")")
            let key = { (id: Int) in "http://127.0.0.1:\(url.port!)/gallery/image?\(id)" }
            #expect(second.entries.first?.id == key(15))
            #expect(second.entries.first?.updated == Timestamp.string(Date(timeIntervalSince1970: 1_800_003_600)))
            #expect(!second.entries.contains { $0.id == key(5) })
            // Every other photo is one of the first sync's (so the check below is not of nothing).
            let secondManifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            #expect(second.entries.count == secondManifest.items.count && second.entries.count > 1)
            #expect(
                second.entries.dropFirst().allSatisfy {
                    $0.updated == Timestamp.string(Date(timeIntervalSince1970: 1_800_000_000))
                })
            // A third sync that changes nothing leaves the feed as it was, byte for byte.
            let before = try Data(contentsOf: output.appendingPathComponent("feed.atom"))
            clock.withLock { $0 += 3600 }
            _ = try await MirrorEngine(configuration: configuration).run()
            #expect(try Data(contentsOf: output.appendingPathComponent("feed.atom")) == before)
        }
    }

    @Test("catalog-mirror mirrors a mirror through its feed.atom, served over HTTP")
    func mirrorOfAMirror() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let first = directory.url.appendingPathComponent("first")
        let server = GalleryServer(catalog: Fixture.catalog())
        try await server.run { url in
            _ = try await MirrorEngine(configuration: testConfiguration(source: url.absoluteString, output: first)).run()
        }
        let original = try Manifest.read(from: first.appendingPathComponent("manifest.json"))
        try await StaticSiteServer(directory: first, mount: "/").run { root in
            // The feed as the source: every photo of the first mirror, with its title and bytes.
            let viaFeed = try await Binary.run(
                ["sync", root + "feed.atom", "--out", "second", "--report", "feed.json"], in: directory.url)
            #expect(viaFeed.status == 0, "\(viaFeed.stderr)")
            let copy = try Manifest.read(from: directory.url.appendingPathComponent("second/manifest.json"))
            #expect(copy.items.count == original.items.count)
            for item in original.items {
                let mirrored = try #require(copy.items.first { $0.key == root + item.path }, "\(item.path)")
                #expect(
                    mirrored.sha256 == item.sha256 && mirrored.title == item.title && mirrored.contentType == item.contentType)
            }
            // Its start page: the crawl finds the feed through every page's <link rel="alternate">.
            let viaPages = try await Binary.run(
                ["sync", root, "--out", "third", "--report", "pages.json"], in: directory.url)
            #expect(viaPages.status == 0, "\(viaPages.stderr)")
            let report = try RunReport.decode(Data(contentsOf: directory.url.appendingPathComponent("pages.json")))
            #expect(report.feeds >= 1 && report.published >= original.items.count)
        }
    }
}
