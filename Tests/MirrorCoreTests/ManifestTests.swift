import Foundation
import Testing

@testable import MirrorCore

@Suite("The manifest and its items")
struct ManifestTests {
    @Test(
        "the manifest's items are written by hand, byte for byte as one JSONEncoder pass",
        arguments: [0, 1, 255, 256, 600])
    func manifestBatches(count: Int) throws {
        // Every control character, quotes, backslashes, slashes, DEL, non-ASCII, and metadata
        // names whose order differs between bytes, case and numbers.
        let awkward = String(decoding: (0..<0x20).map { UInt8($0) } + Array("\"\\/\u{7F}é😀".utf8), as: UTF8.self)
        let items = (0..<count).map { (index: Int) -> Manifest.Item in
            let title: String? = index % 3 == 0 ? nil : "Title \(index) \"quoted\"\nnew line, caf\u{00E9} / \u{1F600}"
            let metadata: [String: String]? =
                switch index % 4 {
                case 0: nil
                case 1: ["price": "\(index).00", "description": "a\tb\\c"]
                case 2: [:]
                default: ["b": awkward, "B": "", "a10": "x", "a9": "y", "é": "z", "alt": "\(index)", awkward: "key"]
                }
            let etag: String? = index % 5 == 0 ? nil : "\"e\(index)\""
            return Manifest.Item(
                key: "http://h/img/\(index).png", path: "images/\(index)-0123456789.png",
                sha256: String(repeating: "a", count: 64),
                bytes: Int64(index * 1000), contentType: "image/png", title: index == 7 ? awkward : title,
                metadata: metadata, album: index % 2 == 0 ? "http://h/album/\(index / 10)/" : nil,
                variantOf: index % 6 == 1 ? "http://h/img/\(index - 1).png" : nil, etag: etag,
                lastModified: index % 4 == 3 ? "Tue, 21 Nov 2026 12:00:00 GMT" : nil,
                firstSeen: Date(timeIntervalSince1970: 1_700_000_000), lastChecked: Date(timeIntervalSince1970: 1_700_000_100))
        }
        let manifest = Manifest(
            source: "http://h/", generatedAt: Date(timeIntervalSince1970: 1_700_000_200), items: items,
            rejected: [.init(key: "http://h/x.svg", reason: "unsupported-type")])
        let batched = try manifest.encoded()
        #expect(batched == (try JSONCoding.encode(manifest)))
        #expect(try JSONCoding.decode(Manifest.self, from: batched) == manifest)
    }

    @Test("packed items read back as they went in: hashes, missing and empty validators, texts across chunks")
    func packedItems() {
        let hashes = [
            String(repeating: "0123456789abcdef", count: 4),  // packed into 32 bytes
            String(repeating: "0123456789ABCDEF", count: 4),  // upper case: kept as written
            "not-a-hash", "", String(repeating: "f", count: 63) + "g",
        ]
        // 3,000 items of about 700 bytes of text are two chunks and more; one ETag is larger
        // than a chunk on its own.
        let items = (0..<3000).map { (index: Int) -> Manifest.Item in
            Manifest.Item(
                key: "http://h/img/\(index).png", path: "images/\(index)-" + String(repeating: "é", count: 300) + ".png",
                sha256: hashes[index % hashes.count], bytes: Int64(index),
                contentType: index % 2 == 0 ? "image/png" : "image/webp",
                title: index % 3 == 0 ? nil : "Photo \(index)", metadata: index % 4 == 0 ? ["price": "\(index)"] : nil,
                album: index % 5 == 0 ? "http://h/a/" : nil, variantOf: index % 7 == 0 ? "http://h/img/0.png" : nil,
                etag: index == 1500 ? String(repeating: "e", count: 1_500_000) : [nil, "", "\"v\(index)\""][index % 3],
                lastModified: [nil, "", "Tue, 21 Nov 2026 12:00:00 GMT"][(index + 1) % 3],
                firstSeen: Date(timeIntervalSinceReferenceDate: Double(index) + 0.123_456_789),
                lastChecked: Date(timeIntervalSince1970: 1_700_000_000.5))
        }
        var table = ItemTable()
        for item in items { table.append(item) }
        #expect(table.count == items.count)
        #expect(Array(table) == items)
        #expect(table.sha256(at: 1) == hashes[1] && table.sha256(at: 0) == hashes[0])
        #expect(table.etag(at: 0) == nil && table.etag(at: 1) == "" && table.lastModified(at: 0) == "")
        table.setAlbum("http://h/b/", at: 2)
        table.setVariantOf(item: nil, at: 7)
        table.setVariantOf(item: 3, at: 9)
        table.setTitle("Renamed", at: 3)
        table.setMetadata(["alt": "x"], at: 5)
        var changed = items
        changed[2].album = "http://h/b/"
        changed[7].variantOf = nil
        changed[9].variantOf = items[3].key
        changed[3].title = "Renamed"
        changed[5].metadata = ["alt": "x"]
        #expect(Array(table) == changed)
        #expect(table == ItemTable(changed))
        #expect(table != ItemTable(items))
    }

    @Test("the manifest is sorted-key JSON with second-precision UTC dates and unescaped slashes")
    func manifestFormat() throws {
        let manifest = Manifest(
            source: "http://h/g/", generatedAt: Date(timeIntervalSince1970: 1_795_000_000.75),
            items: [item(nil)], rejected: [.init(key: "http://h/b", reason: "http-404")])
        let text = String(decoding: try manifest.encoded(), as: UTF8.self)
        #expect(text.contains("\"generatedAt\" : \"2026-11-18T"))
        #expect(text.contains("\"schema\" : \"catalog-mirror/manifest@1\""))
        #expect(text.contains("http://h/g/"))
        #expect(!text.contains("\"title\""))
        #expect(!text.contains("\"metadata\""))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("manifest-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: url) }
        try manifest.encoded().write(to: url)
        let read = try Manifest.read(from: url)
        #expect(read.items == manifest.items)
        #expect(read.generatedAt == Timestamp.truncated(manifest.generatedAt))
    }

    @Test("width and height are written as JSONEncoder writes them, and a manifest without them still reads")
    func manifestSizes() throws {
        let items = [sizedItem("a", width: 640, bytes: 1), sizedItem("b", width: nil, bytes: 2)]
        let manifest = Manifest(source: "http://h/", generatedAt: Date(timeIntervalSince1970: 0), items: items, rejected: [])
        let encoded = try manifest.encoded()
        #expect(encoded == (try JSONCoding.encode(manifest)))
        let text = String(decoding: encoded, as: UTF8.self)
        #expect(text.contains("\"height\" : 480") && text.contains("\"width\" : 640"))
        #expect(try JSONCoding.decode(Manifest.self, from: encoded).items == items)
        let old = text.replacingOccurrences(of: ",\n      \"width\" : 640", with: "").replacingOccurrences(
            of: "\n      \"height\" : 480,", with: "")
        #expect(try JSONCoding.decode(Manifest.self, from: Data(old.utf8)).items.first?.width == nil)
    }

    /// An item titled `title`, the `number`th of its manifest.
    func item(_ title: String?, metadata: [String: String]? = nil, number: Int = 0) -> Manifest.Item {
        Manifest.Item(
            key: "http://h/x\(number).png", path: "images/x\(number)-0123456789.png", sha256: "ab", bytes: 1234,
            contentType: "image/png",
            title: title, metadata: metadata, firstSeen: Date(timeIntervalSince1970: 0),
            lastChecked: Date(timeIntervalSince1970: 0))
    }

    /// An item `width` pixels wide (and three quarters of that high), of `bytes` bytes, in an album.
    @Test("what a file says about itself is written as JSONEncoder writes it, awkward numbers and texts included")
    func manifestEmbedded() throws {
        var items: [Manifest.Item] = []
        let numbers: [Double] = [5.6, 107, 0.1, 1e-7, 48.8583701, -2.2944813, 123_456.5, 1e21, 0.000_012_3]
        for (index, number) in numbers.enumerated() {
            var item = sizedItem("p\(index)", width: index % 2 == 0 ? 640 : nil, bytes: Int64(index))
            item.taken = "2008-01-22T03:28:22+01:00"
            item.camera = "Canon \"EOS\" <350D> \\ é"
            item.lens = index == 0 ? nil : "EF/\u{1}"
            item.exposure = EmbeddedMetadata.Exposure(
                focalLength: number, aperture: index == 3 ? nil : number, exposureTime: index == 4 ? nil : "1/80",
                iso: index == 5 ? nil : 400)
            item.keywords = index == 6 ? [] : ["a", "b \"c\"", "🌊"]
            item.creator = "Ann"
            item.copyright = "© 2019"
            item.location = EmbeddedMetadata.Location(
                latitude: number.truncatingRemainder(dividingBy: 90), longitude: -number.truncatingRemainder(dividingBy: 180))
            item.title = "Title \(index)"
            item.titleFrom = [Manifest.TextSource.page, .file, .name][index % 3]
            item.captionFrom = index % 2 == 0 ? .file : nil
            items.append(item)
        }
        var empty = sizedItem("z", width: nil, bytes: 9)
        empty.exposure = EmbeddedMetadata.Exposure()
        items.append(empty)
        let manifest = Manifest(source: "http://h/", generatedAt: Date(timeIntervalSince1970: 0), items: items, rejected: [])
        let encoded = try manifest.encoded()
        #expect(String(decoding: encoded, as: UTF8.self) == String(decoding: try JSONCoding.encode(manifest), as: UTF8.self))
        // The table keeps an exposure only when it says something, as the reader makes them.
        let kept = items.map { item in
            var kept = item
            if kept.exposure?.isEmpty == true { kept.exposure = nil }
            return kept
        }
        #expect(try JSONCoding.decode(Manifest.self, from: encoded).items == kept)
        #expect(Array(ItemTable(items)) == kept)
    }

    func sizedItem(_ name: String, width: Int?, bytes: Int64) -> Manifest.Item {
        Manifest.Item(
            key: "http://h/g/\(name).jpg", path: "images/\(name)-0123456789.jpg", sha256: "ab", bytes: bytes,
            contentType: "image/jpeg", album: "http://h/g/nature/", firstSeen: Date(timeIntervalSince1970: 0),
            lastChecked: Date(timeIntervalSince1970: 0), width: width, height: width.map { $0 * 3 / 4 })
    }
}

@Suite("Timestamps")
struct TimestampTests {
    @Test("format and parse round-trip, across years, leap days and the epoch")
    func roundTrip() {
        for seconds in stride(from: -86_400.0 * 365 * 30, through: 86_400.0 * 365 * 80, by: 86_400.0 * 37.3 + 3_607) {
            let date = Date(timeIntervalSince1970: seconds.rounded(.down))
            #expect(Timestamp.date(Timestamp.string(date)) == date, "\(seconds)")
        }
        #expect(Timestamp.string(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.string(Date(timeIntervalSince1970: 1_709_164_800)) == "2024-02-29T00:00:00Z")
        #expect(Timestamp.string(Date(timeIntervalSince1970: 1_795_000_000.99)) == "2026-11-18T11:06:40Z")
    }

    @Test(
        "fractions and offsets are read; anything else is refused",
        arguments: [
            ("2026-11-21T12:00:00Z", 1_795_262_400.0), ("2026-11-21T12:00:00.5Z", 1_795_262_400.5),
            ("2026-11-21T13:30:00+01:30", 1_795_262_400.0), ("2026-11-21t12:00:00z", 1_795_262_400.0),
        ])
    func parses(text: String, seconds: Double) {
        #expect(Timestamp.date(text)?.timeIntervalSince1970 == seconds)
    }

    @Test(
        "malformed timestamps are nil",
        arguments: [
            "", "2026-11-21", "2026-13-01T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T12:00:00", "2026-11-21T12:00:00Zjunk",
            "2026-11-21 12:00:00Z", "２026-11-21T12:00:00Z", "2026-11-21T12:00:00.Z", "2026-11-21T12:00:00+0100",
        ])
    func refuses(text: String) {
        #expect(Timestamp.date(text) == nil)
    }
}
