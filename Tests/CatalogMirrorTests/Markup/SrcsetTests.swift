import Testing

@testable import CatalogMirror

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
