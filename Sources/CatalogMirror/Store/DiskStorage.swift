import Foundation

/// The on-disk store of one mirror: its image files, their index, and the namespace of names.
///
/// The whole class runs on `ImageDatabase`, so the index and the names can never race. Bytes
/// never pass through here: downloads arrive as checked files in `staged/` and are renamed once,
/// into `images/`, when the run publishes. The index is the `StateDatabase`, read a row at a time
/// when a key is looked up; staged downloads are committed to it in small batches (`unwritten`),
/// and always before they are published, so a run killed at any point can be resumed without
/// downloading again what was stored, verified and committed (at most the last second's
/// downloads are fetched again).
///
/// Durability is batched: neither the downloads nor the database's commits are flushed one by
/// one. A killed process loses nothing (the kernel still holds the written pages); against a
/// power loss, `publish` flushes the file system once before the first file becomes visible, and
/// a resumed run re-hashes every staged file before trusting it.
@ImageDatabase public final class DiskStorage {
    /// Where the mirror lives.
    public nonisolated let layout: MirrorLayout
    /// When true (`--dry-run`) nothing on disk is created, changed or removed.
    public nonisolated let readOnly: Bool
    /// Running count of disk hits (a key answered from a stored file: unchanged on
    /// revalidation), published at most every 50 ms and when the stream ends.
    public nonisolated let diskHits: AsyncStream<Int>
    private var hitCount = CountStream()

    /// What the publish plan needs of the last successful run's manifest, if there is a
    /// readable one (read by `setUp()`, before this run publishes its own).
    private(set) var previousManifest: PreviousManifest?
    /// What the store found broken and repaired, one line each: a damaged index rebuilt, a
    /// damaged manifest read from the index instead (`ImageDatabase.open`, `setUp()`).
    var warnings: [String] = []
    /// Files in `images/` that were missing or changed when their key was stored again, and
    /// were replaced by this run's download (`stage`).
    private var restoredFiles: [String] = []
    private let stateDatabase: StateDatabase
    /// Set by `close()`: the database is closed, and a call after that is refused, not a crash.
    private var isClosed = false
    /// Rows not yet written to `state`, written a batch at a time: a commit per image was the
    /// largest part of a cold sync's SQLite and kernel time (a WAL frame for the row's page and
    /// each index page, every time). Confirmations of published images wait for
    /// `confirmationBatch` of them: a lost one costs one more conditional request. Staged
    /// downloads wait for `stagedBatch` of them, or `stagedDelay` at most: a lost one costs its
    /// download again (the next `setUp` removes a staged file no row vouches for), never a
    /// wrong file.
    private var unwritten: [CanonicalURL: StoredImage] = [:]
    /// The file names of the rows in `unwritten` that name a file this run wrote (staged, or
    /// published on stage), which `freeName` must not hand out again.
    private var unwrittenNames: [String: CanonicalURL] = [:]
    /// When the oldest staged row in `unwritten` was staged.
    private var oldestUnwrittenStage: ContinuousClock.Instant?
    /// The keys whose row in `unwritten` differs from the database's in `lastChecked` only (a
    /// 304 that changed nothing else, what almost every key of a re-sync is): written as an
    /// update of that column, not the whole row replaced (a delete and an insert, with the
    /// key's and the file name's index entries each time).
    private var onlyChecked: Set<CanonicalURL> = []
    private static let confirmationBatch = 256
    private static let stagedBatch = 64
    /// Longest a staged row waits unwritten (a second; tests change it).
    var stagedDelay = Duration.seconds(1)
    /// Rows `lookup` just read (nil: no row), for the `confirm` or `stage` that follows it (one
    /// per key looked up and not yet loaded: the engine's batch and the loads in flight;
    /// emptied when it grows past `recentLimit`, after which a load reads its row again).
    private var recent: [CanonicalURL: StoredImage?] = [:]
    private static let recentLimit = 512
    /// A first run's mode (`publishOnStage()`): a checked download goes into `images/` as it is
    /// staged, not when the run publishes.
    private(set) var publishesOnStage = false
    /// Publishing on stage into an index that had no row when the mode began: every row is this
    /// run's. `lookup(_:)` of a key this run has not stored and `freeName` of a name it has not
    /// given then need no query (two in every cold download).
    private var onlyThisRunsRows = false
    /// The keys and the file names of the rows this run wrote, while `onlyThisRunsRows`.
    private var storedThisRun = KeyFilter()
    private var namedThisRun = KeyFilter()
    private let fileManager = FileManager.default
    /// `images/` and `staged/` as paths, joined to file names without any file-system lookup.
    private nonisolated let imagesPath: String
    private nonisolated let stagedPath: String

    nonisolated init(layout: MirrorLayout, readOnly: Bool = false, state: StateDatabase) {
        self.layout = layout
        self.readOnly = readOnly
        self.stateDatabase = state
        imagesPath = layout.images.path
        stagedPath = layout.staged.path
        diskHits = hitCount.stream
    }

    /// The path of the folder downloads are written to. A checked download stays there under
    /// its temporary name until `publish` renames it into `images/`. Kept as text, not built
    /// from the layout on every request: joining URL components was 3 % of a no-op sync.
    public nonisolated var downloadDirectory: String { stagedPath }

    /// Creates the mirror's directories (unless `readOnly`) and empties `tmp/`: what must exist
    /// before the state database can be opened.
    nonisolated static func prepareDirectories(_ layout: MirrorLayout, readOnly: Bool) throws(StoreError) {
        guard !readOnly else { return }
        for directory in [layout.root, layout.images, layout.state, layout.temporary, layout.staged] {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError.io("create", directory.path, error)
            }
        }
        if let names = try? FileManager.default.contentsOfDirectory(atPath: layout.temporary.path) {
            for name in names { try? FileManager.default.removeItem(atPath: layout.temporary.path + "/" + name) }
        }
    }

    /// Settles what an interrupted run left, before anything else runs: a staged row is kept
    /// when its staged file hashes to the row, marked published when that file already made it
    /// into `images/`, and dropped otherwise; staged files no row vouches for are removed. Reads
    /// the previous manifest (the publish plan compares against it); the index is not loaded.
    public func setUp() throws(StoreError) {
        try readPreviousManifest()
        var vouched = Set<String>()
        var published: [StoredImage] = []
        var dropped: [CanonicalURL] = []
        for var image in try state().stagedImages() {
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
        try state().save(published)
        try state().delete(dropped)
        if !readOnly {
            removeContents(of: layout.staged) { !vouched.contains($0) }
            if fileManager.fileExists(atPath: layout.legacyJournal.path) { unlink(layout.legacyJournal.path) }
        }
    }

    /// Reads the last run's manifest. A damaged one (not a missing one: a first run has none)
    /// is replaced, as far as this run needs it, by the index's published rows, so keys still
    /// listed keep their `firstSeen`, removed ones are counted against `--max-delete`, and a
    /// failing key keeps its file; the damaged file is kept in `.catalog-mirror/` for a look,
    /// and the run writes a new manifest.
    private func readPreviousManifest() throws(StoreError) {
        switch PreviousManifest.load(from: layout.manifest) {
        case .missing:
            previousManifest = nil
        case .read(let manifest):
            previousManifest = manifest
        case .damaged(let problem):
            let rows = try state().publishedImages()
            previousManifest = rows.isEmpty ? nil : PreviousManifest(index: rows, url: layout.manifest)
            var aside = ""
            if !readOnly {
                let name = "manifest.json.damaged-" + Timestamp.compact(Date())
                if (try? FileManager.default.copyItem(atPath: layout.manifest.path, toPath: layout.state.path + "/" + name))
                    != nil
                {
                    aside = "; a copy is in .catalog-mirror/\(name)"
                }
            }
            warnings.append(
                "\(layout.manifest.path) is damaged (\(problem)): "
                    + (rows.isEmpty
                        ? "there is no index to read the last run from, so every image counts as new"
                        : "the last run was read from the index instead (\(rows.count) images)")
                    + ", and a new one is written\(aside)")
        }
    }

    /// What the store repaired this run, one line each, for the run's warnings.
    func repairs() -> [String] {
        guard let first = restoredFiles.first else { return warnings }
        let more = restoredFiles.count > 1 ? " and \(restoredFiles.count - 1) more" : ""
        return warnings + [
            "\(restoredFiles.count) image files were missing or changed on disk and were downloaded again "
                + "(\(StoredImage.directory)\(first)\(more))"
        ]
    }

    /// Makes `stage` move each checked download into `images/` at once, under its final name,
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
    public func publishOnStage() {
        publishesOnStage = !readOnly
        onlyThisRunsRows = publishesOnStage && ((try? state().isEmpty()) ?? false)
    }

    /// True when the file at `path` has the image's size and SHA-256.
    private nonisolated static func holds(_ path: String, _ image: StoredImage) -> Bool {
        FileSystem.size(atPath: path) == image.byteCount && FileSystem.sha256(atPath: path) == image.sha256
    }

    /// The state database, while the store is open.
    private func state() throws(StoreError) -> StateDatabase {
        guard !isClosed else { throw StoreError(.closed, "the store of \(layout.root.path) is already closed") }
        return stateDatabase
    }

    /// The row of `key`, with a confirmation not yet written applied.
    private func record(_ key: CanonicalURL) throws(StoreError) -> StoredImage? {
        if let pending = unwritten[key] { return pending }
        if let row = recent.removeValue(forKey: key) { return row }
        return try state().image(for: key)
    }

    /// The stored image for `key` (published, or verified by an interrupted run), if its file is
    /// still in place as stored: its size, and the time its content last changed or else its
    /// hash (a file deleted, truncated or written over since is not trusted, and the key is
    /// downloaded again, unconditionally). Does not count a hit: the caller revalidates first.
    /// An unreadable state counts as nothing stored: the key is downloaded again.
    public func lookup(_ key: CanonicalURL) -> StoredImage? {
        let row: StoredImage?
        do { row = try record(key) } catch { return nil }
        return keptForLoad(row, of: key)
    }

    /// Keeps `row` (found or not) for the `stage` or `confirm` that follows the lookup of `key`
    /// (a cold run's second query for a key that has no row was one query in three), and
    /// returns it if its file is still in place with its recorded size.
    private func keptForLoad(_ row: StoredImage?, of key: CanonicalURL) -> StoredImage? {
        if recent.count >= Self.recentLimit { recent = [:] }
        recent[key] = .some(row)
        guard let stored = row else { return nil }
        let path = path(of: stored)
        let status = FileSystem.status(atPath: path)
        if stored.isHeld(by: status) { return stored }
        // The right size with another modification time: written since it was stored (by hand,
        // or copied back from a backup by a tool that sets times). The bytes decide, once; the
        // new time is kept with the row so the next run need not hash it again.
        guard let status, status.size == stored.byteCount, FileSystem.sha256(atPath: path) == stored.sha256 else { return nil }
        var confirmed = stored
        confirmed.fileModified = status.modified
        try? keep(confirmed)
        return confirmed
    }

    /// `lookup(_:)` for a batch of keys, with one query for their rows: what the engine asks
    /// before it hands the batch's keys to the loader (`ImageRequest.stored`). A key the
    /// query cannot answer (an unreadable state) is looked up on its own when it is loaded.
    ///
    /// On a first run into an empty index (`onlyThisRunsRows`) a key has a row only if this run
    /// stored it (`storedThisRun`): the keys of a cold crawl need no query at all.
    public func lookup(_ keys: [CanonicalURL]) -> [ImageRequest.Lookup] {
        guard !keys.isEmpty else { return [] }
        let asked = onlyThisRunsRows ? keys.filter { storedThisRun.mayContain($0.string) } : keys
        let rows: [String: StoredImage]
        do {
            rows = asked.isEmpty ? [:] : try self.rows(of: asked)
        } catch {
            return keys.map { _ in .unknown }
        }
        return keys.map { key in keptForLoad(rows[key.string], of: key).map { .stored($0) } ?? .none }
    }

    /// The rows of `keys` as they are now (a confirmation not yet written applied), in the order
    /// of `keys`, nil for a key without one: what the publish plan reads back for the keys the
    /// loader stored, a batch at a time, instead of the run holding every stored image.
    public func records(_ keys: [CanonicalURL]) throws(StoreError) -> [StoredImage?] {
        let rows = try self.rows(of: keys)
        return keys.map { rows[$0.string] }
    }

    /// The rows of `keys` by the key's text, with one query for those not waiting in `unwritten`.
    private func rows(of keys: [CanonicalURL]) throws(StoreError) -> [String: StoredImage] {
        var rows: [String: StoredImage] = [:]
        var unknown: [CanonicalURL] = []
        for key in keys {
            if let pending = unwritten[key] { rows[key.string] = pending } else { unknown.append(key) }
        }
        for (text, row) in try state().images(for: unknown) { rows[text] = row }
        return rows
    }

    /// Records that the stored copy of `key` is current (a 304, or identical bytes): updates its
    /// validators and `lastChecked`, and counts a disk hit. Written with the next batch of rows
    /// (`unwritten`): losing a new `lastChecked` to a crash costs one more conditional request.
    public func confirm(_ key: CanonicalURL, validators: Validators, at now: Date) throws(StoreError) -> StoredImage? {
        guard var stored = try record(key) else { return nil }
        // The row as the database holds it: read from it, or waiting with a new time only.
        let asInDatabase = unwritten[key] == nil || onlyChecked.contains(key)
        var checkedOnly = stored
        if stored.fileModified == nil {
            // A row from before the time was kept: it is taken now, from the file just found whole.
            stored.fileModified = FileSystem.status(atPath: path(of: stored))?.modified
        }
        if stored.dimensions == nil {
            // A row from before sizes were kept: read from the file's header (its first 4 KB and
            // a few small reads), so a mirror gains them without downloading anything again.
            stored.dimensions = ImageHeader.dimensions(ofFileAtPath: path(of: stored))
        }
        stored.etag = validators.etag ?? stored.etag
        stored.lastModified = validators.lastModified ?? stored.lastModified
        stored.lastChecked = now
        checkedOnly.lastChecked = now
        try keep(stored, onlyChecked: asInDatabase && stored == checkedOnly)
        hitCount.increment()
        return stored
    }

    /// `confirm(_:validators:at:)` for the 304s of a revalidation batch, in one call: each
    /// key's confirmed image, in the order given (nil for a key the store has no row of).
    public func confirm(
        _ confirmations: [(key: CanonicalURL, validators: Validators)], at now: Date
    ) -> Result<[StoredImage?], StoreError> {
        var confirmed: [StoredImage?] = []
        confirmed.reserveCapacity(confirmations.count)
        for (key, validators) in confirmations {
            do {
                confirmed.append(try confirm(key, validators: validators, at: now))
            } catch {
                return .failure(error)
            }
        }
        return .success(confirmed)
    }

    /// Queues `stored` to be written to the state database, replacing any row of its key not
    /// yet written, and writes the queue when it is due (see `unwritten`).
    /// `newFile`: the row names a file this run wrote (staged, or published on stage), whose
    /// name `freeName` must not hand out again before the row is written. `onlyChecked`: the
    /// database's row differs from `stored` in `lastChecked` only.
    private func keep(_ stored: StoredImage, newFile: Bool = false, onlyChecked: Bool = false) throws(StoreError) {
        recent[stored.key] = nil
        if onlyChecked { self.onlyChecked.insert(stored.key) } else { self.onlyChecked.remove(stored.key) }
        if onlyThisRunsRows {
            storedThisRun.insert(stored.key.string)
            namedThisRun.insert(stored.fileName)
        }
        if let replaced = unwritten.updateValue(stored, forKey: stored.key), unwrittenNames[replaced.fileName] == stored.key {
            unwrittenNames[replaced.fileName] = nil
        }
        if newFile || stored.isStaged {
            unwrittenNames[stored.fileName] = stored.key
            if oldestUnwrittenStage == nil { oldestUnwrittenStage = .now }
        }
        let stagedDue =
            unwrittenNames.count >= Self.stagedBatch
            || oldestUnwrittenStage.map { $0.duration(to: .now) >= stagedDelay } ?? false
        if stagedDue || unwritten.count >= Self.confirmationBatch { try writeUnwritten() }
    }

    /// Writes every queued row, in one transaction.
    private func writeUnwritten() throws(StoreError) {
        guard !unwritten.isEmpty else { return }
        var rows: [StoredImage] = []
        var checked: [StoredImage] = []
        for row in unwritten.values {
            if onlyChecked.contains(row.key) { checked.append(row) } else { rows.append(row) }
        }
        try state().save(rows, checked: checked)
        unwritten = [:]
        onlyChecked = []
        unwrittenNames = [:]
        oldestUnwrittenStage = nil
    }

    /// Where the file of `stored` is now.
    private func path(of stored: StoredImage) -> String {
        stored.stagedName.map { stagedPath + "/" + $0 } ?? imagesPath + "/" + stored.fileName
    }

    /// Takes a checked download for `request` into the store: picks its file name (the old one
    /// when the bytes did not change), leaves the file in the staging directory (moving it there
    /// if it was written elsewhere; on a first run, into `images/`: `publishOnStage()`), and
    /// commits its row to the state database.
    public func stage(_ file: DownloadedFile, for request: ImageRequest, at now: Date) throws(StoreError) -> StoredImage {
        let previous = try record(request.key)
        // A stored file that is no longer as stored (deleted, truncated or changed by hand) is
        // replaced by this download, under its name, even when the bytes are the ones stored.
        let previousIsHeld = previous.map { $0.isHeld(by: FileSystem.status(atPath: path(of: $0))) } ?? false
        if let previous, previous.sha256 == file.sha256, previousIsHeld {
            // Same bytes as the stored file: keep it and its name; drop the download.
            unlink(file.temporaryPath)
            var same = previous
            same.etag = file.etag
            same.lastModified = file.lastModified
            same.lastChecked = now
            same.dimensions = same.dimensions ?? file.dimensions
            try keep(same)
            return same
        }
        let restoresName = previous.flatMap { $0.sha256 == file.sha256 && !previousIsHeld ? $0.fileName : nil }
        if let restoresName { restoredFiles.append(restoresName) }
        let name: String
        if let restoresName { name = restoresName } else { name = try freeName(for: request, file: file) }
        // By the path's text: `standardizedFileURL` and its kin were most of the cost of
        // staging a download. A download is written straight into `stagedPath` (whose path
        // is `downloadDirectory`); anything else is moved there.
        let temporaryPath = file.temporaryPath
        let slash = temporaryPath.lastIndex(of: "/")
        var stagedName: String? = slash.map { String(temporaryPath[temporaryPath.index(after: $0)...]) } ?? temporaryPath
        do {
            if publishesOnStage {
                // A name no other key holds (`freeName`); a file already there is a leftover
                // of a killed run that no row names, replaced in one atomic rename.
                try FileSystem.move(temporaryPath, to: imagesPath + "/" + name)
                stagedName = nil
            } else if let stagedName, slash.map({ temporaryPath[..<$0] != stagedPath }) ?? true {
                try FileSystem.move(temporaryPath, to: stagedPath + "/" + stagedName)
            }
        } catch {
            throw StoreError(.fileSystem, error.description)
        }
        let stored = StoredImage(
            key: request.key, fileName: name, sha256: file.sha256, byteCount: file.byteCount,
            contentType: file.format.mediaType, etag: file.etag, lastModified: file.lastModified,
            firstSeen: previous?.firstSeen ?? now, lastChecked: now, stagedName: stagedName,
            fileModified: FileSystem.status(atPath: stagedName.map { stagedPath + "/" + $0 } ?? imagesPath + "/" + name)?
                .modified,
            dimensions: file.dimensions
        )
        // Replaces any queued confirmation of the old file, which must not overwrite this row.
        try keep(stored, newFile: true)
        // A file an interrupted run had staged for this key is superseded.
        if let old = previous?.stagedName, old != stagedName { unlink(stagedPath + "/" + old) }
        return stored
    }

    private func freeName(for request: ImageRequest, file: DownloadedFile) throws(StoreError) -> String {
        var length = 10
        while true {
            let name = FileNamer.fileName(
                key: request.key, title: request.title, sha256: file.sha256, format: file.format, hashLength: length)
            if length >= 64 { return name }
            if let holder = unwrittenNames[name], holder != request.key {
                length += 4
                continue
            }
            // Every row is this run's: a name none of them may hold is free, without a query
            // (a `stat` of the name in `images/` cost as much as the query).
            if onlyThisRunsRows, !namedThisRun.mayContain(name) { return name }
            if try !state().isTaken(name, byOtherThan: request.key) { return name }
            length += 4
        }
    }

    /// Moves the staged files of `keys` into `images/` (one atomic rename each), so pages
    /// written after this only reference complete files. The file system is flushed once
    /// before the first rename (every staged byte, and the state database, is durable before it
    /// becomes visible) and `images/` once after the last (the renames are durable before a
    /// page names them).
    ///
    /// Rows are read, moved and written back a batch at a time: holding every staged row of a
    /// first run at once was the peak of a 50,000-image sync (47 MB).
    public func publish(_ keys: [CanonicalURL]) throws(StoreError) {
        guard !readOnly else { return }
        // Every staged row is in the database before any file becomes visible.
        try writeUnwritten()
        let batchSize = 512
        var flushed = false
        var moved: [StoredImage] = []
        moved.reserveCapacity(min(batchSize, keys.count))
        for start in stride(from: 0, to: keys.count, by: batchSize) {
            var pending: [StoredImage] = []
            for key in keys[start..<min(start + batchSize, keys.count)] {
                if let stored = try record(key), stored.isStaged { pending.append(stored) }
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
                try? state().save(moved)
                throw StoreError(.fileSystem, error.description)
            }
            try state().save(moved)
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
    @discardableResult
    public func finishPublishing(_ manifest: Manifest) -> [String] {
        guard !readOnly else { return [] }
        let items = manifest.table
        // A failed write leaves extra rows behind, which is harmless: a lookup checks the file,
        // and the next run's setUp settles staged rows.
        try? writeUnwritten()
        recent = [:]
        try? state().keepOnly(items)
        let names = FileNames(count: items.count) { items.pathBytes(at: $0).dropFirst(StoredImage.directory.utf8.count) }
        var deleted: [String] = []
        FileSystem.forEachName(inDirectory: layout.images.path) { name in
            if !names.contains(name) { deleted.append(String(decoding: name, as: UTF8.self)) }
        }
        for name in deleted { try? fileManager.removeItem(atPath: imagesPath + "/" + name) }
        removeContents(of: layout.staged) { _ in true }
        return deleted
    }

    /// Removes every stored file and empties the index (the memory cache is the loader's).
    public func clear() throws(StoreError) {
        guard !readOnly else { return }
        for directory in [layout.images, layout.staged, layout.temporary] {
            do {
                if fileManager.fileExists(atPath: directory.path) { try fileManager.removeItem(at: directory) }
                try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError.io("clear", directory.path, error)
            }
        }
        unwritten = [:]
        unwrittenNames = [:]
        oldestUnwrittenStage = nil
        onlyChecked = []
        recent = [:]
        try state().removeAll()
    }

    /// The previous manifest, handed over once: the store keeps no copy, so it is freed with the
    /// publish plan (12 MB at 50,000 items), not at the end of the run.
    func takePreviousManifest() -> PreviousManifest? {
        defer { previousManifest = nil }
        return previousManifest
    }

    /// Ends the `diskHits` stream; the engine calls it when the last download is settled.
    func finishStreams() {
        hitCount.finish()
    }

    /// Ends the streams, writes pending confirmations, and closes the state database: nothing
    /// may call the store after this (`ImageDatabase.withStore` closes it, once).
    func close() {
        finishStreams()
        guard !isClosed else { return }
        try? writeUnwritten()
        stateDatabase.close()
        isClosed = true
    }

    private func removeContents(of directory: URL, where shouldRemove: (String) -> Bool) {
        var removed: [String] = []
        FileSystem.forEachName(inDirectory: directory.path) { bytes in
            let name = String(decoding: bytes, as: UTF8.self)
            if shouldRemove(name) { removed.append(name) }
        }
        for name in removed { try? fileManager.removeItem(atPath: directory.path + "/" + name) }
    }
}

/// File names as bytes, sorted, for lookups without a string or a hash-table slot per name:
/// a set of the names a manifest references was 10 MB at 100,000 items.
struct FileNames {
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
