import Testing

@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorMarkup
@testable import MirrorValidate

/// `srcset` as the HTML Standard's "parse a srcset attribute" reads it. Each expected candidate
/// is written `URL [Nw] [Nx] [Nh]`; a candidate without descriptors is 1x, as the Standard says.
@Suite("srcset (HTML Standard, parse a srcset attribute)")
struct SrcsetTests {
    static func describe(_ candidate: Srcset.Candidate) -> String {
        var text = candidate.url
        if let width = candidate.width { text += " \(width)w" }
        if let density = candidate.density { text += " \(density)x" }
        if let height = candidate.height { text += " \(height)h" }
        return text
    }

    @Test("candidates, descriptors and what drops a candidate", arguments: SrcsetCases.all)
    func parse(value: String, expected: [String]) {
        #expect(Srcset.candidates(value).map(Self.describe) == expected)
    }

    @Test(
        "WPT parse-a-srcset-attribute.html, read from the page through libxml2: only ASCII white space separates",
        arguments: SrcsetCases.wptWhiteSpace)
    func wptWhiteSpace(attribute: String, expected: [String]) throws {
        // The test's own markup: a single-quoted attribute with its character references.
        let scan = try HTMLScanner.scan(
            Array("<!doctype html><img srcset='\(attribute)'>".utf8), url: "http://h/", encoding: "UTF-8")
        #expect(scan.images.map(\.url) == expected)
    }

    @Test(
        "a URL holding U+000B-U+0010 or a no-break space is kept, those characters percent-encoded in its key",
        arguments: SrcsetCases.encodedInKeys)
    func encodedInKeys(attribute: String, expected: String) throws {
        let base = try #require(CanonicalURL("http://h/g/"))
        let scan = try HTMLScanner.scan(
            Array("<!doctype html><img srcset='\(attribute)'>".utf8), url: base.string, encoding: "UTF-8")
        #expect(scan.images.map { Crawler.discovery($0, base: base)?.key.string } == [expected])
    }

    @Test("widths and densities rank the renditions of one photo")
    func ranking() throws {
        let html = """
            <html><body><img src="m.png" srcset="l.png 1024w, s.png 320w, m.png 640w">
            <picture><source srcset="b.png 2x, a.png"><img src="a.png"></picture></body></html>
            """
        let scan = try HTMLScanner.scan(Array(html.utf8), url: "http://h/")
        let sizes = Dictionary(scan.images.map { ($0.url, $0.size) }, uniquingKeysWith: { first, _ in first })
        #expect(sizes["l.png"]?.width == 1024)
        #expect(sizes["s.png"]?.width == 320)
        #expect(try #require(sizes["s.png"]) < #require(sizes["l.png"]))
        #expect(sizes["b.png"]?.density == 2)
        let srcsetA = scan.images.first { $0.url == "a.png" && $0.size.density == 1 }
        #expect(try #require(srcsetA?.size) < #require(sizes["b.png"]))
    }
}

enum SrcsetCases {
    /// The rows of web-platform-tests html/semantics/embedded-content/the-img-element/srcset/
    /// parse-a-srcset-attribute.html about white space, each cited by its srcset as the file
    /// writes it, with the candidates the row's `data-expect` implies: the one `currentSrc`
    /// names, none for `''`, and for `data-resolve` rows the whole attribute as one URL.
    static let wptWhiteSpace: [(String, [String])] =
        [
            // "splitting loop": tab, LF, FF and CR separate; U+000B, U+000E-U+0010 and NBSP do not.
            ("&#x9;&#x9;data:,a&#x9;&#x9;1x&#x9;&#x9;", ["data:,a"]),
            ("&#xA;&#xA;data:,a&#xA;&#xA;1x&#xA;&#xA;", ["data:,a"]),
            ("&#xB;&#xB;data:,a&#xB;&#xB;1x&#xB;&#xB;", ["\u{B}\u{B}data:,a\u{B}\u{B}1x\u{B}\u{B}"]),
            ("&#xC;&#xC;data:,a&#xC;&#xC;1x&#xC;&#xC;", ["data:,a"]),
            ("&#xD;&#xD;data:,a&#xD;&#xD;1x&#xD;&#xD;", ["data:,a"]),
            ("&#xE;&#xE;data:,a&#xE;&#xE;1x&#xE;&#xE;", ["\u{E}\u{E}data:,a\u{E}\u{E}1x\u{E}\u{E}"]),
            ("&#xF;&#xF;data:,a&#xF;&#xF;1x&#xF;&#xF;", ["\u{F}\u{F}data:,a\u{F}\u{F}1x\u{F}\u{F}"]),
            ("&#x10;&#x10;data:,a&#x10;&#x10;1x&#x10;&#x10;", ["\u{10}\u{10}data:,a\u{10}\u{10}1x\u{10}\u{10}"]),
            ("&nbsp;data:,a", ["\u{A0}data:,a"]),
            ("data:,a&nbsp;", ["data:,a\u{A0}"]),
        ] + descriptorWhiteSpace

    /// "descriptor parser": a character other than ASCII white space before or after a
    /// descriptor's number makes it invalid, and drops the candidate (`data-expect=''`). The
    /// file lists the same characters for `w`, `x` and `h`: "data:,a 1&#x1;w" (trailing),
    /// "data:,a &#x1;1w" (leading), ..., "data:,a 1w 1&#x1;h", "data:,a 1w &#x1;1h".
    static let descriptorWhiteSpace: [(String, [String])] = {
        let characters = [
            "&#x1;", "&nbsp;", "&#x1680;", "&#x2000;", "&#x2001;", "&#x2002;", "&#x2003;", "&#x2004;", "&#x2005;", "&#x2006;",
            "&#x2007;", "&#x2008;", "&#x2009;", "&#x200A;", "&#x200C;", "&#x200D;", "&#x202F;", "&#x205F;", "&#x3000;",
            "&#xFEFF;",
        ]
        var rows: [(String, [String])] = []
        for descriptor in ["w", "x"] {
            for character in characters { rows.append(("data:,a 1\(character)\(descriptor)", [])) }
            for character in characters { rows.append(("data:,a \(character)1\(descriptor)", [])) }
        }
        for character in characters { rows.append(("data:,a 1w 1\(character)h", [])) }
        for character in characters { rows.append(("data:,a 1w \(character)1h", [])) }
        return rows
    }()

    /// The `data-resolve` rows above with `data:,a` made `a.png` (a `data:` URL gives no key):
    /// the key is what `a.href = expect` gives in the test, against the page's URL.
    static let encodedInKeys: [(String, String)] = [
        ("&#xB;&#xB;a.png&#xB;&#xB;1x&#xB;&#xB;", "http://h/g/a.png%0B%0B1x"),
        ("&#xE;&#xE;a.png&#xE;&#xE;1x&#xE;&#xE;", "http://h/g/a.png%0E%0E1x"),
        ("&#xF;&#xF;a.png&#xF;&#xF;1x&#xF;&#xF;", "http://h/g/a.png%0F%0F1x"),
        ("&#x10;&#x10;a.png&#x10;&#x10;1x&#x10;&#x10;", "http://h/g/a.png%10%101x"),
        ("&nbsp;a.png", "http://h/g/%C2%A0a.png"),
        ("a.png&nbsp;", "http://h/g/a.png%C2%A0"),
    ]

    static let all: [(String, [String])] = [
        // Splitting: commas and ASCII whitespace between candidates.
        ("", []),
        (",", []),
        (",,,,", []),
        ("  ,  ", []),
        ("  ,a.png", ["a.png 1.0x"]),
        ("a.png", ["a.png 1.0x"]),
        ("  a.png  ", ["a.png 1.0x"]),
        ("a.png, b.png", ["a.png 1.0x", "b.png 1.0x"]),
        ("a.png,, b.png", ["a.png 1.0x", "b.png 1.0x"]),
        ("a.png ,b.png", ["a.png 1.0x", "b.png 1.0x"]),
        ("a.png 1x,b.png 2x", ["a.png 1.0x", "b.png 2.0x"]),
        ("a.png 1x ,b.png 2x", ["a.png 1.0x", "b.png 2.0x"]),
        ("a.png 1x,,b.png", ["a.png 1.0x", "b.png 1.0x"]),
        ("a.png 1x, b.png 2x,", ["a.png 1.0x", "b.png 2.0x"]),
        ("a.png 1x, a.png 2x", ["a.png 1.0x", "a.png 2.0x"]),
        // A URL keeps its inner commas; trailing commas end the candidate.
        ("a.png,b.png", ["a.png,b.png 1.0x"]),
        ("a,b.png 1x,c.png", ["a,b.png 1.0x", "c.png 1.0x"]),
        ("data:image/png;base64,AAAA 1x", ["data:image/png;base64,AAAA 1.0x"]),
        ("a.png,,,, 2x", ["a.png 1.0x", "2x 1.0x"]),
        // ASCII whitespace only: tab, LF, FF, CR, space; not NBSP or VT.
        ("\ta.png\t2x\n", ["a.png 2.0x"]),
        ("a.png\u{0C}2x", ["a.png 2.0x"]),
        ("a.png\r\n100w", ["a.png 100w"]),
        ("a.png 1x\t", ["a.png 1.0x"]),
        ("a.png\u{A0}2x", ["a.png\u{A0}2x 1.0x"]),
        ("\u{A0}a.png 2x", ["\u{A0}a.png 2.0x"]),
        ("a.png 2x\u{A0}", []),
        ("a.png \u{A0}2x", []),
        ("a.png\u{0B}2x", ["a.png\u{0B}2x 1.0x"]),
        // Densities: valid floating-point numbers, not negative.
        ("a.png 1x", ["a.png 1.0x"]),
        ("a.png 2x", ["a.png 2.0x"]),
        ("a.png 1.5x", ["a.png 1.5x"]),
        ("a.png 2.0x", ["a.png 2.0x"]),
        ("a.png 01x", ["a.png 1.0x"]),
        ("a.png .5x", ["a.png 0.5x"]),
        ("a.png 1e1x", ["a.png 10.0x"]),
        ("a.png 1E-1x", ["a.png 0.1x"]),
        ("a.png 1e+2x", ["a.png 100.0x"]),
        ("a.png 0x", ["a.png 0.0x"]),
        ("a.png -0x", ["a.png 0.0x"]),
        ("a.png -1x", []),
        ("a.png 1.x", []),
        ("a.png +1x", []),
        ("a.png 1xx", []),
        ("a.png x", []),
        ("a.png -x", []),
        ("a.png 1e400x", []),
        ("a.png 2X", []),
        // Widths: valid non-negative integers above zero.
        ("a.png 100w", ["a.png 100w"]),
        ("a.png 007w", ["a.png 7w"]),
        ("a.png 320w, b.png 640w, c.png 1280w", ["a.png 320w", "b.png 640w", "c.png 1280w"]),
        ("a.png 0w", []),
        ("a.png -100w", []),
        ("a.png 100.5w", []),
        ("a.png 1e2w", []),
        ("a.png 100W", []),
        ("a.png w", []),
        // Heights only with a width; never two of one kind, never a width and a density.
        ("a.png 100w 50h", ["a.png 100w 50h"]),
        ("a.png 50h 100w", ["a.png 100w 50h"]),
        ("a.png 50h", []),
        ("a.png 2x 50h", []),
        ("a.png 50h 2x", []),
        ("a.png 100w 0h", []),
        ("a.png 100w 2x", []),
        ("a.png 2x 100w", []),
        ("a.png 1x 2x", []),
        ("a.png 100w 200w", []),
        ("a.png 100w, b.png 200w 2x", ["a.png 100w"]),
        // Unknown descriptors drop their candidate only.
        ("a.png foo", []),
        ("a.png 1x, b.png foo, c.png 2x", ["a.png 1.0x", "c.png 2.0x"]),
        ("http://example.com/a b.png 1x", []),
        ("a.png 1x b.png 2x", []),
        // Parentheses: commas inside do not split; the first ")" closes (no nesting).
        ("a.png (min-width: 1px, max-width: 2px) 1x, b.png", ["b.png 1.0x"]),
        ("a.png (x, y), b.png 2x", ["b.png 2.0x"]),
        ("a.png ((a), b) 2x, c.png", ["b) 2.0x", "c.png 1.0x"]),
        ("a.png (2x", []),
        ("a.png 2x (", []),
        ("a.png (", []),
        ("a.png ()", []),
        ("a.png 2x)", []),
        ("a.png 1x()", []),
        ("a.png 2x, (b.png) 1x", ["a.png 2.0x", "(b.png) 1.0x"]),
    ]
}
