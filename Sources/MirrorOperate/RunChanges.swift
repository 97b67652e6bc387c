import Foundation
import MirrorCore
import MirrorStore

/// Which images a run added, replaced and removed: the `changes` of `--report FILE`, each entry
/// its key and file (and title and album where known), in key order.
///
/// A finished run's changes are not copied out of what it published: they read the new
/// manifest's packed items (`ItemTable`) by number, so a 100,000-item first run does not hold
/// its 100,000 additions a second time, and `RunReport.write(into:)` writes them an entry at a
/// time. Only removed items, which the new manifest no longer has, are held here as entries,
/// read back from the previous manifest (at most `--max-delete` of them). A report read back
/// from JSON holds plain entries.
public struct RunChanges: Sendable, Equatable, Codable {
    /// One changed image.
    public struct Entry: Codable, Sendable, Equatable {
        /// The image's key (canonical URL).
        public var key: String
        /// Its file, relative to the mirror directory: the new file of an added or replaced
        /// image, the deleted file of a removed one. Absent only in a dry run's additions and
        /// replacements, which downloaded nothing.
        package var path: String?
        /// Its title, when the source gave one.
        package var title: String?
        /// The canonical URL of its album (the first page it was found on), when known.
        package var album: String?

        /// An entry for `key`; the other fields default to nil (unknown).
        package init(key: String, path: String? = nil, title: String? = nil, album: String? = nil) {
            self.key = key
            self.path = path
            self.title = title
            self.album = album
        }
    }

    /// The three lists of `changes`, by their names in the report.
    public enum Kind: String, CaseIterable, Sendable {
        /// Keys published for the first time.
        case added
        /// Keys whose bytes changed (a new file).
        case replaced
        /// Keys of the last run that this run deleted.
        case removed
    }

    private enum Storage: Sendable {
        /// A finished run's: added and replaced items by number in `items`; removed entries whole.
        case plan(items: ItemTable, added: [ItemTable.Change], replaced: [ItemTable.Change], removed: [Entry])
        /// Entries as decoded from a report file, or given to `init(added:replaced:removed:)`.
        case entries(added: [Entry], replaced: [Entry], removed: [Entry])
    }

    private let storage: Storage

    /// Changes given entry by entry (as a report file holds them).
    public init(added: [Entry] = [], replaced: [Entry] = [], removed: [Entry] = []) {
        storage = .entries(added: added, replaced: replaced, removed: removed)
    }

    /// A run's changes, read from the table it publishes.
    package init(items: ItemTable, added: [ItemTable.Change], replaced: [ItemTable.Change], removed: [Entry]) {
        storage = .plan(items: items, added: added, replaced: replaced, removed: removed)
    }

    /// How many entries `kind` has.
    package func count(_ kind: Kind) -> Int {
        switch (storage, kind) {
        case (.plan(_, let added, _, _), .added): added.count
        case (.plan(_, _, let replaced, _), .replaced): replaced.count
        case (.plan(_, _, _, let removed), .removed): removed.count
        case (.entries(let added, _, _), .added): added.count
        case (.entries(_, let replaced, _), .replaced): replaced.count
        case (.entries(_, _, let removed), .removed): removed.count
        }
    }

    /// The entry at `index` (0-based, below `count(kind)`) of `kind`, made when asked for.
    package func entry(_ kind: Kind, at index: Int) -> Entry {
        switch storage {
        case .plan(let items, let added, let replaced, let removed):
            if kind == .removed { return removed[index] }
            let change = kind == .added ? added[index] : replaced[index]
            guard change.item >= 0 else { return Entry(key: change.key) }
            let item = Int(change.item)
            return Entry(key: change.key, path: items.path(at: item), title: items.title(at: item), album: items.album(at: item))
        case .entries(let added, let replaced, let removed):
            switch kind {
            case .added: return added[index]
            case .replaced: return replaced[index]
            case .removed: return removed[index]
            }
        }
    }

    /// The entries of `kind` in key order, each made as it is reached.
    public func entries(_ kind: Kind) -> LazyMapSequence<Range<Int>, Entry> {
        (0..<count(kind)).lazy.map { entry(kind, at: $0) }
    }

    /// The keys of `kind`, in key order.
    package func keys(_ kind: Kind) -> [String] {
        switch storage {
        case .plan(_, let added, let replaced, let removed):
            switch kind {
            case .added: added.map(\.key)
            case .replaced: replaced.map(\.key)
            case .removed: removed.map(\.key)
            }
        case .entries:
            entries(kind).map(\.key)
        }
    }

    /// Equal when the three lists hold equal entries in the same order, however each is held.
    public static func == (lhs: RunChanges, rhs: RunChanges) -> Bool {
        Kind.allCases.allSatisfy { kind in
            lhs.count(kind) == rhs.count(kind) && lhs.entries(kind).elementsEqual(rhs.entries(kind))
        }
    }

    private enum CodingKeys: String, CodingKey { case added, replaced, removed }

    /// Reads the three lists of a report file (a missing list is empty).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storage = .entries(
            added: try container.decodeIfPresent([Entry].self, forKey: .added) ?? [],
            replaced: try container.decodeIfPresent([Entry].self, forKey: .replaced) ?? [],
            removed: try container.decodeIfPresent([Entry].self, forKey: .removed) ?? [])
    }

    /// Encodes the three lists whole; `RunReport.write(into:)` writes them an entry at a time
    /// instead, in the same format.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Array(entries(.added)), forKey: .added)
        try container.encode(Array(entries(.replaced)), forKey: .replaced)
        try container.encode(Array(entries(.removed)), forKey: .removed)
    }

    /// The previous manifest's items for `keys` (in key order, as `PublishPlan.removed` lists
    /// them), read from the file at `manifest` an element at a time: the run kept only each old
    /// item's key, hash and date. A key the file no longer has gets an entry of its key alone.
    package static func removedEntries(_ keys: [String], manifest: URL?) -> [Entry] {
        guard !keys.isEmpty else { return [] }
        var found: [String: Entry] = [:]
        if let manifest {
            let wanted = Set(keys)
            _ = try? JSONMemberScanner.scan(file: manifest, arrays: ["items", "rejected"]) { member, bytes in
                guard member == "items" else { return }
                // The key alone first (most items are not removed), the whole item only for those that are.
                guard let key = try? PreviousManifest.Item.read(bytes).key, wanted.contains(key),
                    let item = try? Manifest.Item.read(bytes), found[item.key] == nil
                else { return }
                found[item.key] = Entry(key: item.key, path: item.path, title: item.title, album: item.album)
            }
        }
        return keys.map { found[$0] ?? Entry(key: $0) }
    }
}
