import Foundation

/// `manifest.json`, exactly as SPEC.md fixes it (`catalog-mirror/manifest@1`).
public struct Manifest: Codable, Sendable, Equatable {
    /// The value of `schema` this version writes and reads.
    public static let schemaName = "catalog-mirror/manifest@1"

    /// One published image.
    public struct Item: Codable, Sendable, Equatable {
        /// The image's canonical URL.
        public var key: String
        /// Where the file is, relative to the mirror directory (`images/<name>`).
        public var path: String
        /// SHA-256 of the file's bytes, lower-case hex.
        public var sha256: String
        /// The file's size in bytes.
        public var bytes: Int64
        /// The media type the bytes were checked to be (`image/png`...).
        public var contentType: String
        /// The photo's title, as the source gives it.
        public var title: String?
        /// Other catalog text the source gives (price, caption, alt...); nil when there is none.
        public var metadata: [String: String]?
        /// The canonical URL of the page (in crawl order) where the photo was first found.
        public var album: String?
        /// On a smaller rendition of a photo: the key of that photo's largest published rendition.
        public var variantOf: String?
        /// The `ETag` the server last sent, for conditional requests.
        public var etag: String?
        /// The `Last-Modified` the server last sent.
        public var lastModified: String?
        /// When a run first published this key.
        public var firstSeen: Date
        /// When a run last confirmed the file current (downloaded or answered 304).
        public var lastChecked: Date
    }

    /// A page of the source that holds a published photo.
    public struct Album: Codable, Sendable, Equatable {
        /// The page's canonical URL.
        public var url: String
        /// The page's title, as the source titles it.
        public var title: String?
    }

    /// One key seen and not published.
    public struct Rejection: Codable, Sendable, Equatable {
        /// The key's canonical URL.
        public var key: String
        /// Why it was not published: a kebab-case reason (`not-an-image`, `http-404`...).
        public var reason: String
    }

    /// `catalog-mirror/manifest@1`.
    public var schema: String = Manifest.schemaName
    /// The source URL the mirror was made from.
    public var source: String
    /// The source's title (its start page's `<title>`), when it has one.
    public var title: String?
    /// When the run that wrote the manifest started publishing.
    public var generatedAt: Date
    /// Sorted by key in byte order.
    public var items: [Item]
    /// Sorted by key in byte order.
    public var rejected: [Rejection]
    /// Every page that holds a published photo, in crawl order. Nil in manifests written before
    /// albums were kept.
    public var albums: [Album]?

    /// Pretty, key-sorted JSON with second-precision UTC dates: byte-identical for equal input.
    /// The manifest as `JSONCoding` writes it, byte for byte.
    public func encoded() throws -> Data {
        var output = Data()
        try write { output.append(contentsOf: $0) }
        return output
    }

    /// Hands the encoded manifest to `sink` piece by piece, with the items encoded a batch at a
    /// time: `JSONEncoder` builds a tree of the whole value first, which for 10,000 items was the
    /// run's peak memory (20 MB for a 5 MB file). The skeleton (every field, no items) and each
    /// batch come from `JSONCoding`; a batch's lines move two spaces right, to the depth the
    /// items have in the whole document (JSON strings cannot hold a raw newline, so lines are
    /// exactly the encoder's lines). The result equals `JSONCoding.encode(self)` (tested).
    public func write(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        func emit(_ bytes: some DataProtocol) throws {
            for region in bytes.regions { try region.withUnsafeBytes { try sink($0) } }
        }
        var skeleton = self
        skeleton.items = []
        let empty = try JSONCoding.encode(skeleton)
        let placeholder = Data("\n  \"items\" : [\n\n  ]".utf8)
        guard !items.isEmpty, let slot = empty.firstRange(of: placeholder) else {
            try emit(items.isEmpty ? empty : try JSONCoding.encode(self))
            return
        }
        try emit(empty[..<slot.lowerBound])
        try emit(Data("\n  \"items\" : [\n".utf8))
        let batchSize = 256
        for start in stride(from: 0, to: items.count, by: batchSize) {
            let batch = try JSONCoding.encode(Array(items[start..<min(start + batchSize, items.count)]))
            try emit(Self.indentedElements(batch, first: start == 0))
        }
        try emit(Data("\n  ]".utf8))
        try emit(empty[slot.upperBound...])
    }

    /// The elements of `array`, a pretty-printed JSON array followed by a newline
    /// (`"[\n  {\n ... \n  }\n]\n"`), without its brackets and with every line indented by two
    /// more spaces, so that they sit inside the manifest's `items`; preceded by `",\n"` unless
    /// they are the `first`. One pass over the bytes (splitting into lines was a tenth of a
    /// no-op sync).
    static func indentedElements(_ array: Data, first: Bool) -> [UInt8] {
        array.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> [UInt8] in
            // "[\n" before the elements, "\n]\n" after them.
            guard raw.count > 5, let base = raw.baseAddress else { return [] }
            let body = UnsafeRawBufferPointer(start: base + 2, count: raw.count - 5)
            var newlines = 0
            var cursor = body.baseAddress!
            let end = cursor + body.count
            while let found = memchr(cursor, 0x0A, end - cursor) {
                newlines += 1
                cursor = UnsafeRawPointer(found) + 1
            }
            let prefix: [UInt8] = first ? [0x20, 0x20] : [0x2C, 0x0A, 0x20, 0x20]
            return [UInt8](unsafeUninitializedCapacity: prefix.count + body.count + 2 * newlines) { out, count in
                var written = 0
                func put(_ source: UnsafeRawPointer, _ length: Int) {
                    guard length > 0 else { return }
                    UnsafeMutableRawPointer(out.baseAddress! + written).copyMemory(from: source, byteCount: length)
                    written += length
                }
                func indent() {
                    out[written] = 0x20
                    out[written + 1] = 0x20
                    written += 2
                }
                for byte in prefix {
                    out[written] = byte
                    written += 1
                }
                var lineStart = body.baseAddress!
                while let found = memchr(lineStart, 0x0A, end - lineStart) {
                    let next = UnsafeRawPointer(found) + 1
                    put(lineStart, next - lineStart)
                    indent()
                    lineStart = next
                }
                put(lineStart, end - lineStart)
                count = written
            }
        }
    }

    /// Reads the manifest at `url`.
    /// - Throws: a file or JSON error, or `StoreError` for a schema this version does not know.
    public static func read(from url: URL) throws -> Manifest {
        let manifest = try JSONCoding.decode(Manifest.self, from: Data(contentsOf: url))
        guard manifest.schema == schemaName else {
            throw StoreError("unknown manifest schema \"\(manifest.schema)\" (expected \(schemaName))")
        }
        return manifest
    }
}

/// RFC 3339 UTC timestamps with second precision, e.g. `2026-11-21T12:00:00Z`.
///
/// Formatted and parsed by hand on `gmtime_r`/`timegm`: a manifest has two dates per item, and
/// creating ICU-backed formatters for them was a fifth of a no-op sync's CPU time.
public enum Timestamp {
    /// `date` as `YYYY-MM-DDTHH:MM:SSZ`, fractional seconds dropped.
    public static func string(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var out = ""
        out.reserveCapacity(20)
        func append(_ value: Int32, width: Int) {
            let digits = String(value)
            if digits.count < width { out += String(repeating: "0", count: width - digits.count) }
            out += digits
        }
        append(parts.tm_year + 1900, width: 4)
        out += "-"
        append(parts.tm_mon + 1, width: 2)
        out += "-"
        append(parts.tm_mday, width: 2)
        out += "T"
        append(parts.tm_hour, width: 2)
        out += ":"
        append(parts.tm_min, width: 2)
        out += ":"
        append(parts.tm_sec, width: 2)
        out += "Z"
        return out
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS`, an optional fraction, and `Z` or `±HH:MM`; nil otherwise.
    public static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int32? {
            var value: Int32 = 0
            for index in start..<start + count {
                guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int32(bytes[index] - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(8, 2), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"), let minute = number(14, 2),
            bytes[16] == UInt8(ascii: ":"), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, let hours = number(index + 1, 2), bytes[index + 3] == UInt8(ascii: ":"),
                let minutes = number(index + 4, 2), hours < 24, minutes < 60
            else { return nil }
            offset = Int(hours) * 3600 + Int(minutes) * 60
            if bytes[index] == UInt8(ascii: "-") { offset = -offset }
        default:
            return nil
        }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    /// `date` with its fractional seconds dropped, so what is written reads back equal.
    public static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
