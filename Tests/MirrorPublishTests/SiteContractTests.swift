import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorPublish
@testable import MirrorStore

/// What a page template sees (`--template DIR`): every name of the context, its value as
/// rendered escaped and raw, as a section and inverted, looked up from a card or an album entry
/// in the page around it, and through swift-mustache's transforms. A template naming all of
/// them (`Fixtures/site-contract/page.mustache`) renders a small site whose titles, captions,
/// metadata and keys hold `<>&"'`; the output must be `expected.txt`, byte for byte. A name
/// dropped, a value rendered otherwise or escaped otherwise fails here, whatever the built-in
/// template shows.
@Suite("The template's context")
struct SiteContractTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/site-contract")

    /// Two albums of the start page (one nested in the other, one with a cover from elsewhere),
    /// an album of two pages, photos with and without sizes, renditions, captions and metadata.
    static func manifest() -> Manifest {
        let date = Date(timeIntervalSince1970: 1_790_000_000)
        func item(
            _ name: String, album: String, title: String?, bytes: Int64, width: Int? = nil, of original: String? = nil,
            metadata: [String: String]? = nil, query: String = "", embedded: EmbeddedMetadata? = nil
        ) -> Manifest.Item {
            var item = Manifest.Item(
                key: "http://h/g/\(name).jpg\(query)", path: "images/\(name)-0a1b2c.jpg", sha256: "ab", bytes: bytes,
                contentType: "image/jpeg", title: title, metadata: metadata, album: album,
                variantOf: original.map { "http://h/g/\($0).jpg" }, firstSeen: date, lastChecked: date, width: width,
                height: width.map { $0 * 3 / 4 })
            item.embedded = embedded
            return item
        }
        func dated(_ taken: String) -> EmbeddedMetadata {
            var metadata = EmbeddedMetadata()
            metadata.taken = taken
            return metadata
        }
        // What a file says about itself, every field, with `<>&"'` in its texts.
        var street = EmbeddedMetadata()
        street.taken = "2019-06-01T18:30:05+02:00"
        street.camera = "Canon <EOS> \"5D\""
        street.lens = "EF24-105mm f/4L & 'IS'"
        street.exposure = EmbeddedMetadata.Exposure(focalLength: 50, aperture: 8, exposureTime: "1/250", iso: 200)
        street.location = EmbeddedMetadata.Location(latitude: 48.8583701, longitude: -2.2944813)
        street.keywords = ["night", "<street>"]
        street.creator = "Jane & Joe"
        street.copyright = "© 2019 <Jane>"
        let start = "http://h/g/"
        let nature = "http://h/g/nature/"
        let birds = "http://h/g/nature/birds/"
        let city = "http://h/g/city/"
        let items = [
            item("own", album: start, title: "Own <b>\"1\"</b> & 'co'", bytes: 999, width: 640),
            item(
                "lake", album: nature, title: "Lake & <Mist>", bytes: 9_000_000, width: 4000,
                metadata: ["description": "Dawn <over> the \"water\" & 'hills'", "price": "12 < 13 & 'x'", "<k>": "\"v\""],
                embedded: dated("2008-01-22T03:28:22")),
            item("lake-small", album: nature, title: nil, bytes: 90_000, width: 800, of: "lake"),
            item("lake-thumb", album: nature, title: nil, bytes: 9_000, width: 200, of: "lake"),
            item("tree", album: nature, title: nil, bytes: 5_000, query: "?a=1&b='2'", embedded: dated("2008-01-21")),
            item("autumn-maple", album: nature, title: "autumn-maple", bytes: 12_345, width: 300),
            item("wren", album: birds, title: "Wren", bytes: 1_500_000, width: 1024, metadata: ["alt": "Nature & <co>"]),
            item("street", album: city, title: "Street", bytes: 42, width: 10, embedded: street),
            item("sun", album: start, title: nil, bytes: 1_000, width: 16, metadata: ["caption": "Sun & 'sky'"]),
        ]
        return Manifest(
            source: start, title: "Walks <&> \"x\" 'y' — page 1", generatedAt: date, items: items, rejected: [],
            albums: [
                .init(url: start, title: "Walks"), .init(url: nature, title: "Nature & <co> | Page 1 of 2"),
                .init(url: birds, title: nil), .init(url: city, title: "City 'night'", cover: "http://h/g/own.jpg"),
            ])
    }

    /// `Fixtures/site-contract/page.mustache`.
    static func contractTemplate() throws -> SiteTemplate {
        try SiteTemplate(
            files: ["page.mustache": Array(try Data(contentsOf: fixtures.appendingPathComponent("page.mustache")))],
            origin: "site-contract")
    }

    /// `Fixtures/site-contract/file-metadata.mustache`: the names of what a photo's file says
    /// about itself, and the page's order by date.
    static func fileMetadataTemplate() throws -> SiteTemplate {
        try SiteTemplate(
            files: ["page.mustache": Array(try Data(contentsOf: fixtures.appendingPathComponent("file-metadata.mustache")))],
            origin: "site-contract")
    }

    /// Every page of the fixture, rendered with `template`, each after a line naming its file.
    static func rendered(with template: SiteTemplate, perPage: Int = 2) -> String {
        let publisher = MirrorPublisher(
            layout: MirrorLayout(root: URL(fileURLWithPath: "/tmp/unused")), template: template, itemsPerPage: perPage)
        let site = SitePlan(manifest: manifest(), itemsPerPage: perPage)
        let pages = publisher.render(manifest())
        return zip(site.pages, pages).map { "=== \($0.fileName)\n\($1)" }.joined(separator: "\n")
    }

    @Test("a template naming every name of the context renders the fixture as expected.txt, byte for byte")
    func everyName() throws {
        let output = Self.rendered(with: try Self.contractTemplate())
        let expected = String(decoding: try Data(contentsOf: Self.fixtures.appendingPathComponent("expected.txt")), as: UTF8.self)
        if output != expected {
            try? Data(output.utf8).write(to: URL(fileURLWithPath: NSTemporaryDirectory() + "site-contract-actual.txt"))
        }
        #expect(output == expected, "not expected.txt: the output is \(NSTemporaryDirectory())site-contract-actual.txt")
    }

    @Test("the names of what a file says about itself render as expected-file-metadata.txt, only where they apply")
    func fileMetadataNames() throws {
        let output = Self.rendered(with: try Self.fileMetadataTemplate())
        let file = Self.fixtures.appendingPathComponent("expected-file-metadata.txt")
        let expected = (try? Data(contentsOf: file)).map { String(decoding: $0, as: UTF8.self) } ?? "(no \(file.path))"
        if output != expected {
            try? Data(output.utf8).write(to: URL(fileURLWithPath: NSTemporaryDirectory() + "site-contract-file-metadata.txt"))
        }
        #expect(
            output == expected,
            "not expected-file-metadata.txt: the output is \(NSTemporaryDirectory())site-contract-file-metadata.txt")
    }

    @Test("each page's fingerprint is the one earlier versions wrote for the same input, so no mirror renders again")
    func fingerprints() async throws {
        let template = try Self.contractTemplate()
        let publisher = MirrorPublisher(
            layout: MirrorLayout(root: URL(fileURLWithPath: "/tmp/unused")), template: template, itemsPerPage: 2)
        let site = SitePlan(manifest: Self.manifest(), itemsPerPage: 2)
        let inputs = await publisher.pages(Array(site.pages.indices), of: site, manifest: Self.manifest(), fingerprinting: true)
            .map { work in
                guard case .rendered(_, let input?) = work else { return "none" }
                return input
            }
        // Version 2's hashing of the fixture's pages. Every page's context holds the count labels
        // (`countLabel`, `itemCountLabel`, `photoCountLabel`); names of what a file says are
        // added only where a file says something: the nature album (photos with dates:
        // `sortsByDate`, `taken`) and the city album (every name).
        #expect(
            inputs == [
                "e8ed59395bd008726014d996033bbdc30023da9d3b3d95bc138019eb9d8dc648",
                "8f70d238fb2b910e5693bd62581807a8bec13cfb2f04af4334193327e837dc54",
                "b3adee772c9648d2e7f5493bbe4ff2fa81c97e2a7b14708f0d6aa2620f32e0ea",
                "9c1a6faeb0ccf7028c6573be7ec0480c3cc412c48922f7920d5372bb95ce1c23",
                "17ebaa69858df821a74038b14154ed85e193e253b99e3288c290d6e017d6ce1b",
            ])
    }

    @Test("sameIgnoringCase says what caseInsensitiveCompare says, for ASCII and for the rest")
    func sameIgnoringCase() {
        var pairs: [(String, String)] = [
            ("Lake", "lake"), ("LAKE", "lake"), ("lake", "lakes"), ("a-b_c", "A-B_C"), ("[", "{"), ("@", "`"),
            ("Straße", "STRASSE"), ("café", "CAFÉ"), ("cafe\u{301}", "café"), ("İ", "i"), ("a\u{0}b", "A\u{0}B"),
            ("a\tb", "A\tB"), ("", ""), ("", "a"), ("ǅ", "ǆ"), ("K", "\u{212A}"),
        ]
        // Every printable ASCII letter and sign against its neighbours, in both cases.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...4, using: &generator)
            let a = String((0..<length).map { _ in Character(UnicodeScalar(UInt8.random(in: 0x20...0x7E, using: &generator))) })
            let b = String(a.map { Bool.random(using: &generator) ? Character($0.uppercased()) : $0 })
            pairs.append((a, b))
            pairs.append((a, String(b.dropLast()) + "a"))
        }
        for (a, b) in pairs {
            #expect(PhotoView.sameIgnoringCase(a, b) == (a.caseInsensitiveCompare(b) == .orderedSame), "\(a) | \(b)")
        }
    }

    @Test("a key's first and last runs are the first and last pieces split(separator:) gives")
    func runs() {
        let texts = [
            "", "?", "??", "/", "//", "a", "http://h/g/a.jpg?x=1", "?a?b", "??a", "a?", "http://h/g/", "/a//b//",
            "a?\u{301}b?c", "x/\u{301}y/", "é/ü?ß", "images/photo-1.jpg",
        ]
        for text in texts {
            for separator: Character in ["?", "/"] {
                #expect(
                    PhotoView.firstRun(of: text[...], without: separator) == text.split(separator: separator).first, "\(text)")
                #expect(PhotoView.lastRun(of: text[...], without: separator) == text.split(separator: separator).last, "\(text)")
            }
        }
    }
}
