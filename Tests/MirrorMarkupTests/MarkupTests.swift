import Foundation
import Testing

@testable import MirrorCore
@testable import MirrorMarkup

@Suite("HTML extraction with libxml2")
struct HTMLScannerTests {
    func scan(_ html: String, encoding: String? = nil) throws -> PageScan {
        try HTMLScanner.scan(Array(html.utf8), url: "http://example.com/gallery/", encoding: encoding)
    }

    @Test("HTML in catalog text reads as a reader sees it: blocks and <br> separate words, a stock link to the image goes")
    func readableText() {
        let cases: [(String, String?)] = [
            // sigal's galleria description: a "Full size" link to the original, then the text.
            (
                "<a href='original/alpine-lake.jpg'>Full size</a><br><p>A photo called Alpine Lake at Dawn.</p>",
                "A photo called Alpine Lake at Dawn."
            ),
            ("<a href='original/autumn-maple.jpg'>Full size</a>", nil),
            ("<p>One</p><p>Two</p>Three", "One Two Three"),
            ("Line<br>break<br/>again", "Line break again"),
            ("<ul><li>a</li><li>b</li></ul>c<h2>d</h2><table><tr><td>e</td><td>f</td></tr></table>", "a b c d e f"),
            // Inline elements join as written; only block edges separate.
            ("caf<b>é</b> au <span>lait</span>, <em>s</em>ure", "café au lait, sure"),
            ("<script>var x = '<p>no</p>';</script><style>p{}</style>Text", "Text"),
            // A link that says something, or a stock link to a page, stays.
            ("<a href='big/sunset.jpg'>Sunset at sea</a>", "Sunset at sea"),
            ("<a href='slide_2.html'>Full size</a> view", "Full size view"),
            ("<div><div><p>deep</p></div>er</div>", "deep er"),
            ("Fish &amp; chips &eacute;t&eacute;", "Fish & chips été"),
            ("plain text, no markup", "plain text, no markup"),
        ]
        for (html, text) in cases {
            #expect(FeedScanner.plainText(html, isHTML: true) == text, "\(html)")
        }
    }

    @Test("finds src, srcset, lazy variants, picture sources and image links")
    func findsEveryImageForm() throws {
        let page = try scan(
            """
            <html><body>
            <img src="a.png" alt="A">
            <img srcset="b-1x.png 1x, b,2x.png 2x" data-src="b-lazy.png">
            <img data-srcset="c-320.jpg 320w, c-640.jpg 640w">
            <picture><source srcset="d.webp" type="image/webp"><img src="d.jpg" alt="Dee"></picture>
            <a href="full/e.JPG?v=2" title="Full E">E</a>
            <a href="page.html">not an image</a>
            <script>var x = '<img src="script.png">';</script>
            </body></html>
            """)
        #expect(
            page.images.map(\.url) == [
                "a.png", "b-lazy.png", "b-1x.png", "b,2x.png", "c-320.jpg", "c-640.jpg", "d.webp", "d.jpg", "full/e.JPG?v=2",
            ])
        #expect(page.images.first { $0.url == "d.webp" }?.title == "Dee")
        #expect(page.images.first { $0.url == "d.webp" }?.declaredType == "image/webp")
        #expect(page.images.first { $0.url == "full/e.JPG?v=2" }?.title == "Full E")
    }

    @Test("a numeric reference libxml2 would cut a value at is read as the HTML Standard reads it; scripts keep theirs")
    func numericReferences() throws {
        // libxml2 reads `&#xB;`, `&#0;` or `&#xD800;` as a NUL and ends the attribute there;
        // the HTML Standard keeps a control and reads the others as U+FFFD.
        let page = try scan(
            """
            <html><head><script>var s = "k&#11;l.png";</script><style>p{}</style></head><body>
            <img src="a&#xB;b.png"><img src="c&#0;d.png"><img src="e&#xD800;f&#x110000;g.png"><img src="h&#X0c;i.png">
            <img src="j&#11k.png"><!-- <img src="&#1;"> --><img src="o&#9;p&#x7f;q.png">
            <SCRIPT type="text/javascript">var t = "&#1;";</script><img src="r&#00000000000000000031;s.png">
            </body></html>
            """,
            encoding: "UTF-8")
        #expect(
            page.images.map(\.url) == [
                "a\u{B}b.png", "c\u{FFFD}d.png", "e\u{FFFD}f\u{FFFD}g.png", "h\u{C}i.png", "j\u{B}k.png", "op\u{7F}q.png",
                "r\u{1F}s.png",
            ])
        #expect(page.scripts == ["var s = \"k&#11;l.png\";", "var t = \"&#1;\";"])
    }

    @Test("a page's references are kept in chunks: order, flags set after the fact and the joined array hold across them")
    func referenceChunks() throws {
        var references = PageReading.References()
        for number in 0..<1_300 { references.append(ImageReference(url: "\(number).jpg", photo: number)) }
        for index in 500..<530 { references[index].isDecoration = true }
        #expect(references.count == 1_300)
        #expect(references[1_299].url == "1299.jpg")
        let all = references.joined()
        #expect(all.map(\.url) == (0..<1_300).map { "\($0).jpg" })
        #expect(all.indices.filter { all[$0].isDecoration } == Array(500..<530))
        #expect(references.count == 0)

        // Through a page: an icon whose references straddle a chunk's end is decoration whole.
        let images = (0..<700).map { "<a href=\"p\($0).jpg\"><img src=\"t\($0).jpg\" alt=\"photo \($0)\"></a>" }
        let icon = "<img class=\"icon\" src=\"i.png\" srcset=\"i1.png 1x, i2.png 2x, i3.png 3x\">"
        let page = try scan("<body>" + images[..<255].joined() + icon + images[255...].joined() + "</body>")
        #expect(page.images.count == 1_404)
        #expect(page.images.indices.filter { page.images[$0].isDecoration } == Array(510..<514))
        #expect(page.images.last?.url == "t699.jpg")
        #expect(page.images.last?.title == "photo 699")
    }

    @Test("recovers from broken markup")
    func brokenMarkup() throws {
        let page = try scan("<div><p><img src=one.png alt=One<img src='two.png'></div></span><table><tr><td><img src=three.gif>")
        #expect(page.images.map(\.url).contains("three.gif"))
        #expect(page.images.map(\.url).contains("one.png"))
    }

    @Test("reads base href, feeds and pagination")
    func baseFeedsPagination() throws {
        let page = try scan(
            """
            <html><head><base href="/static/"><base href="/ignored/">
            <link rel="alternate" type="application/rss+xml" href="feed.rss">
            <link rel="Alternate" type="application/atom+xml; charset=utf-8" href="atom.xml">
            <link rel="alternate" type="text/css" href="not-a-feed.css">
            <link rel="next" href="?page=2"></head>
            <body><nav><a href="?page=1">1</a> <a href="?page=3">3</a> <a href="/about">About</a></nav></body></html>
            """)
        #expect(page.baseHref == "/static/")
        #expect(page.feeds.map(\.href) == ["feed.rss", "atom.xml"])
        #expect(page.links.map(\.href) == ["?page=2", "?page=1", "?page=3", "/about"])
    }

    @Test("takes titles from figcaption or alt, and data-* fields as metadata")
    func catalogText() throws {
        let page = try scan(
            """
            <figure data-price="12.50" data-sku="A-1"><div><img src="x.png" alt="Alt text" data-colour="red"></div>
            <figcaption>  Smiling   Face </figcaption></figure>
            """)
        let image = try #require(page.images.first)
        #expect(image.title == "Smiling Face")
        #expect(image.titleSource == .caption)
        #expect(image.metadata == ["price": "12.50", "sku": "A-1", "colour": "red", "alt": "Alt text"])
    }

    @Test("decodes ISO-8859-1 from the header or from <meta charset>")
    func charset() throws {
        let latin1: [UInt8] =
            Array("<html><head><meta charset=\"iso-8859-1\"></head><body><img src=\"a.png\" alt=\"Caf".utf8) + [0xE9]
            + Array(" cr".utf8) + [0xE8] + Array("me\"></body></html>".utf8)
        let fromMeta = try HTMLScanner.scan(latin1, url: "http://h/", encoding: nil)
        #expect(fromMeta.images.first?.title == "Café crème")
        let noMeta: [UInt8] = Array("<html><body><img src=\"a.png\" alt=\"Caf".utf8) + [0xE9] + Array("\"></body></html>".utf8)
        let fromHeader = try HTMLScanner.scan(noMeta, url: "http://h/", encoding: "ISO-8859-1")
        #expect(fromHeader.images.first?.title == "Café")
    }

    @Test("an empty or binary body yields an empty scan, not a crash")
    func emptyAndBinary() throws {
        #expect(try scan("").images.isEmpty)
        let noise = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        _ = try HTMLScanner.scan(noise, url: "http://h/", encoding: nil)
    }

    @Test(
        "srcset candidates follow the HTML standard's parser",
        arguments: [
            ("a.png 1x, b.png 2x", ["a.png", "b.png"]),
            ("a,b.png 1x,c.png", ["a,b.png", "c.png"]),
            ("x.png,, y.png", ["x.png", "y.png"]),
            ("  img.png  ", ["img.png"]),
            // A descriptor the Standard does not know drops its candidate.
            ("a.png (min-width: 1px, max-width: 2px) 1x, b.png", ["b.png"]),
            ("", []),
        ])
    func srcset(value: String, expected: [String]) {
        #expect(Srcset.candidates(value).map(\.url) == expected)
    }
}

@Suite("Feed extraction with libxml2")
struct FeedScannerTests {
    @Test("reads RSS enclosures and Media RSS, with titles and lengths")
    func rss() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>T</title>
            <item><title>One</title><description>&lt;p&gt;First &lt;b&gt;image&lt;/b&gt;&lt;/p&gt;</description>
              <enclosure url="http://h/1.jpg" type="image/jpeg" length="1234"/></item>
            <item><title>Two</title><media:content url="/2.png" medium="image" fileSize="99"/>
              <media:content url="/2.mp4" medium="video"/></item>
            <item><media:group><media:content url="/3.png"/></media:group><media:title>Three</media:title></item>
            </channel></rss>
            """
        let scan = try FeedScanner.scan(Array(xml.utf8), url: "http://h/feed")
        #expect(scan.kind == .rss)
        #expect(scan.images.map(\.url) == ["http://h/1.jpg", "http://h/2.png", "http://h/3.png"])
        #expect(scan.images.map(\.photo) == [0, 1, 2])
        #expect(scan.images[2].title == "Three")
        #expect(scan.images[0].title == "One")
        #expect(scan.images[0].declaredLength == 1234)
        #expect(scan.images[0].metadata["description"] == "First image")
        #expect(scan.images[1].declaredLength == 99)
    }

    @Test("reads Atom enclosure links")
    func atom() throws {
        let xml = """
            <feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>
            <entry><title>Sunset</title><summary>Warm</summary>
            <link rel="alternate" href="/post/1"/><link rel="enclosure" type="image/png" href="/img/1.png"/></entry>
            </feed>
            """
        let scan = try FeedScanner.scan(Array(xml.utf8), url: "http://h/atom")
        #expect(scan.kind == .atom)
        #expect(scan.images.map(\.url) == ["http://h/img/1.png"])
        #expect(scan.images[0].title == "Sunset")
    }

    @Test("an item carries nothing over from the items before it (attributes, children, text, xml:base)")
    func itemsAreIndependent() throws {
        // Each item uses the elements the one before used, with fewer attributes, children and
        // text, and in another order; with an xml:base only on the first.
        var items = ""
        for round in 0..<50 {
            items += """
                <item xml:base="http://other/base/"><title>Full \(round)</title><description>About \(round)</description>
                <media:content url="a\(round).jpg" medium="image" width="800" height="600" fileSize="5">
                <media:title>Own \(round)</media:title><media:thumbnail url="t\(round).jpg" width="80"/></media:content>
                <enclosure url="e\(round).jpg" type="image/jpeg" length="40"/></item>
                <item><enclosure url="b\(round).jpg"/><media:content url="c\(round).png"/><title></title></item>

                """
        }
        let xml = """
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel>\(items)</channel></rss>
            """
        let scan = try FeedScanner.scan(Array(xml.utf8), url: "http://h/feed/")
        #expect(scan.images.count == 50 * 5)
        for round in 0..<50 {
            let full = scan.images.filter { $0.photo == round * 2 }
            #expect(
                full.map(\.url) == [
                    "http://other/base/a\(round).jpg", "http://other/base/t\(round).jpg", "http://other/base/e\(round).jpg",
                ])
            #expect(full.first?.size.width == 800 && full.first?.declaredLength == 5)
            #expect(full.first?.metadata["caption"] == "Own \(round)")
            #expect(full.allSatisfy { $0.title == "Full \(round)" && $0.metadata["description"] == "About \(round)" })
            let bare = scan.images.filter { $0.photo == round * 2 + 1 }
            #expect(bare.map(\.url).sorted() == ["http://h/feed/b\(round).jpg", "http://h/feed/c\(round).png"])
            #expect(bare.allSatisfy { $0.title == nil && $0.metadata.isEmpty && $0.size.width == nil })
            #expect(bare.allSatisfy { $0.declaredLength == nil && $0.declaredType == nil })
        }
    }

    @Test("reads a feed that declares entities with them unexpanded, and warns (XXE, billion laughs)")
    func unexpandedEntities() throws {
        let xxe = """
            <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY leak SYSTEM "file:///etc/passwd">]>
            <rss><channel><item><title>A&leak;B</title><enclosure url="http://h/a.png"/></item></channel></rss>
            """
        let scan = try FeedScanner.scan(Array(xxe.utf8), url: "http://h/feed")
        #expect(scan.images.map(\.url) == ["http://h/a.png"])
        #expect(scan.images.first?.title == "AB")
        #expect(scan.warnings == ["the feed http://h/feed declares XML entities (leak); read with them left unexpanded"])
        var bomb = "<?xml version=\"1.0\"?><!DOCTYPE rss [<!ENTITY a0 \"lol\">"
        for level in 1...9 { bomb += "<!ENTITY a\(level) \"" + String(repeating: "&a\(level - 1);", count: 10) + "\">" }
        bomb += "]><rss><channel><item><title>&a9;</title><enclosure url=\"/b.png\"/></item></channel></rss>"
        let bombed = try FeedScanner.scan(Array(bomb.utf8), url: "http://h/feed")
        #expect(bombed.images.map(\.url) == ["http://h/b.png"])
        #expect(bombed.images.first?.title == nil)
        #expect(bombed.warnings.count == 1)
        #expect(bombed.warnings.first?.contains("a0, a1, a2, a3, a4, ...") == true)
    }

    @Test("refuses HTML and other XML where a feed was expected")
    func refusesNonFeeds() throws {
        let cases: [(document: String, code: MarkupError.Code)] = [
            ("<html><body>oops</body></html>", .notAFeed),
            ("<svg xmlns='http://www.w3.org/2000/svg'/>", .notAFeed),
            ("", .notADocument),
            ("   \n", .notADocument),
            (#"{"version": 1}"#, .notADocument),
        ]
        for (document, code) in cases {
            let error = #expect(throws: MarkupError.self) { try FeedScanner.scan(Array(document.utf8), url: "http://h/") }
            #expect(error?.code == code, "\(document.debugDescription): \(error.map { "\($0.code): \($0)" } ?? "no error")")
        }
        // A truncated feed is a feed: read as far as it goes, with a warning.
        let truncated = try FeedScanner.scan(Array("<rss><channel><item><enclosure url='/a.jpg'/>".utf8), url: "http://h/")
        #expect(truncated.images.map(\.url) == ["http://h/a.jpg"])
        #expect(truncated.warnings.count == 1)
    }
}

@Suite("JSON listings")
struct JSONListingTests {
    @Test("reads the EmojiArt shape; one URL listed twice is one photo")
    func emojiArt() throws {
        let json = """
            [{"name": "Smiling Face", "url": "http://h/gallery/image?1", "price": "12.50"},
             {"name": "Star", "url": "image?2", "price": 3.5, "bytes": 2048, "inStock": true},
             {"name": "Smiling Face", "url": "http://h/gallery/image?1", "price": "12.50"},
             {"name": "no url"}]
            """
        let images = try JSONReader.read(Array(json.utf8))
        #expect(images.map(\.url) == ["http://h/gallery/image?1", "image?2"])
        #expect(images.map(\.photo) == [0, 1])
        #expect(images[0].title == "Smiling Face")
        #expect(images[0].titleSource == .catalog)
        #expect(images[0].metadata == ["price": "12.50"])
        #expect(images[1].metadata["price"] == "3.5")
        #expect(images[1].metadata["inStock"] == "true")
        #expect(images[1].declaredLength == 2048)
    }

    @Test("reads a listing wrapped in an object")
    func wrapped() throws {
        let images = try JSONReader.read(Array(#"{"count": 1, "images": [{"src": "/a.png", "title": "A"}]}"#.utf8))
        #expect(images.map(\.url) == ["/a.png"])
    }

    @Test("refuses what is not JSON; JSON without images gives none")
    func refuses() throws {
        #expect(throws: JSONReader.Failure.self) { try JSONReader.read(Array("<html>".utf8)) }
        #expect(throws: JSONReader.Failure.self) { try JSONReader.read([]) }
        #expect(try JSONReader.read(Array(#"{"error": "nope"}"#.utf8)).isEmpty)
        #expect(try JSONReader.read(Array("[1, 2, 3]".utf8)).isEmpty)
    }
}
