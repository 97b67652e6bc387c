import Foundation
import Testing

@testable import MirrorMarkup

/// One feed of the corpus (Tests/MirrorMarkupTests/Fixtures/feeds) and what reading it gives.
struct FeedCase: CustomTestStringConvertible, Sendable {
    let file: String
    /// Each reference as `"photo role url | title"` (no `| title` when untitled), in order.
    let expected: [String]
    let warnings: Int
    /// True when the reader must refuse the document (it is not a feed at all).
    let refused: Bool

    init(_ file: String, _ expected: [String], warnings: Int = 0, refused: Bool = false) {
        self.file = file
        self.expected = expected
        self.warnings = warnings
        self.refused = refused
    }

    var testDescription: String { file }
    var url: String { "http://example.com/feeds/\(file)" }
}

@Suite("The feed corpus")
struct FeedCorpusTests {
    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/feeds")

    static let cases: [FeedCase] = [
        // RSS 2.0: enclosures
        FeedCase("rss20-enclosure.xml", ["0 full http://example.com/img/sunset.jpg | Sunset"]),
        FeedCase("rss20-enclosure-audio.xml", ["0 full http://example.com/cover.png | Cover"]),
        FeedCase(
            "rss20-enclosure-notype.xml",
            ["0 full http://example.com/a.jpg | Untyped image", "1 full http://example.com/image?id=3 | Untyped unknown"]),
        FeedCase("rss20-uppercase-enclosure-type.xml", ["0 full http://example.com/img/UPPER.JPG | Upper"]),
        FeedCase(
            "rss20-relative-urls.xml",
            [
                "0 full http://example.com/img/rel.jpg | Relative", "1 full http://example.com/img/root.jpg | Root relative",
                "2 full http://cdn.example.com/img/cdn.jpg | Protocol relative",
            ]),
        // RSS 2.0: Media RSS
        FeedCase("rss20-media-content.xml", ["0 full http://example.com/img/harbour.jpg | Harbour"]),
        FeedCase(
            "rss20-media-content-multiple.xml",
            [
                // An item of several photos is their album: its title names none of them.
                "0 full http://example.com/img/1.jpg", "1 full http://example.com/img/2.jpg",
                "2 full http://example.com/img/3.jpg",
            ]),
        FeedCase(
            "rss20-media-group.xml",
            [
                "0 full http://example.com/img/g-small.jpg | Grouped", "0 full http://example.com/img/g-large.jpg | Grouped",
                "0 full http://example.com/img/g-medium.jpg | Grouped",
                "0 thumbnail http://example.com/img/g-thumb.jpg | Grouped",
            ]),
        FeedCase("rss20-media-thumbnail-only.xml", ["0 thumbnail http://example.com/img/t.jpg | Only a thumbnail"]),
        FeedCase(
            "rss20-media-content-thumbnail.xml",
            ["0 full http://example.com/img/pier.jpg | Pier", "0 thumbnail http://example.com/img/pier-t.jpg | Pier"]),
        FeedCase(
            "rss20-media-nested-thumbnail.xml",
            [
                "0 full http://example.com/img/left.jpg", "0 thumbnail http://example.com/img/left-t.jpg",
                "1 full http://example.com/img/right.jpg", "1 thumbnail http://example.com/img/right-t.jpg",
            ]),
        FeedCase(
            "rss20-enclosure-and-media.xml",
            ["0 full http://example.com/img/web.jpg | Both", "0 full http://example.com/img/original.jpg | Both"]),
        FeedCase("rss20-enclosure-same-media.xml", ["0 full http://example.com/feeds/img/same.jpg | Same"]),
        FeedCase(
            "rss20-media-plus-description.xml",
            [
                "0 full http://example.com/img/f_b.jpg | Flickr style",
                "0 thumbnail http://example.com/img/f_s.jpg | Flickr style",
                "0 display http://example.com/img/f_m.jpg | Flickr style",
            ]),
        FeedCase("rss20-media-title-description.xml", ["0 full http://example.com/img/untitled.jpg | Media Title"]),
        FeedCase("rss20-media-namespace-noslash.xml", ["0 full http://example.com/img/noslash.jpg | No slash"]),
        FeedCase(
            "rss20-undeclared-media-prefix.xml",
            [
                "0 full http://example.com/img/undeclared.jpg | Undeclared",
                "0 thumbnail http://example.com/img/undeclared-t.jpg | Undeclared",
            ], warnings: 1),
        // RSS 2.0: HTML in the item
        FeedCase("rss20-description-img.xml", ["0 display http://example.com/img/escaped.jpg | Escaped"]),
        FeedCase("rss20-description-cdata.xml", ["0 display http://example.com/img/cdata.png | CDATA"]),
        // A caption the item's content gives its one photo is the photo's own title.
        FeedCase("rss20-content-encoded.xml", ["0 display http://example.com/img/encoded.webp | Cap"]),
        FeedCase("rss20-description-and-encoded-same.xml", ["0 display http://example.com/img/twice.jpg | Twice"]),
        FeedCase(
            "rss20-description-two-images.xml",
            [
                "0 full http://example.com/img/main.jpg", "1 display http://example.com/img/side1.jpg",
                "2 display http://example.com/img/side2.jpg",
            ]),
        FeedCase("rss20-xhtml-body.xml", ["0 display http://example.com/img/xbody.jpg | XHTML body"]),
        FeedCase("rss20-item-no-images.xml", []),
        // xml:base
        FeedCase("rss20-xml-base-channel.xml", ["0 full http://static.example.com/gallery/photo.jpg | Based"]),
        FeedCase(
            "rss20-xml-base-nested.xml",
            [
                "0 full http://cdn.example.com/base/photos/2026/full/a.jpg | Nested",
                "0 thumbnail http://cdn.example.com/base/photos/2026/thumbs/a.jpg | Nested",
                "1 full http://cdn.example.com/base/photos/b.jpg | Outer only",
            ]),
        FeedCase("rss20-xml-base-description.xml", ["0 display http://img.example.org/d/in-desc.jpg | Desc base"]),
        FeedCase(
            "atom10-xml-base.xml",
            [
                "0 full http://example.org/blog/entries/7/full.png | Based entry",
                "0 display http://example.org/blog/html/inline.png | Based entry",
            ]),
        FeedCase("atom10-xml-base-xhtml.xml", ["0 display http://media.example.net/x/pic.jpg | XHTML base"]),
        // Encodings
        FeedCase("rss20-userland-namespace.xml", ["0 full http://example.com/img/userland.jpg | Namespaced"]),
        FeedCase("rss20-iso-8859-1.xml", ["0 full http://example.com/img/cafe.jpg | Café’s terrace"]),
        FeedCase("rss20-windows-1252.xml", ["0 full http://example.com/img/quoted.jpg | “Quoted” – dash"]),
        FeedCase("rss20-utf16le.xml", ["0 full http://example.com/img/utf16le.jpg | Über UTF-16"]),
        FeedCase("rss20-utf16be.xml", ["0 full http://example.com/img/utf16be.jpg | 日本"]),
        FeedCase("rss20-utf8-bom.xml", ["0 full http://example.com/img/bom.jpg | BOM é"]),
        // Entities: read unexpanded, never fetched
        FeedCase("rss20-entities-xxe.xml", ["0 full http://example.com/img/xxe.jpg | Leak here"], warnings: 1),
        FeedCase("rss20-billion-laughs.xml", ["0 full http://example.com/img/laughs.jpg"], warnings: 1),
        FeedCase("rss091-netscape-dtd.xml", ["0 display http://example.com/img/old.gif | Old school"]),
        // Ill-formed feeds, read as far as libxml2 recovers
        FeedCase(
            "rss20-illformed-unescaped-amp.xml",
            ["0 full http://example.com/img/fish.jpg | Fish Chips", "1 full http://example.com/img/second.jpg | Second"],
            warnings: 1),
        FeedCase(
            "rss20-illformed-mismatched.xml",
            ["0 full http://example.com/img/bad.jpg | Bad nesting", "1 full http://example.com/img/after.jpg | After"],
            warnings: 1),
        FeedCase(
            "rss20-truncated.xml",
            ["0 full http://example.com/img/whole.jpg | Whole", "1 full http://example.com/img/cut.jpg | Cut off"], warnings: 1),
        FeedCase("rss20-html-entities.xml", ["0 full http://example.com/img/noir.jpg | CafNoir"], warnings: 1),
        // The catalog's own text, kept as written however it looks (SPEC "Titles and albums"):
        // the site escapes it where it shows it.
        FeedCase("rss20-double-escaped-title.xml", ["0 full http://example.com/img/double.jpg | Caf&eacute; &amp; bar"]),
        FeedCase("rss20-garbage-after-root.xml", ["0 full http://example.com/img/garbage.jpg | Before garbage"], warnings: 1),
        FeedCase("rss20-control-characters.xml", ["0 full http://example.com/img/bell.jpg | Bell in title"], warnings: 1),
        // RSS 0.9x and 1.0
        FeedCase("rss092.xml", ["0 full http://example.com/img/092.jpg | 0.92"]),
        FeedCase("rss094.xml", ["0 full http://example.com/img/094.png | 0.94"]),
        FeedCase("rss090.xml", ["0 thumbnail http://example.com/img/090.gif | New Status Updates"]),
        FeedCase("rss10.xml", ["0 display http://example.com/img/rdf.jpg | RDF item"]),
        FeedCase("rss10-content-encoded.xml", ["0 display http://example.com/img/rdf-encoded.png | RDF encoded"]),
        FeedCase("rss10-mod-enclosure.xml", ["0 full http://example.com/img/rdf-enc.jpg | RDF enclosure"]),
        FeedCase("rss10-media.xml", ["0 full http://example.com/img/rdf-media.jpg | RDF media"]),
        // Atom 1.0
        FeedCase("atom10-enclosure.xml", ["0 full http://example.com/img/atom-enc.jpg | Atom enclosure"]),
        FeedCase("atom10-content-html.xml", ["0 display http://example.com/img/atom-html.jpg | HTML content"]),
        FeedCase("atom10-content-xhtml.xml", ["0 display http://example.com/img/atom-xhtml.png | XHTML content"]),
        FeedCase("atom10-summary-html.xml", ["0 display http://example.com/img/atom-summary.gif | Summary"]),
        FeedCase("atom10-content-src.xml", ["0 full http://example.com/img/atom-src.jpg | Out of line"]),
        FeedCase(
            "atom10-media.xml",
            [
                "0 full http://example.com/img/atom-media.jpg | Atom media",
                "0 thumbnail http://example.com/img/atom-media-t.jpg | Atom media",
            ]),
        FeedCase(
            "atom10-media-group.xml",
            [
                "0 full http://example.com/img/ag-1.jpg | Atom group", "0 full http://example.com/img/ag-2.jpg | Atom group",
                "0 thumbnail http://example.com/img/ag-t.jpg | Atom group",
            ]),
        FeedCase(
            "atom10-title-html.xml",
            [
                "0 full http://example.com/img/emph.jpg | Emphatic title",
                "1 full http://example.com/img/xtitle.jpg | Inline xhtml",
            ]),
        FeedCase("atom10-text-content.xml", []),
        FeedCase("atom10-no-namespace.xml", ["0 full http://example.com/img/bare.jpg | Bare entry"]),
        FeedCase(
            "atom10-flickr.xml",
            ["0 full http://example.com/img/fl_b.jpg | Flickr photo", "0 display http://example.com/img/fl_m.jpg | Flickr photo"]),
        FeedCase(
            "atom10-multiple-enclosures.xml",
            ["0 full http://example.com/img/set-1.jpg", "1 full http://example.com/img/set-2.jpg"]),
        // Atom 0.3
        FeedCase("atom03-enclosure.xml", ["0 full http://example.com/img/a03-enc.jpg | Old enclosure"]),
        FeedCase("atom03-escaped.xml", ["0 display http://example.com/img/a03-escaped.jpg | Escaped"]),
        FeedCase("atom03-base64.xml", ["0 display http://example.com/img/a03-base64.png | Base64"]),
        FeedCase("atom03-xml-mode.xml", ["0 display http://example.com/img/a03-xml.jpg | Inline XML"]),
        FeedCase("atom03-summary.xml", ["0 display http://example.com/img/a03-summary.jpg | Summary 0.3"]),
        FeedCase("atom03-no-mode-html.xml", ["0 display http://example.com/img/a03-nomode.jpg | No mode"]),
        // Sitemaps and JSON Feed
        FeedCase(
            "sitemap-images.xml",
            [
                "0 display http://example.com/img/sm-1.jpg | Sitemap one",
                "1 display http://example.com/img/sm-2.jpg | Second caption",
            ]),
        FeedCase("jsonfeed10.json", ["0 display http://example.com/img/jf-light.jpg | Lighthouse"]),
        FeedCase(
            "jsonfeed11.json",
            [
                "0 full http://example.com/img/jf-dunes-full.jpg | Dunes",
                "0 display http://example.com/img/jf-dunes-web.jpg | Dunes",
                "1 display http://example.com/img/jf-dunes-banner.jpg | Dunes", "2 display /img/jf-1.png | Two inline",
                "3 display /img/jf-2.png | Two inline",
            ]),
        // Not feeds at all: refused, so the caller can say so
        FeedCase("not-a-feed.html", [], refused: true),
        FeedCase("not-a-feed-svg.xml", [], refused: true),
        FeedCase("empty.xml", [], refused: true),
        FeedCase("not-xml.txt", [], refused: true),
    ]

    static func describe(_ references: [ImageReference]) -> [String] {
        references.map { reference in
            let photo = reference.photo.map(String.init) ?? "-"
            let line = "\(photo) \(reference.size.role) \(reference.url)"
            return reference.title.map { "\(line) | \($0)" } ?? line
        }
    }

    static func bytes(_ file: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(file)))
    }

    @Test("every feed of the corpus gives its references, photos and titles", arguments: cases)
    func corpus(_ feed: FeedCase) throws {
        let bytes = try Self.bytes(feed.file)
        if feed.file.hasSuffix(".json") {
            #expect(Self.describe(try JSONReader.read(bytes)) == feed.expected)
            return
        }
        guard !feed.refused else {
            #expect(throws: MarkupError.self) { try FeedScanner.scan(bytes, url: feed.url) }
            return
        }
        let scan = try FeedScanner.scan(bytes, url: feed.url)
        #expect(Self.describe(scan.images) == feed.expected)
        #expect(scan.warnings.count == feed.warnings, "\(scan.warnings)")
        #expect(scan.warnings.allSatisfy { $0.contains(feed.url) && !$0.contains("\n") })
    }

    @Test(
        "streamed in 5-byte chunks, every feed gives what it gives whole", arguments: cases.filter { !$0.file.hasSuffix(".json") }
    )
    func streamed(_ feed: FeedCase) throws {
        let bytes = try Self.bytes(feed.file)
        let parser = FeedStreamParser(url: feed.url)
        var references: [ImageReference] = []
        let outcome = Result { () throws in
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 5, bytes.count)
                references += try bytes[offset..<end].withUnsafeBytes { try parser.feed($0) }
                offset = end
            }
            references += try parser.finish()
        }
        if feed.refused {
            #expect(throws: MarkupError.self) { try outcome.get() }
        } else {
            try outcome.get()
            #expect(Self.describe(references) == feed.expected)
            #expect(parser.warnings.count == feed.warnings)
        }
    }

    @Test("the corpus table names every file of the corpus, and the corpus is large")
    func complete() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).sorted()
        #expect(files == Self.cases.map(\.file).sorted())
        #expect(files.count >= 60)
    }

    @Test("catalog text: title, description without tags, creator and date")
    func metadata() throws {
        let rss = try FeedScanner.scan(Self.bytes("rss20-enclosure.xml"), url: "http://example.com/feeds/rss20-enclosure.xml")
        #expect(
            rss.images.first?.metadata == [
                "description": "A warm evening & a red sky.", "creator": "Ann Example", "date": "Sat, 07 Sep 2002 00:00:01 GMT",
            ])
        #expect(rss.images.first?.declaredLength == 123456)
        #expect(rss.images.first?.declaredType == "image/jpeg")
        let rdf = try FeedScanner.scan(Self.bytes("rss10.xml"), url: "http://example.com/feeds/rss10.xml")
        #expect(
            rdf.images.first?.metadata == ["description": "described", "creator": "Rdf Author", "date": "2026-01-02T03:04:05Z"])
        let atom = try FeedScanner.scan(Self.bytes("atom10-enclosure.xml"), url: "http://example.com/feeds/atom10-enclosure.xml")
        #expect(
            atom.images.first?.metadata == [
                "description": "Short summary", "creator": "Atom Author", "date": "2025-12-31T10:00:00Z",
            ])
        let media = try FeedScanner.scan(
            Self.bytes("rss20-media-title-description.xml"), url: "http://example.com/feeds/rss20-media-title-description.xml")
        #expect(media.images.first?.metadata["description"] == "Bold words")
        let sizes = try FeedScanner.scan(Self.bytes("rss20-media-group.xml"), url: "http://example.com/feeds/x")
        #expect(sizes.images.map(\.size.width) == [320, 2048, 1024, 100])
        let same = try FeedScanner.scan(Self.bytes("rss20-enclosure-same-media.xml"), url: "http://example.com/feeds/x")
        #expect(same.images.first?.declaredLength == 40000)
        #expect(same.images.first?.size.width == 800)
    }

    @Test("the HTTP charset overrides the XML declaration; a BOM overrides both")
    func httpCharset() throws {
        var latin = Array(#"<?xml version="1.0" encoding="utf-8"?><rss><channel><item><title>"#.utf8)
        latin += [0x43, 0x61, 0x66, 0xE9]  // "Café" in Latin-1
        latin += Array(#"</title><enclosure url="/a.jpg"/></item></channel></rss>"#.utf8)
        let declared = try FeedScanner.scan(latin, url: "http://h/feed")
        #expect(declared.warnings.count == 1)  // not UTF-8 after all; libxml2 recovers as Latin-1
        let header = try FeedScanner.scan(latin, url: "http://h/feed", charset: "ISO-8859-1")
        #expect(header.images.first?.title == "Café")
        #expect(header.warnings.isEmpty)
        let unknown = try FeedScanner.scan(Self.bytes("rss20-utf8-bom.xml"), url: "http://h/feed", charset: "x-no-such-charset")
        #expect(unknown.images.first?.title == "BOM é")
        let bom = try FeedScanner.scan(Self.bytes("rss20-utf16le.xml"), url: "http://h/feed", charset: "utf-8")
        #expect(bom.images.first?.title == "Über UTF-16")
    }
}
