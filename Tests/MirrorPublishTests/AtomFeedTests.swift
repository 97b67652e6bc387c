import Foundation
import Testing

@testable import MirrorCore
@testable import MirrorMarkup
@testable import MirrorPublish
@testable import MirrorStore

@Suite("feed.atom")
struct AtomFeedTests {
    /// `count` photos of two renditions each (a thumbnail and its original), in two albums, the
    /// later ones first seen later.
    static func manifest(_ count: Int, title: (Int) -> String? = { "Photo \($0)" }) -> Manifest {
        var items: [Manifest.Item] = []
        for index in 0..<count {
            let key = "http://h/g/photo-\(String(format: "%04d", index)).jpg"
            let album = index % 2 == 0 ? "http://h/g/" : "http://h/g/trips/"
            let seen = Date(timeIntervalSince1970: 1_800_000_000 + Double(index / 3) * 60)
            items.append(
                Manifest.Item(
                    key: key, path: "images/photo-\(index)-0123456789.jpg", sha256: String(repeating: "b", count: 64),
                    bytes: 5000 + Int64(index), contentType: "image/jpeg", title: title(index), album: album, firstSeen: seen,
                    lastChecked: seen))
            items.append(
                Manifest.Item(
                    key: key + "?thumb", path: "images/photo-\(index)-thumb-0123456789.jpg",
                    sha256: String(repeating: "c", count: 64), bytes: 100, contentType: "image/jpeg", title: title(index),
                    album: album, variantOf: key, firstSeen: seen, lastChecked: seen))
        }
        items.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        return Manifest(
            source: "http://h/g/", title: "Trips & <Tours>", generatedAt: Date(timeIntervalSince1970: 1_900_000_000),
            items: items, rejected: [],
            albums: [.init(url: "http://h/g/", title: "Trips & <Tours>"), .init(url: "http://h/g/trips/", title: "Trips")])
    }

    @Test("one entry per photo, newest first, at most 100, each with its page, image, type and length")
    func entries() throws {
        let manifest = Self.manifest(150)
        let site = SitePlan(manifest: manifest, itemsPerPage: 20)
        let feed = AtomFeed(site: site, manifest: manifest)
        #expect(feed.keys.count == 100)
        // Newest first (photos 147...149 were seen last), equal times by key.
        #expect(Array(feed.keys.prefix(4)) == [147, 148, 149, 144].map { "http://h/g/photo-\(String(format: "%04d", $0)).jpg" })
        #expect(!feed.keys.contains { $0.hasSuffix("?thumb") })

        let xml = feed.render()
        // Our own feed reader reads it: the originals as enclosures with their titles, type and length.
        let scan = try FeedScanner.scan(Array(xml.utf8), url: "http://mirror.example/feed.atom")
        #expect(scan.kind == .atom && scan.warnings.isEmpty)
        let paths = feed.keys.map { key in manifest.items.first { $0.key == key }!.path }
        #expect(scan.images.map(\.url) == paths.map { "http://mirror.example/" + $0 })
        let first = try #require(scan.images.first)
        #expect(first.title == "Photo 147" && first.declaredLength == 5147 && first.declaredType == "image/jpeg")

        // Each entry's page shows the photo's card under that anchor.
        let publisher = MirrorPublisher(
            layout: MirrorLayout(root: URL(fileURLWithPath: "/nowhere")), template: try SiteTemplate.embedded(), itemsPerPage: 20)
        let pages = Dictionary(
            uniqueKeysWithValues: zip(
                site.pages.map(\.fileName), publisher.render(manifest)))
        let links = xml.matches(of: /<link rel="alternate" type="text\/html" href="([^"#]+)#([^"]+)"\/>/).map {
            (String($0.1), String($0.2))
        }
        #expect(links.count == 100)
        for (page, anchor) in links {
            #expect(pages[page]?.contains("id=\"\(anchor)\"") == true, "\(page)#\(anchor)")
        }
        // Every page advertises the feed.
        #expect(pages.values.allSatisfy { $0.contains("<link rel=\"alternate\" type=\"application/atom+xml\"") })
    }

    @Test("text is escaped, characters XML cannot hold are left out, and equal sites give equal bytes")
    func escaping() throws {
        let manifest = Self.manifest(3) { index in index == 1 ? "A <b> & \"c\" \u{1}\u{FFFE}\u{1F600}" : nil }
        let xml = AtomFeed(site: SitePlan(manifest: manifest, itemsPerPage: 60), manifest: manifest).render()
        #expect(xml.contains("<title>A &lt;b&gt; &amp; &quot;c&quot; \u{1F600}</title>"))
        #expect(xml.contains("<title>Trips &amp; &lt;Tours&gt;</title>"))
        #expect(!xml.unicodeScalars.contains { $0.value == 1 || $0.value == 0xFFFE })
        // An untitled photo is labelled by its file name read as words, as its card is.
        #expect(xml.contains("<title>Photo 0002</title>"))
        // The feed was updated when its newest photo was first seen, not when it was written.
        #expect(xml.contains("  <updated>\(Timestamp.string(Date(timeIntervalSince1970: 1_800_000_000)))</updated>\n  <link"))
        let again = AtomFeed(site: SitePlan(manifest: manifest, itemsPerPage: 60), manifest: manifest).render()
        #expect(xml == again)
        #expect(AtomFeed.feedID(source: "http://h/g/") == AtomFeed.feedID(source: "http://h/g/"))
        #expect(
            AtomFeed.feedID(source: "http://h/g/").wholeMatch(
                of: /urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil)
        _ = try FeedScanner.scan(Array(xml.utf8), url: "http://mirror.example/feed.atom")
    }
}
