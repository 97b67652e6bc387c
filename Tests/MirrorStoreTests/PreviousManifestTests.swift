import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorStore

@Suite("The previous manifest, read a member at a time")
struct PreviousManifestTests {
    static func manifest(items count: Int) -> Manifest {
        let items = (0..<count).map { (index: Int) -> Manifest.Item in
            // Text that looks like structure: brackets, braces, commas, quotes and escapes.
            let title: String? = index % 3 == 0 ? nil : "T\(index) \"[{,}]\" \\\" \\ ] caf\u{00E9} \u{1F600}"
            let metadata: [String: String]? = index % 2 == 0 ? nil : ["items": "[1, 2]", "x": "}{"]
            return Manifest.Item(
                key: "http://h/img/\(index).png?q=%5B\(index)%5D", path: "images/\(index)-0123456789.png",
                sha256: String(repeating: String(index % 10), count: 64), bytes: Int64(index * 1000),
                contentType: "image/png", title: title, metadata: metadata, album: index % 4 == 0 ? "http://h/a/" : nil,
                etag: "\"e\(index)\"", lastModified: nil, firstSeen: Date(timeIntervalSince1970: 1_700_000_000 + Double(index)),
                lastChecked: Date(timeIntervalSince1970: 1_700_000_100))
        }
        return Manifest(
            source: "http://h/", title: "A \"gallery\" [1]", generatedAt: Date(timeIntervalSince1970: 1_700_000_200),
            items: items,
            rejected: [
                .init(key: "http://h/arrow.png", reason: "decoration"), .init(key: "http://h/x.svg", reason: "unsupported-type"),
                .init(key: "http://h/spin.gif", reason: "decoration"),
            ],
            albums: [.init(url: "http://h/a/", title: "A, [b]")])
    }

    @Test("same keys, hashes and dates as decoding the file whole", arguments: [0, 1, 511, 512, 513, 1100])
    func sameAsWhole(count: Int) throws {
        let manifest = Self.manifest(items: count)
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("manifest.json")
        try manifest.encoded().write(to: url)
        let previous = try #require(PreviousManifest.read(from: url))
        #expect(previous.items.map(\.key) == manifest.items.map(\.key))
        #expect(previous.items.map(\.sha256) == manifest.items.map(\.sha256))
        #expect(zip(previous.items, manifest.items).allSatisfy { $0.hasSHA256($1.sha256) })
        #expect(previous.items.allSatisfy { !$0.hasSHA256(String(repeating: "f", count: 64)) })
        // A hash that is not 64 lower-case hex digits is compared as written.
        for written in ["ab", String(repeating: "A", count: 64), String(repeating: "0", count: 65), ""] {
            let item = PreviousManifest.Item(key: "k", sha256: written, firstSeen: Date())
            #expect(item.sha256 == written && item.hasSHA256(written))
            #expect(!item.hasSHA256(String(repeating: "0", count: 64)))
        }
        let digits = "0123456789abcdef0000000000000000fedcba98765432100000000000000001"
        #expect(PreviousManifest.Item(key: "k", sha256: digits, firstSeen: Date()).sha256 == digits)
        #expect(previous.items.map(\.firstSeen) == manifest.items.map(\.firstSeen))
        #expect(previous.decorations == ["http://h/arrow.png", "http://h/spin.gif"])
    }

    @Test("elements and members come out the same in any chunk size, whatever the member order and spacing")
    func chunks() throws {
        let encoded = try [UInt8](Self.manifest(items: 40).encoded())
        let reordered =
            Array(
                #" { "rejected" : [ {"key":"k\"]","reason":"decoration"} , "s" ] ,"n":-1.5e3,"o":{"a":[1,{"b":"}"}]},"#.utf8)
            + Array(#""items":[],"schema":"x\\\"y" }  "#.utf8)
        for document in [encoded, reordered] {
            var whole: [String] = []
            let members = try JSONMemberScanner.scan(document, arrays: ["items", "rejected"]) { member, bytes in
                whole.append(member + " " + String(decoding: bytes, as: UTF8.self))
            }
            for size in [1, 2, 3, 7, 64, 4096] {
                var pieces: [String] = []
                let chunked = try JSONMemberScanner.scan(document, chunkSize: size, arrays: ["items", "rejected"]) {
                    member, bytes in pieces.append(member + " " + String(decoding: bytes, as: UTF8.self))
                }
                #expect(pieces == whole, "chunk size \(size)")
                #expect(chunked == members, "chunk size \(size)")
            }
            if document == reordered {
                #expect(whole == [#"rejected {"key":"k\"]","reason":"decoration"}"#, #"rejected "s""#])
                #expect(members["n"].map { String(decoding: $0, as: UTF8.self) } == "-1.5e3")
                #expect(members["o"].map { String(decoding: $0, as: UTF8.self) } == #"{"a":[1,{"b":"}"}]}"#)
                #expect(members["schema"].map { String(decoding: $0, as: UTF8.self) } == #""x\\\"y""#)
                #expect(members["items"] == [])
            } else {
                let items = whole.filter { $0.hasPrefix("items ") }.map { Data($0.utf8.dropFirst("items ".count)) }
                #expect(try items.map { try JSONCoding.decode(Manifest.Item.self, from: $0) } == Self.manifest(items: 40).items)
            }
        }
    }

    @Test("an item read without the decoder is the decoder's item; any other shape goes to the decoder")
    func itemsWithoutTheDecoder() throws {
        let hash = String(repeating: "ab", count: 32)
        let date = "2026-11-21T12:00:00Z"
        // Read directly: members in any order and spacing, escapes, others skipped whatever they hold.
        let written = [
            #"{"key":"http://h/a.png","sha256":"\#(hash)","firstSeen":"\#(date)"}"#,
            #"{"key":"http:\/\/h\/a.png","sha256":"\#(hash)","firstSeen":"\#(date)"}"#,
            #"  {  "firstSeen" : "\#(date)" ,"title":"a \"}\" ,]","sha256": "\#(hash)", "key" : "http://h/a.png" }  "#,
            #"{"bytes":12,"metadata":{"x":"}{","y":[1,{"z":"]"}]},"key":"http://h/a.png","etag":null,"#
                + #""sha256":"\#(hash)","variantOf":"http://h/b.png","firstSeen":"\#(date)","flag":true}"#,
        ]
        for text in written {
            let bytes = Array(text.utf8)[...]
            let item = try PreviousManifest.Item.readWritten(bytes)
            let decoded = try JSONCoding.decode(PreviousManifest.Item.self, from: Data(bytes))
            #expect(item.key == decoded.key && item.sha256 == decoded.sha256 && item.firstSeen == decoded.firstSeen)
            #expect(item.key == "http://h/a.png" && item.sha256 == hash && item.firstSeen == Timestamp.date(date))
        }
        // Refused: a missing or non-string field, a bad date, broken structure, trailing bytes.
        let other = [
            #"{"key":"http://h/a.png","sha256":"\#(hash)"}"#,
            #"{"key":1,"sha256":"\#(hash)","firstSeen":"\#(date)"}"#,
            #"{"key":"http://h/a.png","sha256":"\#(hash)","firstSeen":"yesterday"}"#,
            #"{"key":"http://h/a.png","sha256":"\#(hash)","firstSeen":"\#(date)""#,
            #"{"key":"http://h/a.png","sha256":"\#(hash)","firstSeen":"\#(date)"} x"#,
            #"{"key":"http://h/a.png" "sha256":"\#(hash)","firstSeen":"\#(date)"}"#, "{}", "[]", "",
        ]
        for text in other {
            #expect(throws: (any Error).self, "\(text)") { try PreviousManifest.Item.read(Array(text.utf8)[...]) }
        }
        // The decoder reads what the cursor does not: a date with a fraction of another form is
        // still refused by both; a well-formed file of written items reads.
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("manifest.json")
        let file = #"{"schema":"\#(Manifest.schemaName)","items":[\#(written[1]),\#(written[3])],"rejected":[]}"#
        try Data(file.utf8).write(to: url)
        let previous = try #require(PreviousManifest.read(from: url))
        #expect(previous.items.map(\.key) == ["http://h/a.png", "http://h/a.png"])
    }

    @Test("every field the writer writes is skipped over: key, hash and first sighting of an item with all of them")
    func allFieldsSkipped() throws {
        var item = Manifest.Item(
            key: "http://h/k.png", path: "p", sha256: String(repeating: "0", count: 64), bytes: 1, contentType: "image/png",
            firstSeen: Date(timeIntervalSince1970: 1_700_000_000), lastChecked: Date(timeIntervalSince1970: 1_800_000_000))
        (item.title, item.metadata, item.keywords) = ("\"}]", ["a": "{["], ["]", "}"])
        item.exposure = EmbeddedMetadata.Exposure(focalLength: 5, aperture: 1.8, exposureTime: "1/8", iso: 100)
        item.location = EmbeddedMetadata.Location(latitude: 1, longitude: 2)
        var element: [UInt8] = []
        item.write(into: &element)
        let read = try PreviousManifest.Item.readWritten(element[...])
        #expect(read.key == item.key && read.sha256 == item.sha256 && read.firstSeen == item.firstSeen)
    }

    @Test("a damaged, truncated or foreign file is no previous manifest, never a crash")
    func damaged() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("manifest.json")
        let encoded = try [UInt8](Self.manifest(items: 3).encoded())
        // Every prefix that cuts the document short.
        for length in stride(from: 0, to: encoded.count - 2, by: 1) {
            try Data(encoded[..<length]).write(to: url)
            #expect(PreviousManifest.read(from: url) == nil, "first \(length) bytes")
        }
        let foreign = [
            "[1, 2]", "{} x", "{\"schema\": \"other\", \"items\": [], \"rejected\": []}",
            "{\"schema\": \"\(Manifest.schemaName)\", \"items\": []}", "{\"schema\": \"\(Manifest.schemaName)\", \"items\": {}}",
            "{\"schema\": \"\(Manifest.schemaName)\", \"items\": [{\"key\": 1}], \"rejected\": []}",
            "{\"schema\": \"\(Manifest.schemaName)\", \"items\": [}, \"rejected\": []}", "{\"schema\" \"x\"}", "",
        ]
        for text in foreign {
            try Data(text.utf8).write(to: url)
            #expect(PreviousManifest.read(from: url) == nil, "\(text)")
        }
        try Data("{\"schema\": \"\(Manifest.schemaName)\", \"items\": [], \"rejected\": []}".utf8).write(to: url)
        #expect(PreviousManifest.read(from: url)?.items.isEmpty == true)
    }

    @Test("a missing manifest is a first run; a damaged one says what is wrong with it")
    func loadTellsMissingFromDamaged() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let url = directory.url.appendingPathComponent("manifest.json")
        guard case .missing = PreviousManifest.load(from: url) else { Issue.record("no file is not missing"); return }
        for (text, problem) in [
            ("{\"schema\": ", "not well-formed JSON"), ("{\"schema\": \"other\", \"items\": [], \"rejected\": []}", "not a"),
            ("{\"schema\": \"\(Manifest.schemaName)\", \"items\": [{\"key\": 1}], \"rejected\": []}", "an item"), ("", "not"),
        ] {
            try Data(text.utf8).write(to: url)
            guard case .damaged(let said) = PreviousManifest.load(from: url) else {
                Issue.record("\(text) is not damaged")
                continue
            }
            #expect(said.hasPrefix(problem), "\(text): \(said)")
        }
    }

    @Test("the index stands in for a damaged manifest: keys in byte order, hashes, first sightings, whole items")
    func fromIndex() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let rows = ["http://h/b.png", "http://h/B.png", "http://h/a.png"].enumerated().map { number, key in
            StoredImage(
                key: CanonicalURL(key)!, fileName: "f\(number).png", sha256: String(repeating: "\(number)", count: 64),
                byteCount: Int64(number + 1), contentType: "image/png", etag: "\"\(number)\"", lastModified: nil,
                firstSeen: date.addingTimeInterval(Double(number)), lastChecked: date)
        }
        let previous = PreviousManifest(index: rows, url: URL(fileURLWithPath: "/nonexistent/manifest.json"))
        #expect(previous.items.map(\.key) == ["http://h/B.png", "http://h/a.png", "http://h/b.png"])
        #expect(previous.items.hasSHA256(String(repeating: "2", count: 64), at: 1))
        #expect(previous.items.firstSeen(at: 2) == date)
        let full = try #require(previous.fullItems())
        #expect(full["http://h/a.png"]?.path == "images/f2.png" && full["http://h/a.png"]?.etag == "\"2\"")
        #expect(full.count == 3 && previous.decorations.isEmpty)
    }
}
