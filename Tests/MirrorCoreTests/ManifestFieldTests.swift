import Foundation
import Testing

@testable import MirrorCore

@Suite("A manifest item's fields: declared once, each written, read and kept")
struct ManifestFieldTests {
    /// An item with every required field and nothing else.
    static let base = Manifest.Item(
        key: "http://h/a.png", path: "images/a-0123456789.png", sha256: String(repeating: "ab", count: 32), bytes: 1,
        contentType: "image/png", firstSeen: Date(timeIntervalSince1970: 1_700_000_000),
        lastChecked: Date(timeIntervalSince1970: 1_700_000_000))

    /// Sets `field` of `item` to a value that is not `base`'s, awkward where it is text. A
    /// new field is a compile error here until it has one. The table keeps a size only whole
    /// and a title's source only with a title, so those set their partner too.
    static func sample(_ field: Manifest.Item.Field, on item: inout Manifest.Item) throws {
        let awkward = "\"q\" \\ / \u{1}\t\n é 😀"
        switch field {
        case .album: item.album = "http://h/album/" + awkward
        case .bytes: item.bytes = 9_007_199_254_740_993
        case .camera: item.camera = "Canon " + awkward
        case .captionFrom: item.captionFrom = .file
        case .contentType: item.contentType = "image/webp"
        case .copyright: item.copyright = "© 2019"
        case .creator: item.creator = "Ann/Bo"
        case .etag: item.etag = "\"e1\""
        case .exposure:
            item.exposure = EmbeddedMetadata.Exposure(focalLength: 48.8583701, aperture: 1e-7, exposureTime: "1/80", iso: 400)
        case .fingerprint: item.fingerprint = String(repeating: "0f", count: 112)
        case .firstSeen: item.firstSeen = Date(timeIntervalSince1970: 1_600_000_000)
        case .height: (item.width, item.height) = (item.width ?? 640, 480)
        case .key: item.key = "http://h/k?q=" + awkward
        case .keywords: item.keywords = ["a", awkward]
        case .lastChecked: item.lastChecked = Date(timeIntervalSince1970: 1_800_000_000)
        case .lastModified: item.lastModified = "Tue, 21 Nov 2026 12:00:00 GMT"
        case .lens: item.lens = "EF 50mm"
        case .location: item.location = EmbeddedMetadata.Location(latitude: 48.8583701, longitude: -2.2944813)
        case .metadata: item.metadata = ["price": "1", awkward: awkward, "B": ""]
        case .path: item.path = "images/b-0123456789.webp"
        case .sha256: item.sha256 = "not hex " + awkward
        case .taken: item.taken = "2008-01-22T03:28:22+01:00"
        case .title: item.title = awkward
        case .titleFrom: (item.title, item.titleFrom) = (item.title ?? "T", .name)
        case .variantOf: item.variantOf = "http://h/v.png"
        case .width: (item.width, item.height) = (641, item.height ?? 481)
        }
    }

    /// `item` as the writer writes it in `items`, and read back by each reader.
    static func readBack(_ item: Manifest.Item) throws -> [(String, Manifest.Item)] {
        var element: [UInt8] = []
        item.write(into: &element)
        let manifest = Manifest(source: "http://h/", generatedAt: Date(timeIntervalSince1970: 0), items: [item], rejected: [])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fields-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try manifest.encoded().write(to: url)
        return [
            ("table", ItemTable([item])[0]),
            ("reader without the decoder", try Manifest.Item.readWritten(element[...])),
            ("decoder", try JSONCoding.decode(Manifest.Item.self, from: Data(element))),
            ("Manifest.read", try #require(try Manifest.read(from: url).items.first)),
        ]
    }

    @Test("each field, set alone, is written as JSONEncoder writes it and comes back from every reader and the table")
    func everyField() throws {
        for field in Manifest.Item.Field.all {
            var item = Self.base
            try Self.sample(field, on: &item)
            #expect(item != Self.base, "the sample of \(field) changes nothing")
            let manifest = Manifest(source: "http://h/", generatedAt: Date(timeIntervalSince1970: 0), items: [item], rejected: [])
            let written = try manifest.encoded()
            #expect(written == (try JSONCoding.encode(manifest)), "\(field)")
            #expect(String(decoding: written, as: UTF8.self).contains("\"\(field.rawValue)\" : "), "\(field)")
            for (reader, read) in try Self.readBack(item) {
                #expect(read == item, "\(field) through the \(reader)")
            }
        }
    }

    @Test("an item with every field set comes back whole from every reader and the table")
    func allFields() throws {
        var item = Self.base
        for field in Manifest.Item.Field.all { try Self.sample(field, on: &item) }
        for (reader, read) in try Self.readBack(item) { #expect(read == item, "through the \(reader)") }
    }

    @Test("the fields are declared in the order the encoder sorts their names in")
    func order() {
        let names = Manifest.Item.Field.all.map(\.rawValue)
        #expect(names == names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(Set(names).count == names.count)
        #expect(names.count <= 64, "Field.members keeps the fields it saw a bit each in a UInt64")
    }

    @Test("an element in another order and spacing, with escapes and unknown members, reads as the decoder reads it")
    func otherShapes() throws {
        let texts = [
            #"{"sha256":"ab","key":"http:\/\/h\/a.png","path":"p","bytes":-3,"contentType":"t","#
                + #""firstSeen":"2026-11-21T12:00:00Z","lastChecked":"2026-11-21T13:30:00+01:30","extra":[1,{"a":null}],"#
                + #""title":"\u00e9\ud83d\ude00\"\n","metadata":{},"keywords":[],"exposure":{"iso":1}}"#,
            "\n {\t\"key\" : \"k\" , \"path\":\"p\",\"sha256\":\"s\",\"bytes\":0,\"contentType\":\"t\","
                + "\"firstSeen\":\"2026-11-21T12:00:00.5Z\",\"lastChecked\":\"2026-11-21T12:00:00Z\",\"width\":1,\"height\":2 }\r\n",
        ]
        for text in texts {
            let bytes = Array(text.utf8)[...]
            #expect(try Manifest.Item.readWritten(bytes) == JSONCoding.decode(Manifest.Item.self, from: Data(bytes)), "\(text)")
        }
    }

    @Test(
        "an element that is not what this version writes goes to the decoder, which says what is wrong; never a crash",
        arguments: [
            #"{"key":"k"}"#, #"{"key":1}"#, #"{"key":null}"#, "", "{", "[]", #"{"key":"k""#, #"{"key":"k",}"#,
            #"{"key":"\x"}"#, #"{"key":"\ud800"}"#, #"{"key":"\u12"}"#, "{\"key\":\"a\u{1}\"}",
            #"{"bytes":99999999999999999999}"#,
            #"{"bytes":1.5}"#, #"{"firstSeen":"yesterday"}"#, #"{"exposure":{"iso":"x"}}"#, #"{"location":{"latitude":1}}"#,
            #"{"titleFrom":"elsewhere"}"#, #"{"keywords":[1]}"#, #"{"metadata":{"a":1}}"#, #"{"a":tru}"#, #"{"a":-}"#,
            #"{"key":"k"} x"#,
        ])
    func refused(text: String) {
        let bytes = Array(text.utf8)[...]
        #expect(throws: (any Error).self) { try Manifest.Item.readWritten(bytes) }
        #expect(throws: (any Error).self) { try Manifest.Item.read(bytes) }
    }

    @Test("bytes that are not UTF-8 are refused, not repaired")
    func notUTF8() {
        var bytes = Array(#"{"key":"a"}"#.utf8)
        bytes[8] = 0xFF
        #expect(throws: (any Error).self) { try Manifest.Item.readWritten(bytes[...]) }
    }

    @Test("a truncated or damaged manifest is a format error that says so, never a crash")
    func damagedManifest() throws {
        var item = Self.base
        for field in Manifest.Item.Field.all { try Self.sample(field, on: &item) }
        let manifest = Manifest(
            source: "http://h/", generatedAt: Date(timeIntervalSince1970: 0), items: [item, Self.base],
            rejected: [.init(key: "http://h/x", reason: "http-404")])
        let encoded = try [UInt8](manifest.encoded())
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("damaged-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        for length in 0..<encoded.count - 2 {
            try Data(encoded[..<length]).write(to: url)
            #expect(throws: StoreError.self, "first \(length) bytes") { _ = try Manifest.read(from: url) }
        }
        let damaged = [
            ("{\"schema\":\"\(Manifest.schemaName)\",\"items\":[{\"key\":1}]}", "item 1"),
            ("[]", "not well-formed JSON"), ("{\"schema\":\"x\"}", "no items"),
            ("{\"schema\":\"x\",\"items\":[]}", "missing field \"source\""),
            (
                "{\"schema\":\"other\",\"source\":\"s\",\"generatedAt\":\"2026-11-21T12:00:00Z\",\"items\":[],\"rejected\":[]}",
                "unknown manifest schema"
            ),
        ]
        for (text, said) in damaged {
            try Data(text.utf8).write(to: url)
            #expect(throws: StoreError.self, "\(text)") { _ = try Manifest.read(from: url) }
            do {
                _ = try Manifest.read(from: url)
            } catch {
                #expect("\(error)".contains(said), "\(text): \(error)")
            }
        }
    }

    @Test("a missing file is the file system's no-such-file error, which `verify` tells from a damaged manifest")
    func missingFile() {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("none-\(UUID().uuidString)/manifest.json")
        do {
            _ = try Manifest.read(from: url)
            Issue.record("a missing file was read")
        } catch {
            #expect((error as? CocoaError)?.code == .fileReadNoSuchFile, "\(error)")
        }
    }

    @Test("a manifest with bytes changed at random, or an item nested deep, is an error or a manifest, never a crash")
    func mutated() throws {
        var item = Self.base
        for field in Manifest.Item.Field.all { try Self.sample(field, on: &item) }
        let manifest = Manifest(
            source: "http://h/", generatedAt: Date(timeIntervalSince1970: 0), items: [item, Self.base, item], rejected: [])
        let encoded = try [UInt8](manifest.encoded())
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mutated-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        // What changes the structure most: brackets, quotes, escapes, separators, digits.
        let replacements = Array("{}[]\"\\:,0-.eunt \u{1}\u{FF}".utf8)
        var state: UInt64 = 47
        func random() -> UInt64 {  // A linear congruential generator: the same bytes on every run.
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for round in 0..<400 {
            var bytes = encoded
            for _ in 0...(round % 4) {
                let at = Int(random() % UInt64(bytes.count))
                bytes[at] = replacements[Int(random() % UInt64(replacements.count))]
            }
            try Data(bytes).write(to: url)
            _ = try? Manifest.read(from: url)
            _ = try? Manifest.Item.read(bytes[...])
        }
        for depth in [255, 256, 257, 100_000] {
            let deep =
                "{\"key\":\"k\",\"extra\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
            #expect(throws: (any Error).self, "\(depth)") { try Manifest.Item.read(Array(deep.utf8)[...]) }
        }
    }
}
