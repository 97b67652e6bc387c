import Foundation
import MirrorCore

/// What a sync that stopped keeps for the next one, and the command that throws it away
/// (`catalog-mirror clean`).
///
/// A sync that stops (a failure, a full disk, a signal, `kill -9`) keeps the downloads it
/// verified in `.catalog-mirror/staged/`, with their rows in the index, so the next sync
/// revalidates them instead of downloading them again (SPEC: "A run that stops keeps what it
/// verified"). `discard(in:)` removes them: every staged row and file, and whatever waits in
/// `tmp/`. The published mirror (`images/`, the pages, `manifest.json`), the settings and the
/// stored copies of pages are left as they are, so `verify` answers the same before and after.
public enum Leftovers {
    /// What `discard(in:)` removed.
    public struct Discarded: Sendable, Equatable {
        /// Verified downloads whose rows were removed from the index.
        public var downloads = 0
        /// Files removed from `staged/` and `tmp/`.
        public var files = 0
        /// Their size in bytes.
        public var bytes: Int64 = 0
    }

    /// Takes the lock of the mirror at `layout` (without waiting), then removes every staged
    /// row, every file in `staged/` and every file in `tmp/`.
    /// - Throws: `StoreError` with code `.notAMirror` when the directory has no
    ///   `.catalog-mirror/`; `.inUse` when a sync holds the lock (or the mirror is open in this
    ///   process); `.database` or `.fileSystem` when the index or a file cannot be changed.
    @ImageDatabase public static func discard(in layout: MirrorLayout) throws(StoreError) -> Discarded {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: layout.state.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw StoreError(
                .notAMirror, "\(layout.root.path) is not a mirror: it has no .catalog-mirror/ folder (check --out)")
        }
        let lock: MirrorLock?
        do {
            lock = try MirrorLock.acquire(layout, create: true)
        } catch let held as MirrorLock.Held {
            throw StoreError(
                .inUse,
                "another sync is running on \(layout.root.path)" + (held.pid.map { " (PID \($0))" } ?? "")
                    + "; try again when it has finished")
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.fileSystem, "\(error)")
        }
        defer { withExtendedLifetime(lock) {} }
        guard !ImageDatabase.isOpen(layout) else {
            throw StoreError(.inUse, "\(layout.root.path) is open in this process; one sync per mirror at a time")
        }

        var discarded = Discarded()
        // Rows first: a kill between the two leaves files no row vouches for, which the next
        // run removes (`Publication.settleInterruptedRun`), never a row without its file.
        if FileManager.default.fileExists(atPath: layout.database.path) {
            let database = try StateDatabase.open(layout, readOnly: false)
            defer { database.close() }
            let staged = try database.stagedImages()
            try database.delete(staged.map(\.key))
            discarded.downloads = staged.count
        }
        for folder in [layout.staged, layout.temporary] {
            var names: [String] = []
            FileSystem.forEachName(inDirectory: folder.path) { names.append(String(decoding: $0, as: UTF8.self)) }
            for name in names {
                let path = folder.path + "/" + name
                let size = FileSystem.size(atPath: path)
                do {
                    try FileManager.default.removeItem(atPath: path)
                } catch {
                    throw StoreError.io("remove", path, error)
                }
                discarded.files += 1
                discarded.bytes += size ?? 0
            }
        }
        return discarded
    }
}
