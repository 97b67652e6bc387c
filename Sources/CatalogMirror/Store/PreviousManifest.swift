import Foundation

/// What a run needs of the last run's `manifest.json`: each published key's hash and first-seen
/// date, and the keys it rejected as decoration.
///
/// Only those fields are decoded: the whole manifest, held from the start of a run to its end,
/// was about 500 bytes an item (25 MB of a 50,000-item re-sync's peak). The rare key that keeps
/// its published file while failing this run needs its whole item; `fullItems()` reads the
/// file again for that.
struct PreviousManifest: Sendable {
    /// One published item of the last run, as far as comparing against it needs.
    struct Item: Decodable, Sendable {
        /// The key's canonical URL.
        var key: String
        /// The hash of the file the last run published, as its 32 bytes: the 64-digit text is
        /// 96 bytes on the heap for every item (5 MB at 50,000 items). A value that is not 64
        /// lower-case hex digits is kept as it was written.
        private var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        private var unparsed: String?
        /// When a run first published the key.
        var firstSeen: Date

        private enum CodingKeys: String, CodingKey { case key, sha256, firstSeen }

        init(key: String, sha256: String, firstSeen: Date) {
            self.key = key
            self.firstSeen = firstSeen
            if let digest = Self.digest(sha256) { self.digest = digest } else { unparsed = sha256 }
        }

        init(from decoder: any Decoder) throws {
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
        private static func digest(_ text: String) -> (UInt64, UInt64, UInt64, UInt64)? {
            var words: [UInt64] = []
            var word: UInt64 = 0
            var count = 0
            for byte in text.utf8 {
                let value: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
                default: return nil
                }
                guard count < 64 else { return nil }
                word = word << 4 | UInt64(value)
                count += 1
                if count % 16 == 0 {
                    words.append(word)
                    word = 0
                }
            }
            guard count == 64 else { return nil }
            return (words[0], words[1], words[2], words[3])
        }
    }

    /// Every item, in the manifest's order (by key).
    let items: [Item]
    /// Keys the last run rejected as decoration (never requested again).
    let decorations: [String]
    /// The file read.
    let url: URL

    /// The manifest at `url`; nil when there is none or it cannot be read (a first run, or a
    /// damaged file: the run then treats every key as new and removes nothing).
    static func read(from url: URL) -> PreviousManifest? {
        // Read a member at a time, its items a batch at a time: decoded whole, the file and the
        // decoder's map of it were 50 MB of a 50,000-item re-sync's peak.
        var items: [Item] = []
        var decorations: [String] = []
        var batch: [UInt8] = []
        var batched = 0
        func decodeBatch() throws {
            guard batched > 0 else { return }
            batch.append(UInt8(ascii: "]"))
            items += try JSONCoding.decode([Item].self, from: Data(batch))
            batch.removeAll(keepingCapacity: true)
            batched = 0
        }
        do {
            let members = try JSONMemberScanner.scan(file: url.path, arrays: ["items", "rejected"]) { member, bytes in
                if member == "items" {
                    batch.append(batched == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
                    batch.append(contentsOf: bytes)
                    batched += 1
                    if batched == batchSize { try decodeBatch() }
                } else {
                    let rejection = try JSONCoding.decode(Manifest.Rejection.self, from: Data(bytes))
                    if rejection.reason == RejectionReason.decoration.rawValue { decorations.append(rejection.key) }
                }
            }
            try decodeBatch()
            guard let schema = members["schema"], members["items"] != nil, members["rejected"] != nil,
                try JSONCoding.decode(String.self, from: Data(schema)) == Manifest.schemaName
            else { return nil }
        } catch {
            return nil
        }
        // Copied to its size: grown a batch at a time, the array kept up to twice the room it
        // needs for the whole run (1 MB at 50,000 items).
        var fitted: [Item] = []
        fitted.reserveCapacity(items.count)
        fitted.append(contentsOf: items)
        return PreviousManifest(items: fitted, decorations: decorations, url: url)
    }

    /// Items decoded at once.
    private static let batchSize = 512

    /// The last run's items in full, by key, read again from the file; nil when it no longer reads.
    func fullItems() -> [String: Manifest.Item]? {
        guard let manifest = try? Manifest.read(from: url) else { return nil }
        return Dictionary(manifest.items.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
