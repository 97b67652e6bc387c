import Foundation

/// Where everything lives inside a mirror directory (docs/reference.md, "The mirror directory").
public struct MirrorLayout: Sendable, Equatable {
    /// The mirror directory (`--out`).
    public let root: URL

    /// The layout of the mirror at `root` (standardized, so paths compare equal).
    public init(root: URL) {
        self.root = root.standardizedFileURL
    }

    /// `DIR/images`: published image files, each complete at every moment.
    package var images: URL { root.appendingPathComponent("images", isDirectory: true) }
    /// `DIR/manifest.json`.
    public var manifest: URL { root.appendingPathComponent("manifest.json") }
    /// `DIR/.catalog-mirror`: the tool's own state.
    package var state: URL { root.appendingPathComponent(".catalog-mirror", isDirectory: true) }
    /// Partial downloads and files being written; emptied at the start of every run.
    package var temporary: URL { state.appendingPathComponent("tmp", isDirectory: true) }
    /// Checked downloads of this run, waiting to be published into `images/`.
    package var staged: URL { state.appendingPathComponent("staged", isDirectory: true) }
    /// The store's index and commit log (`StateDatabase`; SQLite, with its `-wal` and `-shm`
    /// files beside it).
    package var database: URL { state.appendingPathComponent(StateDatabase.fileName) }
    /// The commit log of versions before the database, read once when it is created.
    package var legacyJournal: URL { state.appendingPathComponent("journal.jsonl") }
    /// The lock file one sync holds while it runs.
    package var lock: URL { state.appendingPathComponent("lock") }
    /// Stored copies of pages and feeds, for conditional requests.
    package var documents: URL { state.appendingPathComponent("documents", isDirectory: true) }
    /// Saved settings of the mirror.
    public var settings: URL { state.appendingPathComponent("settings.json") }

    /// The URL of a manifest `path` (relative to the root), or nil when the path would leave the
    /// mirror (absolute, `..`, empty segments) — a hand-edited manifest cannot point elsewhere.
    package func file(atRelativePath path: String) -> URL? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.hasPrefix("/"), !segments.isEmpty,
            segments.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.utf8.contains(0) })
        else { return nil }
        return root.appendingPathComponent(path)
    }
}
