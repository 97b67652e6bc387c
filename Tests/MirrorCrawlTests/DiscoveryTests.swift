import Testing

@testable import MirrorCrawl
@testable import MirrorMarkup
@testable import MirrorValidate

@Suite("Discovery beyond img and enclosures")
struct DiscoveryTests {
    @Test("social-card meta, <noscript> images and inline background images")
    func htmlExtras() throws {
        let page = try HTMLScanner.scan(
            Array(
                """
                <html><head><meta property="og:image" content="/og.png"><meta name="twitter:image" content="tw.jpg">
                <meta property="og:title" content="not an image"><noscript><img src="head-ns.png"></noscript></head>
                <body><noscript><img src="ns.png" alt="No script"></noscript>
                <div style="color: red; background-image: url('bg1.jpg'), url(&quot;bg2.png&quot;)"></div>
                <section style="BACKGROUND: #fff URL( bg3.webp ) no-repeat"></section>
                <p style="border-image: url(not-this.png)">x</p></body></html>
                """.utf8), url: "http://h/")
        #expect(page.images.map(\.url) == ["/og.png", "tw.jpg", "head-ns.png", "ns.png", "bg1.jpg", "bg2.png", "bg3.webp"])
    }

    @Test("a Media RSS group is one photo in several sizes; a lone thumbnail or HTML image is a photo")
    func mediaGroups() throws {
        let xml = """
            <rss xmlns:media="http://search.yahoo.com/mrss/"><channel>
            <item><title>Big</title><media:group>
              <media:content url="/s.jpg" width="100" height="100"/><media:content url="/l.jpg" width="1600" height="1200"/>
              <media:content url="/m.jpg" width="800" height="600"/><media:thumbnail url="/t.jpg"/></media:group></item>
            <item><title>Thumb only</title><media:thumbnail url="/only-thumb.jpg"/></item>
            <item><title>HTML only</title><description>&lt;p&gt;&lt;img src="/in-description.png"&gt;&lt;/p&gt;</description></item>
            </channel></rss>
            """
        let scan = try FeedScanner.scan(Array(xml.utf8), url: "http://h/feed")
        #expect(
            scan.images.map(\.url) == [
                "http://h/s.jpg", "http://h/l.jpg", "http://h/m.jpg", "http://h/t.jpg", "http://h/only-thumb.jpg",
                "http://h/in-description.png",
            ])
        #expect(scan.images.map(\.photo) == [0, 0, 0, 0, 1, 2])
        #expect(scan.images.map(\.size.role) == [.full, .full, .full, .thumbnail, .thumbnail, .display])
        #expect(scan.images.map(\.size.width) == [100, 1600, 800, nil, nil, nil])
        #expect(scan.images.map(\.title) == ["Big", "Big", "Big", "Big", "Thumb only", "HTML only"])
    }

    @Test("Atom <content type=\"html\"> yields the images in it")
    func atomContent() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><title>Post</title>
            <content type="html">&lt;p&gt;Look: &lt;img src="/a.png" alt="Apple tree"&gt; and &lt;img srcset="/b.png 2x"&gt;&lt;/p&gt;</content>
            </entry><entry><title>Text</title><content type="text">&lt;img src="/not.png"&gt;</content></entry></feed>
            """
        let scan = try FeedScanner.scan(Array(xml.utf8), url: "http://h/atom")
        #expect(scan.images.map(\.url) == ["http://h/a.png", "http://h/b.png"])
        // Two photos: the entry is their album, its title names neither; the alt text titles one.
        #expect(scan.images.map(\.title) == ["Apple tree", nil])
    }

    @Test("image sitemaps and sitemap indexes")
    func sitemaps() throws {
        let urlset = """
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
            <url><loc>http://h/page</loc><image:image><image:loc>http://h/a.png</image:loc><image:title>Alpha</image:title></image:image>
            <image:image><image:loc>/b.jpg</image:loc><image:caption>Beta caption</image:caption></image:image></url>
            <url><loc>http://h/no-images</loc></url></urlset>
            """
        let scan = try FeedScanner.scan(Array(urlset.utf8), url: "http://h/sitemap.xml")
        #expect(scan.kind == .sitemap)
        #expect(scan.images.map(\.url) == ["http://h/a.png", "http://h/b.jpg"])
        #expect(scan.images.map(\.title) == ["Alpha", "Beta caption"])
        let index = """
            <sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
            <sitemap><loc>http://h/s1.xml</loc></sitemap><sitemap><loc>/s2.xml</loc></sitemap></sitemapindex>
            """
        #expect(try FeedScanner.scan(Array(index.utf8), url: "http://h/index.xml").sitemaps == ["http://h/s1.xml", "/s2.xml"])
    }

    @Test("JSON Feed 1.1: item images and image attachments")
    func jsonFeed() throws {
        let json = """
            {"version": "https://jsonfeed.org/version/1.1", "title": "F", "items": [
              {"id": "1", "title": "One", "summary": "First", "image": "/1.png",
               "attachments": [{"url": "/1-full.jpg", "mime_type": "image/jpeg", "size_in_bytes": 2048},
                               {"url": "/1.mp3", "mime_type": "audio/mpeg"}]},
              {"id": "2", "content_text": "no images"}]}
            """
        let images = try JSONReader.read(Array(json.utf8))
        #expect(images.map(\.url) == ["/1-full.jpg", "/1.png"])
        #expect(images.map(\.photo) == [0, 0])
        #expect(images.map(\.size.role) == [.full, .display])
        #expect(images[0].declaredLength == 2048)
        #expect(images.allSatisfy { $0.title == "One" && $0.metadata["description"] == "First" })
    }

    @Test("robots.txt Sitemap lines and Crawl-delay")
    func robotsExtras() {
        let text = """
            Sitemap: http://h/sitemap-index.xml
            User-agent: *
            Crawl-delay: 2
            Disallow: /x
            User-agent: catalog-mirror
            Crawl-delay: 0.5
            Sitemap: /relative.xml
            """
        let ours = RobotsTxt(parsing: text, userAgent: "catalog-mirror")
        #expect(ours.sitemaps == ["http://h/sitemap-index.xml", "/relative.xml"])
        #expect(ours.crawlDelay == .milliseconds(500))
        #expect(RobotsTxt(parsing: text, userAgent: "other").crawlDelay == .seconds(2))
        #expect(RobotsTxt(parsing: "User-agent: *\nCrawl-delay: 99999", userAgent: "x").crawlDelay == .seconds(60))
    }
}

@Suite("Large feeds")
struct LargeFeedTests {
    /// The n-th chunk of a 100,000-item RSS feed, generated on demand (never whole in memory).
    static func chunk(_ index: Int, items: Int, perChunk: Int) -> [UInt8]? {
        let first = index * perChunk
        guard first < items else { return nil }
        var text =
            index == 0
            ? "<?xml version=\"1.0\"?><rss xmlns:media=\"http://search.yahoo.com/mrss/\"><channel><title>Big</title>" : ""
        for item in first..<min(first + perChunk, items) {
            text +=
                "<item><title>Item \(item)</title><description>A description of item \(item), long enough to matter.</description>"
            text += "<media:content url=\"http://h/img/\(item).jpg\" medium=\"image\" width=\"800\" height=\"600\"/></item>\n"
        }
        if first + perChunk >= items { text += "</channel></rss>" }
        return Array(text.utf8)
    }

    @Test("a 100,000-item feed streams through with one item's memory; items come out as they close")
    func hundredThousandItems() throws {
        let parser = FeedStreamParser(url: "http://h/feed")
        var count = 0
        var firstOut: Int?
        var maxRetained = 0
        var index = 0
        while let bytes = Self.chunk(index, items: 100_000, perChunk: 500) {
            // Feed in odd-sized pieces so items and tags are split across calls.
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 7_919, bytes.count)
                let out = try bytes[offset..<end].withUnsafeBytes { try parser.feed($0) }
                count += out.count
                if firstOut == nil, count > 0 { firstOut = index }
                maxRetained = max(maxRetained, parser.retainedTextBytes)
                offset = end
            }
            index += 1
        }
        count += try parser.finish().count
        #expect(count == 100_000)
        #expect(firstOut == 0)
        #expect(maxRetained < 64 * 1024)
    }

    @Test("an item too large to keep is cut, not held whole")
    func oversizedItem() throws {
        // A 1 MB title and 10,000 elements, the enclosure after the title, then a second
        // enclosure past the elements an item keeps.
        let parser = FeedStreamParser(url: "http://h/feed")
        var xml = "<rss><channel><item><title>" + String(repeating: "x", count: 1_000_000) + "</title>"
        xml += "<enclosure url=\"/a.png\"/>"
        xml += String(repeating: "<category>c</category>", count: 10_000)
        xml += "<enclosure url=\"/late.png\"/></item></channel></rss>"
        var images = try Array(xml.utf8).withUnsafeBytes { try parser.feed($0) }
        images += try parser.finish()
        #expect(parser.retainedTextBytes == 0)
        // The item still comes out with what it kept: its first enclosure, its title cut.
        #expect(images.map(\.url) == ["http://h/a.png"], "\(images.map(\.url))")
        let title = try #require(images.first?.title)
        #expect(title.utf8.count > 0 && title.utf8.count < 1_000_000, "\(title.utf8.count)")
    }
}
