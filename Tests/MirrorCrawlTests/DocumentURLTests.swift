import Testing

@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorMarkup

/// URLs read out of pages and feeds as browsers read them: the value libxml2 gives for an
/// attribute goes to the URL Standard's basic URL parser untouched, so a tab, LF or CR inside it
/// is removed (as browsers read them), not made a space by white-space collapsing.
@Suite("URLs in documents, read through libxml2 as browsers read them")
struct DocumentURLTests {
    @Test(
        "a tab, LF or CR in src and href is removed, written raw or as a character reference",
        arguments: DocumentURLCases.tabsAndNewlines, [false, true])
    func tabsAndNewlines(row: DocumentURLCases.Row, asReferences: Bool) throws {
        let value = DocumentURLCases.attributeValue(row.input, controlsAsReferences: asReferences)
        let html = "<!doctype html><meta charset=utf-8><img src=\"\(value)\"><a href=\"\(value)\">next</a>"
        let base = try #require(CanonicalURL(row.base))
        let scan = try HTMLScanner.scan(Array(html.utf8), url: base.string)
        let image = try #require(scan.images.first)
        #expect(Crawler.discovery(image, base: base)?.key.string == row.expected)
        #expect(scan.links.map { CanonicalURL($0.href, relativeTo: base)?.string } == [row.expected])
    }

    @Test("a gallery page with a raw tab and a &#x9; inside src and href gives the browser's keys")
    func galleryPage() throws {
        // Given a page whose base, links and image URLs hold tabs and line breaks, raw and as
        // references (a template that wraps long attributes, say)
        let html = """
            <!doctype html><html><head><meta charset=utf-8><title>Trip</title><base href="/gal\tlery/"></head><body>
            <a href="img/p0\t0001.jpg"><img src="thumbs/p0&#x9;0001.jpg" alt="photo 1"></a>
            <a href="http://cdn.ex&#x9;ample/img/p00002.jpg" data-full="full/p0&#xA;0002.jpg"
              ><img src="http://cdn.ex\tample/thumbs/p0000\n2.jpg" alt="photo 2"></a>
            <a href="page&#x9;2.html">next</a></body></html>
            """
        let page = try #require(CanonicalURL("http://example.com/trip/index.html"))

        // When it is read as the crawler reads it
        let scan = try HTMLScanner.scan(Array(html.utf8), url: page.string)
        let base = scan.baseHref.flatMap { CanonicalURL($0, relativeTo: page) } ?? page

        // Then every key is the one a browser requests, and the renditions stay one photo each
        #expect(base.string == "http://example.com/gallery/")
        #expect(
            scan.images.map { Crawler.discovery($0, base: base)?.key.string } == [
                "http://example.com/gallery/img/p00001.jpg", "http://example.com/gallery/thumbs/p00001.jpg",
                "http://cdn.example/img/p00002.jpg", "http://example.com/gallery/full/p00002.jpg",
                "http://cdn.example/thumbs/p00002.jpg",
            ])
        #expect(scan.images.map(\.photo) == [0, 0, 1, 1, 1])
        #expect(scan.links.map { CanonicalURL($0.href, relativeTo: base)?.string } == ["http://example.com/gallery/page2.html"])
    }

    @Test(
        "feeds: a tab or line break in an attribute's reference or in element text is removed; a raw one in an attribute is a space"
    )
    func feeds() throws {
        // XML turns a raw tab, LF or CR in an attribute value into a space (attribute-value
        // normalization, XML 1.0 section 3.3.3) before any reader sees it: a feed reader on a
        // browser's XML parser gets the space, and so does this one. References and element
        // text keep theirs, which the URL parser removes.
        let rss = """
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>T</title>
            <item><title>One</title><enclosure url="http://h/a&#9;1.jpg" type="image/jpeg" length="1"/></item>
            <item><title>Two</title><media:content url="http://h/b&#10;2.jpg&#13;" medium="image"/></item>
            <item><title>Three</title><media:thumbnail url="http://h/c\t3.jpg"/></item>
            </channel></rss>
            """
        let feed = try FeedScanner.scan(Array(rss.utf8), url: "http://h/feed")
        #expect(feed.images.map(\.url) == ["http://h/a1.jpg", "http://h/b2.jpg", "http://h/c%203.jpg"])

        let sitemap = """
            <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
              xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"><url><loc>http://h/p</loc>
            <image:image><image:loc>\n  http://h/photos/d\n4.jpg\n</image:loc></image:image></url></urlset>
            """
        let images = try FeedScanner.scan(Array(sitemap.utf8), url: "http://h/sitemap.xml")
        #expect(images.images.map(\.url) == ["http://h/photos/d4.jpg"])
    }
}

/// Rows from the browsers' own test data: WHATWG urltestdata.json (web-platform-tests,
/// url/resources/urltestdata.json), each cited by its input; `expected` is the row's `href`
/// as a key (no fragment).
enum DocumentURLCases {
    /// One urltestdata.json row: input, base and the key of its `href`.
    struct Row: Sendable, CustomTestStringConvertible {
        let input: String
        let base: String
        let expected: String

        init(_ input: String, base: String = "http://example.org/foo/bar", _ expected: String) {
            self.input = input
            self.base = base
            self.expected = expected
        }

        var testDescription: String { input.debugDescription }
    }

    /// The rows whose input holds a tab, LF or CR and whose result is http(s). Left out: "  \t"
    /// (an attribute of white space alone names no image here), and the row that starts with a
    /// NUL, which a page cannot hold (the HTML Standard reads it as U+FFFD). urltestdata.json
    /// gives absolute inputs no base ("base": null); any base serves.
    static let tabsAndNewlines: [Row] = [
        // urltestdata.json: "http://example\t.\norg", base "http://example.org/foo/bar"
        Row("http://example\t.\norg", "http://example.org/"),
        // urltestdata.json: "\t   :foo.com   \n", base "http://example.org/foo/bar"
        Row("\t   :foo.com   \n", "http://example.org/foo/:foo.com"),
        // urltestdata.json: "http://f:\n/c", base "http://example.org/foo/bar"
        Row("http://f:\n/c", "http://f/c"),
        // urltestdata.json: "http://example.com/foo\t\u0091%91", base null
        Row("http://example.com/foo\t\u{91}%91", "http://example.com/foo%C2%91%91"),
        // urltestdata.json: "http://example.com/foo\tbar", base null
        Row("http://example.com/foo\tbar", "http://example.com/foobar"),
        // urltestdata.json: "http://ho\tst/", "http://ho\nst/", "http://ho\rst/", base null
        Row("http://ho\tst/", "http://host/"),
        Row("http://ho\nst/", "http://host/"),
        Row("http://ho\rst/", "http://host/"),
        // urltestdata.json: "h\tt\nt\rp://h\to\ns\rt:9\t0\n0\r0/p\ta\nt\rh?q\tu\ne\rry#f\tr\na\rg", base null
        Row("h\tt\nt\rp://h\to\ns\rt:9\t0\n0\r0/p\ta\nt\rh?q\tu\ne\rry#f\tr\na\rg", "http://host:9000/path?query"),
    ]

    /// `text` as a double-quoted attribute value; with `controlsAsReferences`, every C0 control
    /// written as a character reference (`&#x9;`).
    static func attributeValue(_ text: String, controlsAsReferences: Bool) -> String {
        var value = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": value += "&amp;"
            case "\"": value += "&quot;"
            case "<": value += "&lt;"
            case _ where controlsAsReferences && scalar.value < 0x20:
                value += "&#x\(String(scalar.value, radix: 16, uppercase: true));"
            default: value.unicodeScalars.append(scalar)
            }
        }
        return value
    }
}
