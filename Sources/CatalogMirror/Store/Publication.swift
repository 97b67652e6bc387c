import Foundation

/// Where each row's file is, and the moves that put it there: a checked download into
/// `staged/` (or, on a first run, straight into `images/`), staged files into `images/` when the
/// run publishes, and, after the manifest, the removal of what no row or manifest names. Also
/// what an interrupted run left in `staged/`, settled before anything else runs.
///
/// Durability is batched: neither the downloads nor the database's commits are flushed one by
/// one. A killed process loses nothing (the kernel still holds the written pages); against a
/// power loss, `publish` flushes the file system once before the first file becomes visible,
/// and a resumed run re-hashes every staged file before trusting it (`settleInterruptedRun`).
///
/// A part of `DiskStorage`, on its actor: no call here awaits anything. The rows it reads and
/// writes are the `RowIndex`'s, handed in by the store.
@ImageDatabase struct Publication {
    private let layout: MirrorLayout
    /// When true (`--dry-run`) nothing on disk is created, changed or removed.
    private let readOnly: Bool
    /// `images/` and `staged/` as paths, joined to file names without any file-system lookup.
    private let imagesPath: String
    private let stagedPath: String
    /// A first run's mode (`publishOnStage()`): a checked download goes into `images/` as it is
    /// staged, not when the run publishes.
    private(set) var publishesOnStage = false
    /// Files in `images/` that were missing or changed when their key was stored again, and
    /// were replaced by this run's download (`DiskStorage.stage`).
    private var restoredFiles: [String] = []

    nonisolated init(layout: MirrorLayout, readOnly: Bool) {
        self.layout = layout
        self.readOnly = readOnly
        imagesPath = layout.images.path
        stagedPath = layout.staged.path
    }

    /// Makes `place` move each checked download into `images/` at once, under its final name,
    /// instead of leaving it in `staged/` for `publish`: for a mirror's first run, which the
    /// engine asks for when there is no previous manifest (and so no page of this mirror that
    /// anyone reads, and nothing `--max-delete` could hold back) and it made `images/` itself
    /// (so a run that fails removes that folder with what it holds, as it removes all it made).
    ///
    /// Why: on a first run every file was renamed once more at the end, one after another after
    /// a flush of the whole file system, and that tail was a third of a cold crawl of 40,000
    /// images (`Benchmarks/results/per-item-cpu.md`). Each rename now happens beside the
    /// downloads still in flight, and the row is written once.
    ///
    /// What stays true: every file in `images/` is complete (renamed in after it was written and
    /// checked); no page names a file before the file system is flushed (the engine flushes it
    /// after the last download, and the publisher before the manifest). What is weaker: after
    /// a power loss (not a kill) `images/` may hold a file that never reached the disk. No page
    /// or manifest names it, and the next run finds its size wrong and downloads it again (a
    /// rename over it) or deletes it as unreferenced.
    mutating func publishOnStage() {
        publishesOnStage = !readOnly
    }

    /// Where the file of `stored` is now.
    func path(of stored: StoredImage) -> String {
        path(ofFile: stored.fileName, stagedName: stored.stagedName)
    }

    /// Where the file named `name` in `images/` is while it waits in `staged/` as `stagedName`
    /// (nil: published).
    func path(ofFile name: String, stagedName: String?) -> String {
        stagedName.map { stagedPath + "/" + $0 } ?? imagesPath + "/" + name
    }

    // MARK: Staging

    /// Takes the checked download at `temporaryPath` in for the file `name`: leaves it in
    /// `staged/` (moving it there if it was written elsewhere) and returns its name there, or,
    /// when publishing on stage, moves it into `images/` as `name` and returns nil.
    func place(_ temporaryPath: String, as name: String) throws(StoreError) -> String? {
        // By the path's text: `standardizedFileURL` and its kin were most of the cost of
        // staging a download. A download is written straight into `stagedPath` (whose path
        // is `DiskStorage.downloadDirectory`); anything else is moved there.
        let slash = temporaryPath.lastIndex(of: "/")
        let stagedName = slash.map { String(temporaryPath[temporaryPath.index(after: $0)...]) } ?? temporaryPath
        do {
            if publishesOnStage {
                // A name no other key holds (`FileNames.freeName`); a file already there is a
                // leftover of a killed run that no row names, replaced in one atomic rename.
                try FileSystem.move(temporaryPath, to: imagesPath + "/" + name)
                return nil
            } else if slash.map({ temporaryPath[..<$0] != stagedPath }) ?? true {
                try FileSystem.move(temporaryPath, to: stagedPath + "/" + stagedName)
            }
        } catch {
            throw StoreError(.fileSystem, error.description)
        }
        return stagedName
    }

    /// Removes the staged file `stagedName`, superseded by a later download of its key.
    func removeStaged(_ stagedName: String) {
        unlink(stagedPath + "/" + stagedName)
    }

    /// Records that the file `name` in `images/` was missing or changed and is replaced by this
    /// run's download of the same bytes.
    mutating func noteRestored(_ name: String) {
        restoredFiles.append(name)
    }

    /// The warning for the files `noteRestored` recorded, if any.
    func restoredFilesWarning() -> String? {
        guard let first = restoredFiles.first else { return nil }
        let more = restoredFiles.count > 1 ? " and \(restoredFiles.count - 1) more" : ""
        return "\(restoredFiles.count) image files were missing or changed on disk and were downloaded again "
            + "(\(StoredImage.directory)\(first)\(more))"
    }

    // MARK: Recovery

    /// Settles what an interrupted run left, before anything else runs: a staged row is kept
    /// when its staged file hashes to the row, marked published when that file already made it
    /// into `images/`, and dropped otherwise; staged files no row vouches for are removed.
    func settleInterruptedRun(rows: inout RowIndex) throws(StoreError) {
        var vouched = Set<String>()
        var published: [StoredImage] = []
        var dropped: [CanonicalURL] = []
        for var image in try rows.stagedRows() {
            guard let stagedName = image.stagedName, LegacyState.isPlainName(stagedName),
                LegacyState.isPlainName(image.fileName)
            else {
                dropped.append(image.key)
                continue
            }
            if Self.holds(stagedPath + "/" + stagedName, image) {
                vouched.insert(stagedName)
            } else if Self.holds(imagesPath + "/" + image.fileName, image) {
                image.stagedName = nil
                image.fileModified = FileSystem.status(atPath: imagesPath + "/" + image.fileName)?.modified
                published.append(image)
            } else {
                dropped.append(image.key)
            }
        }
        try rows.write(published)
        try rows.delete(dropped)
        if !readOnly { removeContents(of: layout.staged) { !vouched.contains($0) } }
    }

    /// True when the file at `path` has the image's size and SHA-256.
    private nonisolated static func holds(_ path: String, _ image: StoredImage) -> Bool {
        FileSystem.size(atPath: path) == image.byteCount && FileSystem.sha256(atPath: path) == image.sha256
    }

    // MARK: Publishing

    /// Moves the staged files of `keys` into `images/` (one atomic rename each), so pages
    /// written after this only reference complete files. The file system is flushed once
    /// before the first rename (every staged byte, and the state database, is durable before it
    /// becomes visible) and `images/` once after the last (the renames are durable before a
    /// page names them).
    ///
    /// Rows are read, moved and written back a batch at a time: holding every staged row of a
    /// first run at once was the peak of a 50,000-image sync (47 MB).
    func publish(_ keys: [CanonicalURL], rows: inout RowIndex) throws(StoreError) {
        guard !readOnly else { return }
        // Every staged row is in the database before any file becomes visible.
        try rows.writeUnwritten()
        let batchSize = 512
        var flushed = false
        var moved: [StoredImage] = []
        moved.reserveCapacity(min(batchSize, keys.count))
        for start in stride(from: 0, to: keys.count, by: batchSize) {
            var pending: [StoredImage] = []
            for key in keys[start..<min(start + batchSize, keys.count)] {
                if let stored = try rows.record(key), stored.isStaged { pending.append(stored) }
            }
            guard !pending.isEmpty else { continue }
            do {
                if !flushed {
                    try FileSystem.flushFileSystem(containing: stagedPath)
                    flushed = true
                }
                for var stored in pending {
                    try FileSystem.move(path(of: stored), to: imagesPath + "/" + stored.fileName)
                    stored.stagedName = nil
                    moved.append(stored)
                }
            } catch {
                // What did move is recorded; a resumed run finds the rest (setUp).
                try? rows.write(moved)
                throw StoreError(.fileSystem, error.description)
            }
            try rows.write(moved)
            moved.removeAll(keepingCapacity: true)
        }
        guard flushed else { return }
        do {
            try FileSystem.flushDirectory(imagesPath)
        } catch {
            throw StoreError(.fileSystem, error.description)
        }
    }

    /// After a new manifest is in place: keeps only the rows it references, then deletes every
    /// file in `images/` it does not reference (removed keys, superseded versions, leftovers of
    /// killed runs) and every staged file. Returns the names deleted.
    func finish(_ manifest: Manifest, rows: inout RowIndex) -> [String] {
        guard !readOnly else { return [] }
        let items = manifest.table
        rows.keepOnly(items)
        let names = ReferencedNames(count: items.count) {
            items.pathBytes(at: $0).dropFirst(StoredImage.directory.utf8.count)
        }
        var deleted: [String] = []
        FileSystem.forEachName(inDirectory: layout.images.path) { name in
            if !names.contains(name) { deleted.append(String(decoding: name, as: UTF8.self)) }
        }
        for name in deleted { try? FileManager.default.removeItem(atPath: imagesPath + "/" + name) }
        removeContents(of: layout.staged) { _ in true }
        return deleted
    }

    /// Removes every stored file and every row (the memory cache is the loader's).
    func clear(rows: inout RowIndex) throws(StoreError) {
        guard !readOnly else { return }
        let fileManager = FileManager.default
        for directory in [layout.images, layout.staged, layout.temporary] {
            do {
                if fileManager.fileExists(atPath: directory.path) { try fileManager.removeItem(at: directory) }
                try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError.io("clear", directory.path, error)
            }
        }
        try rows.removeAll()
    }

    private func removeContents(of directory: URL, where shouldRemove: (String) -> Bool) {
        var removed: [String] = []
        FileSystem.forEachName(inDirectory: directory.path) { bytes in
            let name = String(decoding: bytes, as: UTF8.self)
            if shouldRemove(name) { removed.append(name) }
        }
        for name in removed { try? FileManager.default.removeItem(atPath: directory.path + "/" + name) }
    }
}

/// File names as bytes, sorted, for lookups without a string or a hash-table slot per name:
/// a set of the names a manifest references was 10 MB at 100,000 items.
struct ReferencedNames {
    private var names = PackedBytes()
    /// Name numbers in byte order of the names.
    private var order: [Int32] = []

    /// The `count` names `name(0)`, `name(1)`...
    init(count: Int, _ name: (Int) -> ArraySlice<UInt8>) {
        names.reserveCapacity(count: count, bytes: (0..<count).reduce(0) { $0 + name($1).count })
        for number in 0..<count { names.append(name(number)) }
        order = (0..<Int32(count)).sorted { ByteOrder.precedes(names[Int($0)], names[Int($1)]) }
    }

    func contains(_ name: some Collection<UInt8>) -> Bool {
        var (low, high) = (0, order.count)
        while low < high {
            let middle = (low + high) / 2
            if ByteOrder.precedes(names[Int(order[middle])], name) { low = middle + 1 } else { high = middle }
        }
        return low < order.count && ByteOrder.equal(names[Int(order[low])], name)
    }
}
