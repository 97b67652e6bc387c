import Foundation
import MirrorCore

/// The one shared silo for the mirror's persistent state.
///
/// What runs on it: everything `DiskStorage` does — the index of stored images (`RowIndex`), the
/// namespace of file names (`FileNames`), and the renames that move checked files into place
/// (`Publication`) — serially, so no two tasks can pick the same name or see a half-updated index.
/// What does not: downloading, hashing and writing image bytes (the loader's tasks do that into
/// temporary files first), parsing, and rendering pages.
@globalActor package actor ImageDatabase {
    package static let shared = ImageDatabase()

    /// Stores open in this process, by mirror directory: one run per directory at a time.
    @ImageDatabase private static var openStores: [String: DiskStorage] = [:]

    /// Opens the store of the mirror at `layout` (read-only for a dry run): creates its
    /// directories, opens its state database (taking in an older version's JSON state the first
    /// time, and rebuilding a damaged one: `StateDatabase.openRepairing`), settles what an
    /// interrupted run left (`DiskStorage.setUp()`), and returns it.
    /// Tests point it at temporary directories. `copies`: what the mirror's copy elsewhere (its
    /// bucket) holds (`PublishedCopies`).
    @ImageDatabase static func open(
        _ layout: MirrorLayout, readOnly: Bool = false, copies: PublishedCopies = PublishedCopies()
    ) throws(StoreError) -> DiskStorage {
        let path = layout.root.path
        guard openStores[path] == nil else {
            throw StoreError(.inUse, "\(path) is already open in this process; one sync per mirror at a time")
        }
        try DiskStorage.prepareDirectories(layout, readOnly: readOnly)
        let (state, repaired) = try StateDatabase.openRepairing(layout, readOnly: readOnly, now: Date())
        let storage = DiskStorage(layout: layout, readOnly: readOnly, state: state, copies: copies)
        if let repaired { storage.warnings.append(repaired) }
        do {
            try storage.setUp()
            // Reading the previous manifest left megabytes free in the arena that read it.
            FreeMemory.release()
        } catch {
            storage.close()
            throw error
        }
        openStores[path] = storage
        return storage
    }

    /// Opens the store of the mirror at `layout`, hands it to `body`, and closes it when `body`
    /// returns: the one place a run's store is opened and closed.
    ///
    /// `body` reports its own failures in its result rather than by throwing, so the store is
    /// closed on every path before the caller acts on them (for example by removing the
    /// directories a failed first run created).
    /// - Throws: `StoreError` when the store cannot be opened; `body` has not run.
    package static func withStore<Result>(
        _ layout: MirrorLayout, readOnly: Bool = false, copies: PublishedCopies = PublishedCopies(),
        _ body: (DiskStorage) async -> Result
    ) async throws(StoreError) -> Result {
        let storage = try await open(layout, readOnly: readOnly, copies: copies)
        let result = await body(storage)
        await close(storage)
        return result
    }

    /// True while the store of the mirror at `layout` is open in this process.
    @ImageDatabase static func isOpen(_ layout: MirrorLayout) -> Bool {
        openStores[layout.root.path] != nil
    }

    /// Closes `storage`: finishes its event streams, closes its state database, and frees the
    /// directory for the next run.
    @ImageDatabase static func close(_ storage: DiskStorage) {
        storage.close()
        openStores[storage.layout.root.path] = nil
    }
}
