import Crypto
import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorPublish
@testable import MirrorStore

@Suite("Site, manifest and settings")
struct PublishTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test("sizes are decimal, one decimal below 10, rounded half up on the exact count")
    func sizes() {
        let expected: [(Int64, String)] = [
            (0, "0 B"), (999, "999 B"), (1000, "1.0 KB"), (1049, "1.0 KB"), (1050, "1.1 KB"), (9949, "9.9 KB"),
            (9950, "10.0 KB"), (10_000, "10 KB"), (10_499, "10 KB"), (10_500, "11 KB"), (39_123, "39 KB"),
            (999_499, "999 KB"), (999_500, "1000 KB"), (1_000_000, "1.0 MB"), (1_250_000, "1.3 MB"),
            (12_345_678, "12 MB"), (999_999_999_999_999, "1000 TB"), (Int64.max, "9.2 EB"),
        ]
        for (bytes, text) in expected { #expect(MirrorPublisher.formatSize(bytes) == text, "\(bytes)") }
    }

    @Test("the embedded template is site-template/, byte for byte (the EmbedFolder plugin writes it at build time)")
    func embeddedMatchesDirectory() throws {
        let fromDisk = try SiteTemplate.load(from: Self.repositoryRoot.appendingPathComponent("site-template"))
        let embedded = try SiteTemplate.embedded()
        #expect(embedded.pageSource == fromDisk.pageSource)
        #expect(embedded.assets == fromDisk.assets)
    }

    func item(_ title: String?, metadata: [String: String]? = nil, number: Int = 0) -> Manifest.Item {
        Manifest.Item(
            key: "http://h/x\(number).png", path: "images/x\(number)-0123456789.png", sha256: "ab", bytes: 1234,
            contentType: "image/png",
            title: title, metadata: metadata, firstSeen: Date(timeIntervalSince1970: 0),
            lastChecked: Date(timeIntervalSince1970: 0))
    }

    @Test("catalog text is escaped everywhere it is rendered")
    func escapes() throws {
        let publisher = MirrorPublisher(
            layout: MirrorLayout(root: URL(fileURLWithPath: "/tmp/unused")), template: try SiteTemplate.embedded(),
            itemsPerPage: 10)
        let hostile = "<img src=x onerror=alert(1)>\"'&"
        let manifest = Manifest(
            source: "http://h/?q=<script>", generatedAt: Date(), items: [item(hostile, metadata: ["<b>k</b>": "<i>v</i>"])],
            rejected: [])
        let html = try #require(publisher.render(manifest).first)
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<script>"))
        #expect(!html.contains("<b>k</b>"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"))
    }

    @Test("a page is rendered again only when its inputs or its file changed")
    func pageSkipping() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, publisher) = try publisher(in: directory, itemsPerPage: 2)
        var items = (0..<5).map { index in item("t\(index)", number: index) }
        var manifest = Manifest(source: "http://h/", generatedAt: Date(), items: items, rejected: [])
        #expect(try await publisher.publish(manifest) == .init(rendered: 3, skipped: 0))
        let pages = publisher.render(manifest)

        // Nothing changed but the time: nothing is rendered.
        manifest.generatedAt = Date(timeIntervalSinceNow: 3600)
        #expect(try await publisher.publish(manifest) == .init(rendered: 0, skipped: 3))

        // A page edited by hand is rendered again and restored; a deleted one too.
        let second = layout.root.appendingPathComponent("page-2.html")
        try Data("defaced".utf8).write(to: second)
        try FileManager.default.removeItem(at: layout.root.appendingPathComponent("page-3.html"))
        #expect(try await publisher.publish(manifest) == .init(rendered: 2, skipped: 1))
        #expect(String(decoding: try Data(contentsOf: second), as: UTF8.self) == pages[1])

        // One item's title changes: only its page.
        items[4] = item("renamed", number: 4)
        manifest.items = items
        #expect(try await publisher.publish(manifest) == .init(rendered: 1, skipped: 2))
        #expect(
            String(decoding: try Data(contentsOf: layout.root.appendingPathComponent("page-3.html")), as: UTF8.self).contains(
                "renamed"))

        // A template that shows generatedAt is rendered every time.
        #expect(PageFingerprints.canSkip(templateSource: "<p>{{siteTitle}}</p>{{#items}}{{title}}{{/items}}"))
        for source in ["{{generatedAt}}", "{{.}}", "{{{ . }}}", "{{#items}}{{.}}{{/items}}", "{{=<% %>=}}<%x%>"] {
            #expect(!PageFingerprints.canSkip(templateSource: source), "\(source)")
        }
    }

    @Test("a site made from the same input as last time is not worked out again; a file of it changed on disk is")
    func siteSkipping() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, publisher) = try publisher(in: directory, itemsPerPage: 2)
        var items = (0..<5).map { index in item("t\(index)", number: index) }
        var manifest = Manifest(source: "http://h/", generatedAt: Date(), items: items, rejected: [])
        #expect(try await publisher.publish(manifest) == .init(rendered: 3, skipped: 0))
        let feedURL = layout.root.appendingPathComponent(AtomFeed.fileName)
        let searchURL = layout.root.appendingPathComponent(SearchIndex.fileName)
        let (feed, search) = (try Data(contentsOf: feedURL), try Data(contentsOf: searchURL))
        let fingerprintsURL = layout.state.appendingPathComponent("pages.json")
        #expect(try #require(PageFingerprints.read(from: fingerprintsURL)).site != nil)

        // A re-sync that confirmed every item: only generatedAt and lastChecked differ.
        manifest.generatedAt = Date(timeIntervalSinceNow: 3600)
        manifest.items = items.map { item in
            var item = item
            item.lastChecked = Date(timeIntervalSince1970: 86_400)
            return item
        }
        #expect(try await publisher.publish(manifest) == .init(rendered: 0, skipped: 3))

        // The feed deleted and the search index defaced by hand: both are written again.
        try FileManager.default.removeItem(at: feedURL)
        try Data("defaced".utf8).write(to: searchURL)
        #expect(try await publisher.publish(manifest) == .init(rendered: 0, skipped: 3))
        #expect(try Data(contentsOf: feedURL) == feed)
        #expect(try Data(contentsOf: searchURL) == search)

        // With the site's input unchanged, no page's own input is worked out: pages whose
        // recorded inputs no longer match are left alone, since their files are as written.
        var fingerprints = try #require(PageFingerprints.read(from: fingerprintsURL))
        for name in fingerprints.pages.keys { fingerprints.pages[name]?.input = "stale" }
        try JSONCoding.encode(fingerprints).write(to: fingerprintsURL)
        #expect(try await publisher.publish(manifest) == .init(rendered: 0, skipped: 3))

        // One title changes: the site's input differs, and the pages are worked out one by one.
        items[4] = item("renamed", number: 4)
        manifest.items = items
        #expect(try await publisher.publish(manifest).rendered == 3)
        #expect(
            String(decoding: try Data(contentsOf: layout.root.appendingPathComponent("page-3.html")), as: UTF8.self).contains(
                "renamed"))
        #expect(try await publisher.publish(manifest) == .init(rendered: 0, skipped: 3))
    }

    @Test("the site's input is every field of every item but lastChecked")
    func siteInput() throws {
        let template = try SiteTemplate.embedded().pageSource
        let base = Manifest.Item(
            key: "http://h/a.png", path: "images/a-1.png", sha256: String(repeating: "a", count: 64), bytes: 10,
            contentType: "image/png", title: "A", metadata: ["price": "1"], album: "http://h/", variantOf: "http://h/b.png",
            etag: "\"e\"", lastModified: "Tue, 21 Nov 2026 12:00:00 GMT", firstSeen: Date(timeIntervalSince1970: 0),
            lastChecked: Date(timeIntervalSince1970: 0), width: 4, height: 3)
        func input(_ item: Manifest.Item, generatedAt: Date = Date(timeIntervalSince1970: 0)) -> String {
            PageFingerprints.siteInput(
                of: Manifest(source: "http://h/", generatedAt: generatedAt, items: [item], rejected: []),
                templateSource: template, itemsPerPage: 60)
        }
        var checked = base
        checked.lastChecked = Date(timeIntervalSince1970: 99)
        #expect(input(checked, generatedAt: Date(timeIntervalSince1970: 99)) == input(base))
        let changes: [(String, (inout Manifest.Item) -> Void)] = [
            ("key", { $0.key = "http://h/c.png" }), ("path", { $0.path = "images/a-2.png" }),
            ("sha256", { $0.sha256 = String(repeating: "b", count: 64) }), ("bytes", { $0.bytes = 11 }),
            ("contentType", { $0.contentType = "image/jpeg" }), ("title", { $0.title = nil }),
            ("empty title", { $0.title = "" }), ("metadata", { $0.metadata = ["price": "2"] }),
            ("album", { $0.album = "http://h/2/" }), ("variantOf", { $0.variantOf = nil }),
            ("etag", { $0.etag = nil }), ("lastModified", { $0.lastModified = "" }),
            ("firstSeen", { $0.firstSeen = Date(timeIntervalSince1970: 1) }), ("width", { $0.width = 5 }),
        ]
        var seen: Set<String> = [input(base)]
        for (field, change) in changes {
            var item = base
            change(&item)
            #expect(seen.insert(input(item)).inserted, "\(field)")
        }
    }

    @Test("manifest.json, written beside the pages, replaces the old one only once every page is in place")
    func manifestAfterPages() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, publisher) = try publisher(in: directory, itemsPerPage: 2)
        let first = Manifest(source: "http://h/", generatedAt: Date(), items: (0..<3).map { item("a", number: $0) }, rejected: [])
        try await publisher.publish(first)
        let published = try Data(contentsOf: layout.manifest)
        #expect(published == (try JSONCoding.encode(first)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.temporary.path).isEmpty)

        // A page that cannot be replaced (a folder holds its name): the publish fails, the old
        // manifest stays, and the new one, written meanwhile, is not left behind.
        let second = Manifest(
            source: "http://h/", generatedAt: Date(), items: (0..<5).map { item("b", number: $0) }, rejected: [])
        try FileManager.default.createDirectory(
            at: layout.root.appendingPathComponent("page-3.html"), withIntermediateDirectories: true)
        await #expect(throws: PublishError.self) { try await publisher.publish(second) }
        #expect(try Data(contentsOf: layout.manifest) == published)
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.temporary.path).isEmpty)

        // Once the page can be written, the new manifest is published.
        try FileManager.default.removeItem(at: layout.root.appendingPathComponent("page-3.html"))
        try await publisher.publish(second)
        #expect(try Data(contentsOf: layout.manifest) == (try JSONCoding.encode(second)))
    }

    @Test(
        "a site is named by its input: the same for the same manifest on another disk, another for another; a site served under that name is not written"
    )
    func siteMark() async throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        defer {
            first.cleanup()
            second.cleanup()
        }
        let (_, publisher) = try self.publisher(in: first, itemsPerPage: 2)
        let manifest = Manifest(
            source: "http://h/", generatedAt: Date(), items: (0..<5).map { item("t", number: $0) }, rejected: [])
        let manifestWrite = publisher.beginManifest(manifest)
        let written = try await publisher.prepare(manifest)
        try await publisher.commit(written, manifestWrite: manifestWrite)
        let mark = try #require(written.mark)
        // A publish that finds the site current names it the same.
        let again = try await publisher.prepare(manifest)
        #expect(again.mark == mark)
        #expect(again.outcome.rendered == 0)

        // Another disk with the same manifest, told that site is served, writes nothing,
        let (layout, other) = try self.publisher(in: second, itemsPerPage: 2)
        let leftover = layout.root.appendingPathComponent("page-9.html")
        try Data("<p>left here</p>".utf8).write(to: leftover)
        let served = try await other.prepare(manifest, served: mark)
        #expect(served.mark == mark)
        #expect(served.outcome == .init(rendered: 0, skipped: 0))
        try await other.commit(served, manifestWrite: other.beginManifest(manifest))
        #expect(!FileManager.default.fileExists(atPath: layout.root.appendingPathComponent("index.html").path))
        // and leaves the pages it finds alone: the site is not on this disk to tidy.
        #expect(FileManager.default.fileExists(atPath: leftover.path))
        // and one served under another name, or a changed manifest, is written whole.
        let stale = try await other.prepare(manifest, served: String(repeating: "0", count: 64))
        #expect(stale.mark == mark)
        #expect(stale.outcome.rendered == 3)
        stale.discard()
        var changed = manifest
        changed.items[0].title = "changed"
        let rewritten = try await other.prepare(changed, served: mark)
        #expect(rewritten.mark != nil && rewritten.mark != mark)
        rewritten.discard()
        // Pages per album are part of the site: another count, another name.
        let (_, wider) = try self.publisher(in: second, itemsPerPage: 3)
        let widerSite = try await wider.prepare(manifest, served: mark)
        #expect(widerSite.mark != mark)
        widerSite.discard()
    }

    /// A publisher with the embedded template writing into `directory`, its folders made.
    func publisher(in directory: TemporaryDirectory, itemsPerPage: Int) throws -> (MirrorLayout, MirrorPublisher) {
        let layout = MirrorLayout(root: directory.url)
        for folder in [layout.root, layout.state, layout.temporary] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        return (layout, MirrorPublisher(layout: layout, template: try SiteTemplate.embedded(), itemsPerPage: itemsPerPage))
    }

    /// The pages of a site of `count` items titled "t", `perPage` to a page, as rendered by the
    /// embedded template.
    func renderedPages(items count: Int, perPage: Int) throws -> [String] {
        let publisher = MirrorPublisher(
            layout: MirrorLayout(root: URL(fileURLWithPath: "/tmp/unused")), template: try SiteTemplate.embedded(),
            itemsPerPage: perPage)
        let manifest = Manifest(
            source: "http://h/", generatedAt: Date(), items: (0..<count).map { item("t", number: $0) }, rejected: [])
        return publisher.render(manifest)
    }

    @Test("a page's fingerprint is the hash of its length-prefixed, tagged pieces, as pages.json files already hold")
    func fingerprintBytes() {
        // The pieces, hashed one update each as earlier versions did: fingerprints written by
        // them must still match, or every page of every mirror is rendered again once.
        let long = String(repeating: "é-", count: 12_000)
        let context: [String: Any] = [
            "siteTitle": "Gallery", "count": 3, "flag": true, "bytes": Int64(1 << 40), "long": long,
            "items": [["title": "a", "size": 1], ["title": "b", "metadata": [] as [Any]]] as [Any],
            "generatedAt": "ignored", "other": 2.5,
        ]
        var hasher = SHA256()
        func add(_ text: String, tag: UInt8? = nil) {
            var length = UInt64(text.utf8.count + (tag == nil ? 0 : 1)).littleEndian
            withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
            if let tag { hasher.update(data: [tag]) }
            hasher.update(data: Array(text.utf8))
        }
        func add(string: String) { add(string, tag: UInt8(ascii: "s")) }
        add("pages@\(PageFingerprints.version)")
        add("<p>{{siteTitle}}</p>")
        add("{7")
        add("bytes")
        add("l\(1 << 40)")
        add("count")
        add("i3")
        add("flag")
        add("t")
        add("items")
        add("[2")
        add("{2")
        add("size")
        add("i1")
        add("title")
        add(string: "a")
        add("{2")
        add("metadata")
        add("[0")
        add("title")
        add(string: "b")
        add("long")
        add(string: long)
        add("other")
        add("?2.5")
        add("siteTitle")
        add(string: "Gallery")
        let expected = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        #expect(PageFingerprints.input(of: context, templateSource: "<p>{{siteTitle}}</p>") == expected)
    }

    @Test("pages link to each other with relative links only")
    func pagination() throws {
        let pages = try renderedPages(items: 5, perPage: 2)
        #expect(pages.count == 3)
        #expect(pages[0].contains("href=\"page-2.html\""))
        #expect(pages[2].contains("href=\"index.html\""))
        for page in pages {
            #expect(!page.contains("href=\"http"))
            #expect(!page.contains("src=\"http"))
        }
    }

    @Test("a long album links its first two, its last two and the pages around the current one, with gaps shown")
    func pageWindow() throws {
        // Short albums link every page.
        #expect(MirrorPublisher.pageNumbers(current: 1, count: 1) == [1])
        #expect(MirrorPublisher.pageNumbers(current: 5, count: 9) == Array(1...9))
        #expect(MirrorPublisher.pageNumbers(current: 1, count: 10) == [1, 2, 3, 9, 10])
        #expect(MirrorPublisher.pageNumbers(current: 6, count: 800) == [1, 2, 4, 5, 6, 7, 8, 799, 800])
        #expect(MirrorPublisher.pageNumbers(current: 800, count: 800) == [1, 2, 798, 799, 800])
        // Every page is reachable from the first by following links, and links to its neighbours.
        for count in [10, 11, 50, 833] {
            var reached: Set<Int> = [1]
            var frontier = [1]
            while let page = frontier.popLast() {
                let links = MirrorPublisher.pageNumbers(current: page, count: count)
                #expect(links.contains(page) && links.count <= 2 * MirrorPublisher.pageWindow + 5)
                #expect(page == 1 || links.contains(page - 1))
                #expect(page == count || links.contains(page + 1))
                for link in links where reached.insert(link).inserted { frontier.append(link) }
            }
            #expect(reached == Set(1...count))
        }

        let pages = try renderedPages(items: 40, perPage: 1)
        #expect(pages.count == 40)
        let twentieth = pages[19]
        for linked in [
            "index.html", "page-2.html", "page-18.html", "page-19.html", "page-21.html", "page-22.html",
            "page-39.html", "page-40.html",
        ] {
            #expect(twentieth.contains("href=\"\(linked)\""), "\(linked)")
        }
        #expect(!twentieth.contains("href=\"page-10.html\""))
        #expect(twentieth.components(separatedBy: "<span class=\"gap\">").count == 3)
        #expect(twentieth.contains("aria-current=\"page\">20<"))
    }
}
