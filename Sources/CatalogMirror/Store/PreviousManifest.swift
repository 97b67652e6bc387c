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
        /// The hash of the file the last run published.
        var sha256: String
        /// When a run first published the key.
        var firstSeen: Date
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
        return PreviousManifest(items: items, decorations: decorations, url: url)
    }

    /// Items decoded at once.
    private static let batchSize = 512

    /// The last run's items in full, by key, read again from the file; nil when it no longer reads.
    func fullItems() -> [String: Manifest.Item]? {
        guard let manifest = try? Manifest.read(from: url) else { return nil }
        return Dictionary(manifest.items.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
