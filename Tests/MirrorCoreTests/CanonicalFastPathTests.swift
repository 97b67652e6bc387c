import Testing

@testable import MirrorCore

/// The fast path for references that are canonical already (`CanonicalURL+FastPath.swift`) must
/// give the key the full WHATWG parser gives, part by part, for every input it accepts.
@Suite("Canonical URL fast path")
struct CanonicalFastPathTests {
    static let bases: [CanonicalURL?] = [
        nil, CanonicalURL(parsing: "http://example.org/foo/bar", relativeTo: nil),
        CanonicalURL(parsing: "http://a/b/c/d;p?q", relativeTo: nil),
        CanonicalURL(parsing: "https://user:pw@[::1]:8443/a/b?c", relativeTo: nil),
        CanonicalURL(parsing: "http://127.0.0.1:8080/gallery/", relativeTo: nil),
        CanonicalURL(parsing: "https://example.com", relativeTo: nil),
        CanonicalURL(parsing: "http://example.com/a%20b/c%2F?x'y", relativeTo: nil),
    ]

    /// Inputs around every rule the fast path applies, beside the URL tables.
    static let edges = [
        "http://example.com/a.jpg", "https://example.com/a.jpg?x=1&y=2#f", "http://example.com", "http://example.com?q",
        "http://example.com#f", "http://example.com:8080", "http://example.com:80/", "https://example.com:443/",
        "https://example.com:80/", "http://example.com:0/", "http://example.com:08/", "http://example.com:65535/",
        "http://example.com:65536/", "http://example.com:123456/", "http://example.com:/", "http://127.0.0.1/",
        "http://127.0.0.1:8080/g/", "http://255.255.255.255/", "http://256.0.0.1/", "http://1.2.3/", "http://01.2.3.4/",
        "http://1.2.3.4.5/", "http://0x7f.1/", "http://127.1/", "http://1a/", "http://a.1/", "http://a.0x1/",
        "http://xn--bcher-kva.example/", "http://a.xn--/", "http://example.com./", "http://-a.example/", "http://a..b/",
        "http://a_b.example/", "http://Example.com/", "HTTP://example.com/", "http:/example.com/", "http:example.com",
        "http://example.com/a/./b", "http://example.com/a/../b", "http://example.com/.", "http://example.com/..",
        "http://example.com/a/.b/..c/...", "http://example.com/%2e/", "http://example.com/%2E%2E/",
        "http://example.com/%41", "http://example.com/%7e", "http://example.com/%7E", "http://example.com/%2f",
        "http://example.com/%2F", "http://example.com/%zz", "http://example.com/%2", "http://example.com/a%",
        "http://example.com/a b", "http://example.com/a\tb", "http://example.com/a\\b", "http://example.com/a'b",
        "http://example.com/?a'b", "http://example.com/?a?b/c:d@e", "http://example.com/a:b@c;d=e,f!$&()*+",
        "http://example.com/[a]", "http://example.com/a|b^c`d{e}", "http://example.com/é", "http://example.com/?é",
        "http://example.com/#é", "http://example.com/a#b c", "http://u@example.com/", "http://example.com:8080?x",
        " http://example.com/", "http://example.com/ ", "img/a.jpg", "img/a.jpg?x=1#f", "/img/a.jpg", "//host/a.jpg",
        "./a.jpg", "../a.jpg", "a/./b", "a/../b", "a/..", "a/.", ".", "..", "", "?x", "#f", "a:b", "img/a:b", "/a:b",
        "mailto:x@example.com", "javascript:void(0)", "data:image/png;base64,AAAA", "http", "https:", "h", "h/a",
        "http://", "https://", "http:///a", "a%41", "a%2F", "a%2e", "%2e%2e/a", "a//b", "/", "/?", "/#", "a?", "a?#",
        "p/1.html", "image-0-2x.jpg", "a'b", "a?b'c", "\\a", "a\\b", "a b", "\u{1}a", "a\u{7F}", "ü.jpg",
        // Tabs and newlines, which the full parser removes anywhere (urltestdata.json's "http://ho\tst/" rows).
        "http://ho\tst/", "http://ho\nst/", "http://ho\rst/", "h\ttp://example.com/", "http://example.com:8\t0/",
        "img/a\tb.jpg", "/img\n/a.jpg", "a.jpg\r", "a.jpg?x\ty", "http://example.com/a.jpg\n",
    ]

    @Test("gives the full parser's key, part by part, for the URL tables and the edges")
    func agreesOnTables() {
        for base in Self.bases {
            for input in WebURLCases.all + Self.edges { expectAgreement(input, base) }
        }
    }

    @Test("gives the full parser's key for generated references")
    func agreesOnGenerated() {
        let pieces = [
            "http://", "https://", "HTTP://", "http:", "//", "/", "\\", ".", "..", "a", "B", "z9", "-", "_", "~", "%2E", "%2e",
            "%41", "%2F", "%20", "%zz", "%", "?", "#", ":", "@", "'", "!$&()*+,;=", " ", "\t", "ü", "80", "443", "8080", "0",
            "127.0.0.1", "1.2.3", "0x7f", "xn--", "example.com", ".jpg", "[", "]", "|", "{", "\"",
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var accepted = 0
        for _ in 0..<20_000 {
            var input = ""
            for _ in 0..<(1 + next() % 8) { input += pieces[next() % pieces.count] }
            let base = Self.bases[next() % Self.bases.count]
            if expectAgreement(input, base) { accepted += 1 }
        }
        // Not a vacuous comparison: a good share of the inputs took the fast path.
        #expect(accepted > 1_000)
    }

    @Test("takes the forms feeds and gallery pages use")
    func takesCommonForms() throws {
        let base = try #require(CanonicalURL(parsing: "http://127.0.0.1:8080/gallery/", relativeTo: nil))
        for input in [
            "http://example.com/a.jpg", "https://example.com/a%20b.jpg?w=800", "http://127.0.0.1:8080/x", "img/image-7.jpg",
            "/img/a.jpg", "a.jpg#top",
        ] {
            #expect(CanonicalURL.canonicalFastPath(input, relativeTo: base) != nil, "\(input)")
        }
        for input in ["HTTP://example.com/", "a/../b", "http://example.com:80/", "http://0x7f.1/", " a.jpg", "a%7e.jpg"] {
            #expect(CanonicalURL.canonicalFastPath(input, relativeTo: base) == nil, "\(input)")
        }
    }

    /// Expects the fast path, when it answers, to agree with the full parser; true when it answered.
    @discardableResult
    private func expectAgreement(_ input: String, _ base: CanonicalURL?) -> Bool {
        guard let fast = CanonicalURL.canonicalFastPath(input, relativeTo: base) else { return false }
        let full = CanonicalURL(parsing: input, relativeTo: base)
        let context = "\(input.debugDescription) against \(base?.string ?? "no base")"
        #expect(fast.string == full?.string, "\(context)")
        #expect(fast.scheme == full?.scheme, "\(context)")
        #expect(fast.host == full?.host, "\(context)")
        #expect(fast.port == full?.port, "\(context)")
        #expect(fast.path == full?.path, "\(context)")
        #expect(fast.query == full?.query, "\(context)")
        #expect(fast.authority == full?.authority, "\(context)")
        #expect(fast.origin == full?.origin, "\(context)")
        return true
    }
}
