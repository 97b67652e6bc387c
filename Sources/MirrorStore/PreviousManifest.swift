import Foundation
import MirrorCore

/// What a run needs of the last run's `manifest.json`: each published key's hash and first-seen
/// date, and the keys it rejected as decoration.
///
/// Only those fields are decoded: the whole manifest, held from the start of a run to its end,
/// was a large part of a re-sync's peak. The rare key that keeps
/// its published file while failing this run needs its whole item; `fullItems()` reads the
/// file again for that.
package struct PreviousManifest: Sendable {
    /// One published item of the last run, as far as comparing against it needs.
    package struct Item: Decodable, Sendable {
        /// The key's canonical URL.
        package var key: String
        /// The hash of the file the last run published, as its 32 bytes: the 64-digit text is
        /// 96 bytes on the heap for every item. A value that is not 64 lower-case hex digits is
        /// kept as it was written.
        fileprivate var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        fileprivate var unparsed: String?
        /// When a run first published the key.
        var firstSeen: Date

        private enum CodingKeys: String, CodingKey { case key, sha256, firstSeen }

        init(key: String, sha256: String, firstSeen: Date) {
            self.key = key
            self.firstSeen = firstSeen
            if let digest = Self.digest(sha256) { self.digest = digest } else { unparsed = sha256 }
        }

        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                key: try container.decode(String.self, forKey: .key), sha256: try container.decode(String.self, forKey: .sha256),
                firstSeen: try container.decode(Date.self, forKey: .firstSeen))
        }

        /// The hash as the manifest wrote it.
        var sha256: String {
            if let unparsed { return unparsed }
            return [digest.0, digest.1, digest.2, digest.3].map { word in
                String(repeating: "0", count: word.leadingZeroBitCount / 4) + (word == 0 ? "" : String(word, radix: 16))
            }.joined()
        }

        /// Whether the last run published the file whose hash is `sha256` (hex, as the store keeps it).
        func hasSHA256(_ sha256: String) -> Bool {
            if let unparsed { return unparsed == sha256 }
            guard let other = Self.digest(sha256) else { return false }
            return digest == other
        }

        /// 64 lower-case hex digits as four words; nil for anything else.
        fileprivate static func digest(_ text: String) -> (UInt64, UInt64, UInt64, UInt64)? {
            var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            var count = 0
            for byte in text.utf8 {
                let value: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
                default: return nil
                }
                guard count < 64 else { return nil }
                switch count / 16 {
                case 0: words.0 = words.0 << 4 | UInt64(value)
                case 1: words.1 = words.1 << 4 | UInt64(value)
                case 2: words.2 = words.2 << 4 | UInt64(value)
                default: words.3 = words.3 << 4 | UInt64(value)
                }
                count += 1
            }
            guard count == 64 else { return nil }
            return words
        }

        /// The item of one element of `items`: its `key`, `sha256` and `firstSeen` read by
        /// `JSONCursor` through the manifest's field list, the other members skipped, not
        /// decoded (decoding every element was most of the cost of reading the previous
        /// manifest); by `JSONDecoder` when the element is not what this version writes.
        package static func read(_ element: ArraySlice<UInt8>) throws -> Item {
            do {
                return try readWritten(element)
            } catch {
                return try JSONCoding.decode(Item.self, from: Data(element))
            }
        }

        /// `read` without the decoder: throws for anything it does not read.
        static func readWritten(_ element: ArraySlice<UInt8>) throws -> Item {
            var key: String?
            var sha256: String?
            var firstSeen: Date?
            try JSONCursor.reading(element) { cursor in
                _ = try Manifest.Item.Field.members(of: &cursor) { field, cursor in
                    switch field {
                    case .key: key = try cursor.string()
                    case .sha256: sha256 = try cursor.string()
                    case .firstSeen: firstSeen = Timestamp.date(try cursor.string())
                    default: try cursor.skipValue()
                    }
                }
            }
            guard let key, let sha256, let firstSeen else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not an item"))
            }
            return Item(key: key, sha256: sha256, firstSeen: firstSeen)
        }
    }

    /// The last run's items, packed: every key's bytes back to back in one buffer, a hash in
    /// 32 bytes. As `[Item]` each key was a string of its own beside a 72-byte value, held from
    /// the start of a re-sync to its plan.
    package struct Items: RandomAccessCollection, Sendable {
        private var keys = PackedBytes()
        private var digests: [(UInt64, UInt64, UInt64, UInt64)] = []
        /// The hashes that are not 64 lower-case hex digits, as written.
        private var unparsed: [Int32: String] = [:]
        private var dates: [Date] = []

        package init() {}

        package var startIndex: Int { 0 }
        package var endIndex: Int { keys.count }

        /// The item at `index`, its key made a string.
        package subscript(index: Int) -> Item {
            var item = Item(key: String(decoding: key(at: index), as: UTF8.self), sha256: "", firstSeen: dates[index])
            (item.digest, item.unparsed) = (digests[index], unparsed[Int32(index)])
            return item
        }

        /// The UTF-8 bytes of the key at `index`.
        package func key(at index: Int) -> ArraySlice<UInt8> { keys[index] }

        package func firstSeen(at index: Int) -> Date { dates[index] }

        /// `Item.hasSHA256(_:)` of the item at `index`.
        package func hasSHA256(_ sha256: String, at index: Int) -> Bool {
            if let written = unparsed[Int32(index)] { return written == sha256 }
            guard let other = Item.digest(sha256) else { return false }
            return digests[index] == other
        }

        mutating func append(_ item: Item) {
            if let written = item.unparsed { unparsed[Int32(keys.count)] = written }
            keys.append(item.key.utf8)
            digests.append(item.digest)
            dates.append(item.firstSeen)
        }

        /// The same items in arrays of their size: grown by doubling, they kept up to twice
        /// the room they need for the whole run.
        func fitted() -> Items {
            func fit<Element>(_ array: [Element]) -> [Element] {
                var copy: [Element] = []
                copy.reserveCapacity(array.count)
                copy.append(contentsOf: array)
                return copy
            }
            var fitted = Items()
            (fitted.keys, fitted.digests, fitted.dates) = (keys.fitted(), fit(digests), fit(dates))
            fitted.unparsed = unparsed
            return fitted
        }
    }

    /// Every item, in the manifest's order (by key).
    package let items: Items
    /// Keys the last run rejected as decoration (never requested again).
    package let decorations: [String]
    /// The file read.
    package let url: URL
    /// The whole items, when they come from the index rather than the file (`init(index:url:)`).
    private var indexItems: [String: Manifest.Item]?

    private init(items: Items, decorations: [String], url: URL) {
        self.items = items
        self.decorations = decorations
        self.url = url
    }

    /// The last run as the index's published rows tell it (key, file, hash, validators, dates;
    /// no catalog text): what stands in for a damaged manifest.
    init(index rows: [StoredImage], url: URL) {
        var items = Items()
        var full: [String: Manifest.Item] = [:]
        for row in rows.sorted(by: { ByteOrder.precedes($0.key.string.utf8, $1.key.string.utf8) }) {
            items.append(Item(key: row.key.string, sha256: row.sha256, firstSeen: row.firstSeen))
            full[row.key.string] = Manifest.Item(
                key: row.key.string, path: row.path, sha256: row.sha256, bytes: row.byteCount, contentType: row.contentType,
                etag: row.etag, lastModified: row.lastModified, firstSeen: row.firstSeen, lastChecked: row.lastChecked,
                width: row.dimensions?.width, height: row.dimensions?.height)
        }
        self.init(items: items.fitted(), decorations: [], url: url)
        indexItems = full
    }

    /// What reading the last run's manifest found.
    enum Loaded {
        /// There is no manifest (a first run).
        case missing
        case read(PreviousManifest)
        /// There is a file, and it is not a manifest this version can read: what is wrong.
        case damaged(String)
    }

    /// The manifest at `url`; nil when there is none or it cannot be read.
    static func read(from url: URL) -> PreviousManifest? {
        if case .read(let manifest) = load(from: url) { return manifest }
        return nil
    }

    /// The manifest at `url`, or why there is none.
    static func load(from url: URL) -> Loaded {
        guard FileManager.default.fileExists(atPath: url.path) else { return .missing }
        // Read a member at a time, its items one by one: decoded whole, the file and the
        // decoder's map of it were held at once, the peak of a re-sync.
        var items = Items()
        var decorations: [String] = []
        do {
            let members = try JSONMemberScanner.scan(file: url, arrays: ["items", "rejected"]) { member, bytes in
                if member == "items" {
                    items.append(try Item.read(bytes))
                } else {
                    let rejection = try JSONCoding.decode(Manifest.Rejection.self, from: Data(bytes))
                    if rejection.reason == RejectionReason.decoration.rawValue { decorations.append(rejection.key) }
                }
            }
            guard let schema = members["schema"], members["items"] != nil, members["rejected"] != nil,
                try JSONCoding.decode(String.self, from: Data(schema)) == Manifest.schemaName
            else { return .damaged("not a \(Manifest.schemaName) document") }
        } catch is JSONMemberScanner.Malformed {
            return .damaged("not well-formed JSON")
        } catch {
            return .damaged("an item that cannot be read")
        }
        return .read(PreviousManifest(items: items.fitted(), decorations: decorations, url: url))
    }

    /// The last run's items in full, by key, read again from the file (or taken from the index
    /// for a damaged one); nil when it no longer reads.
    package func fullItems() -> [String: Manifest.Item]? {
        if let indexItems { return indexItems }
        guard let manifest = try? Manifest.read(from: url) else { return nil }
        return Dictionary(manifest.items.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
