import Foundation
import MirrorCore

/// Where each row's file is, and the moves that put it there: a checked download from `tmp/`
/// into `staged/`, staged files into `images/` when the run publishes, and, after the manifest,
/// the removal of what no row or manifest names. Also what an interrupted run left in `staged/`,
/// settled before anything else runs.
///
/// `staged/` holds only checked files, each renamed in with its row queued: a run that stops
/// (a failure, a signal, a full disk, `kill -9`) leaves them there with their committed rows,
/// and the next run revalidates them instead of downloading them again. Nothing in `staged/` is
/// published before the run that publishes it completes its plan; `catalog-mirror clean`
/// discards what waits there (`Leftovers`).
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
    /// A first run's mode (`stageUnderFinalNames()`): a checked download waits in `staged/`
    /// under the name it will have in `images/`, so `publish` can move the whole folder at once.
    private(set) var stagesUnderFinalNames = false
    /// Files in `images/` that were missing or changed when their key was stored again, and
    /// were replaced by this run's download (`DiskStorage.stage`).
    private var restoredFiles: [String] = []

    nonisolated init(layout: MirrorLayout, readOnly: Bool) {
        self.layout = layout
        self.readOnly = readOnly
        imagesPath = layout.images.path
        stagedPath = layout.staged.path
    }

    /// Makes `place` keep each checked download in `staged/` under its final name (the one it
    /// gets in `images/`) instead of the name it was downloaded under: for a mirror's first run,
    /// which the engine asks for when there is no previous manifest. Publishing then renames
    /// `staged/` itself to `images/` when there is no `images/` yet (or an empty one): one rename
    /// for the whole folder, where a rename per file, one after another after a flush of the file
    /// system, held up the end of a cold crawl (`Benchmarks/results/per-item-cpu.md`).
    /// Each download's own rename happens beside the downloads still in flight, as before.
    ///
    /// What stays true: nothing is in `images/` before the run publishes, so a first run that
    /// stops leaves its verified downloads in `.catalog-mirror/` only, for the next run.
    mutating func stageUnderFinalNames() {
        stagesUnderFinalNames = !readOnly
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

    /// Takes the checked download at `downloadPath` in for the file `name`: moves it into
    /// `staged/` (under its own name, or under `name` on a first run: `stageUnderFinalNames()`)
    /// and returns its name there.
    func place(_ downloadPath: String, as name: String) throws(StoreError) -> String {
        // By the path's text: `standardizedFileURL` and its kin were most of the cost of
        // staging a download.
        let slash = downloadPath.lastIndex(of: "/")
        let stagedName =
            stagesUnderFinalNames ? name : slash.map { String(downloadPath[downloadPath.index(after: $0)...]) } ?? downloadPath
        do {
            // A name no other key holds (`FileNames.freeName`); a file already there is a
            // leftover of a killed run that no row names, replaced in one atomic rename.
            try FileSystem.move(downloadPath, to: stagedPath + "/" + stagedName)
        } catch {
            throw StoreError(.fileSystem, error.description)
        }
        return stagedName
    }

    /// Removes the staged file `stagedName`, superseded by a later download of its key.
    func removeStaged(_ stagedName: String) {
        unlink(stagedPath + "/" + stagedName)
    }

    /// Removes the file of `stored`, a download whose row will not be written (a full disk),
    /// if it waits in `staged/`.
    func remove(_ stored: StoredImage) {
        guard let stagedName = stored.stagedName else { return }
        removeStaged(stagedName)
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

    /// Moves the staged files of `keys` into `images/`, so pages written after this only
    /// reference complete files. The file system is flushed once before the first rename (every
    /// staged byte, and the state database, is durable before it becomes visible) and the folder
    /// renamed into once after the last (the renames are durable before a page names them).
    ///
    /// A first run's folder goes whole (`publishStagedFolder`); otherwise each file is renamed,
    /// and rows are read, moved and written back a batch at a time: holding every staged row of
    /// a first run at once was the peak of a first sync.
    func publish(_ keys: [CanonicalURL], rows: inout RowIndex) throws(StoreError) {
        guard !readOnly else { return }
        // Every staged row is in the database before any file becomes visible.
        try rows.writeUnwritten()
        if try publishStagedFolder(rows: &rows) { return }
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
                    try FileSystem.makeDirectory(imagesPath)
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

    /// Publishes every staged file with one rename of `staged/` to `images/`, when that is what
    /// the per-file renames would come to: there is no `images/` yet (or an empty one), every
    /// staged row waits under its final name (a first run's, `stageUnderFinalNames()`), and
    /// `staged/` holds exactly their files. Then every row is marked published with one
    /// statement. Returns false, having changed nothing, when that is not the case.
    ///
    /// A kill between the rename and the statement leaves staged rows whose files are in
    /// `images/`: the next run's `settleInterruptedRun` finds them there and marks them published.
    private func publishStagedFolder(rows: inout RowIndex) throws(StoreError) -> Bool {
        guard let staged = try rows.stagedUnderFinalNames(), staged > 0, Self.isEmptyOrAbsent(imagesPath) else {
            return false
        }
        var files = 0
        FileSystem.forEachName(inDirectory: stagedPath) { _ in files += 1 }
        guard files == staged else { return false }
        do {
            try FileSystem.flushFileSystem(containing: stagedPath)
            // rename(2) replaces an empty directory in one step.
            try FileSystem.move(stagedPath, to: imagesPath)
        } catch let failure where failure.errno == ENOTEMPTY || failure.errno == EEXIST {
            // Something was put into `images/` since it was looked at: file by file, then.
            return false
        } catch {
            throw StoreError(.fileSystem, error.description)
        }
        do {
            try FileSystem.flushDirectory(layout.root.path)
        } catch {
            throw StoreError(.fileSystem, error.description)
        }
        do {
            try rows.markStagedPublished()
        } catch {
            // No page names a file yet: the folder goes back, and the rows stay true.
            try? FileSystem.move(imagesPath, to: stagedPath)
            throw error
        }
        // The next run needs the folder (`DiskStorage.prepareDirectories` makes it if this fails).
        try? FileSystem.makeDirectory(stagedPath)
        return true
    }

    /// The line that says which files the new manifest's `items` would name are not in the
    /// mirror at `layout` with their size, or nil when every one is: checked after the images
    /// are published and before any page or the manifest names them, so a run never publishes
    /// a reference to nothing (a file deleted while the run went on is downloaded again by the
    /// next one). A file the mirror's copy elsewhere holds with its bytes (`copies`) is not
    /// missing: that copy is what is served.
    nonisolated static func missingFiles(
        of items: ItemTable, in layout: MirrorLayout, heldBy copies: PublishedCopies = PublishedCopies()
    ) -> String? {
        let root = layout.root.path + "/"
        var missing: [String] = []
        for index in items.indices {
            let (path, bytes) = (items.path(at: index), items.bytes(at: index))
            guard FileSystem.size(atPath: root + path) != bytes else { continue }
            if copies.holds(path: path, sha256: items.sha256(at: index), bytes: bytes) { continue }
            missing.append(path)
        }
        guard let first = missing.first else { return nil }
        let more = missing.count > 1 ? " and \(missing.count - 1) more" : ""
        return "\(root)\(first)\(more) went missing while the run published: the pages and manifest.json were left "
            + "as they were; the next sync downloads what is missing"
    }

    /// True when there is no directory at `path`, or an empty one.
    private nonisolated static func isEmptyOrAbsent(_ path: String) -> Bool {
        var empty = true
        FileSystem.forEachName(inDirectory: path) { _ in empty = false }
        return empty
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
/// a set of the names a manifest references held a string and a slot per item.
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
