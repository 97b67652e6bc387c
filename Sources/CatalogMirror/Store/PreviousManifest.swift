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

    private struct Fields: Decodable {
        var schema: String
        var items: [Item]
        var rejected: [Manifest.Rejection]
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
        guard let data = FileManager.default.contents(atPath: url.path),
            let fields = try? JSONCoding.decode(Fields.self, from: data), fields.schema == Manifest.schemaName
        else { return nil }
        return PreviousManifest(
            items: fields.items,
            decorations: fields.rejected.filter { $0.reason == RejectionReason.decoration.rawValue }.map(\.key), url: url)
    }

    /// The last run's items in full, by key, read again from the file; nil when it no longer reads.
    func fullItems() -> [String: Manifest.Item]? {
        guard let manifest = try? Manifest.read(from: url) else { return nil }
        return Dictionary(manifest.items.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
