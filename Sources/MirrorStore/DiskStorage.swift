import Foundation
import MirrorCore
import MirrorEmbedded

/// The on-disk store of one mirror: its image files, their index, and the namespace of names.
///
/// The whole class runs on `ImageDatabase`, so the index and the names can never race. Bytes
/// never pass through here: downloads arrive as checked files in `tmp/`, are renamed into
/// `staged/`, and from there into `images/` when the run publishes. The index is the
/// `StateDatabase`, read a row at a time when a key is looked up; staged downloads are committed
/// to it in small batches, and always before they are published, so a run that stops at any
/// point (killed, failed, out of disk space; a first run too) can be resumed without downloading
/// again what was stored, verified and committed (at most the last second's downloads are
/// fetched again).
///
/// This class is the store's one face; it composes three parts, each owning one concern, each
/// a struct on this actor (a call into one is a plain call, not a hop):
/// - `RowIndex`: which row a key has. The database, the rows queued to be written to it (the
///   write-behind, and why each batch is the size it is), the rows a lookup just read for the
///   call that follows it, and a first run's filter of the keys it stored.
/// - `FileNames`: which name a new file gets (`FileNamer`'s names, free of every other key's row).
/// - `Publication`: where each row's file is and the moves that put it there (staging,
///   publishing, a first run's folder, restored files, cleanup), and the crash-safety story:
///   what an interrupted run left is settled by `setUp`, and durability is batched.
/// What is left here joins them: a lookup checks the file a row names, a 304 updates the row,
/// a download gets a name, a place and a row.
@ImageDatabase package final class DiskStorage {
    /// Where the mirror lives.
    package nonisolated let layout: MirrorLayout
    /// When true (`--dry-run`) nothing on disk is created, changed or removed.
    package nonisolated let readOnly: Bool
    /// Running count of disk hits: keys whose stored file a 304 confirmed current (`confirm`,
    /// once per key confirmed; a body identical to the stored file is a download, not a
    /// hit). Published at most every 50 ms and when the stream ends.
    package nonisolated let diskHits: AsyncStream<Int>
    private var hitCount = CountStream()

    /// What the publish plan needs of the last successful run's manifest, if there is a
    /// readable one (read by `setUp()`, before this run publishes its own).
    package private(set) var previousManifest: PreviousManifest?
    /// What the store found broken and repaired, one line each: a damaged index rebuilt, a
    /// damaged manifest read from the index instead (`ImageDatabase.open`, `setUp()`).
    var warnings: [String] = []
    private var rows: RowIndex
    private var names = FileNames()
    private var publication: Publication
    /// `tmp/` as a path, for `downloadDirectory`.
    private nonisolated let temporaryPath: String
    /// What the mirror's copy elsewhere (its bucket) holds: an image whose file is not on this
    /// disk but is there counts as stored (`PublishedCopies`).
    package nonisolated let copies: PublishedCopies

    nonisolated init(
        layout: MirrorLayout, readOnly: Bool = false, state: StateDatabase, copies: PublishedCopies = PublishedCopies()
    ) {
        self.layout = layout
        self.readOnly = readOnly
        self.copies = copies
        rows = RowIndex(database: state, rootPath: layout.root.path)
        publication = Publication(layout: layout, readOnly: readOnly)
        temporaryPath = layout.temporary.path
        diskHits = hitCount.stream
    }

    /// `--strip-location`: no row keeps the GPS position of its file, so none is ever written
    /// under the mirror (`EmbeddedMetadata.withholdingLocation()`). Default: false.
    package private(set) var withholdsLocation = false

    /// Sets `withholdsLocation` for this run, before any image is stored or confirmed.
    package func withholdLocation(_ withhold: Bool) {
        withholdsLocation = withhold
    }

    /// `embedded` as a row keeps it this run: without its position under `--strip-location`.
    private func kept(_ embedded: EmbeddedMetadata?) -> EmbeddedMetadata? {
        withholdsLocation ? embedded?.withholdingLocation() : embedded
    }

    /// Longest a staged row waits unwritten (`RowIndex.stagedDelay`; tests change it).
    var stagedDelay: Duration {
        get { rows.stagedDelay }
        set { rows.stagedDelay = newValue }
    }

    /// The path of the folder downloads are written to (`tmp/`): a download that is checked is
    /// renamed into `staged/` by `stage`, one that is not is removed, and what a killed run left
    /// half-written is removed by the next. Kept as text, not built from the layout on every
    /// request: joining URL components for every request is work a no-op sync need not do.
    package nonisolated var downloadDirectory: String { temporaryPath }

    /// Creates the mirror's directories (unless `readOnly`) and empties `tmp/`: what must exist
    /// before the state database can be opened. `images/` is not among them: it is made when
    /// the first run publishes, so a first run that stops leaves nothing outside
    /// `.catalog-mirror/`.
    nonisolated static func prepareDirectories(_ layout: MirrorLayout, readOnly: Bool) throws(StoreError) {
        guard !readOnly else { return }
        for directory in [layout.root, layout.state, layout.temporary, layout.staged] {
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

    /// Settles what an interrupted run left, before anything else runs
    /// (`Publication.settleInterruptedRun`), and removes an older version's journal, taken in
    /// when the database was made. Reads the previous manifest (the publish plan compares
    /// against it); the index is not loaded.
    package func setUp() throws(StoreError) {
        try readPreviousManifest()
        try publication.settleInterruptedRun(rows: &rows)
        if !readOnly, FileManager.default.fileExists(atPath: layout.legacyJournal.path) { unlink(layout.legacyJournal.path) }
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
            try startFromCopy()
        case .read(let manifest):
            previousManifest = manifest
        case .damaged(let problem):
            let published = try rows.publishedRows()
            previousManifest = published.isEmpty ? nil : PreviousManifest(index: published, url: layout.manifest)
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
                    + (published.isEmpty
                        ? "there is no index to read the last run from, so every image counts as new"
                        : "the last run was read from the index instead (\(published.count) images)")
                    + ", and a new one is written\(aside)")
        }
    }

    /// With no manifest on this disk (an empty `--out`) and a copy that has one
    /// (`PublishedCopies.manifest`), the run starts from the copy's: it is the last run's
    /// manifest, and the index is given a row for each item the copy holds (a row this index
    /// already has wins), so every one is revalidated rather than downloaded; what the copy's
    /// manifest says of renditions answers their pairs of pixels, unless the index has answers.
    private func startFromCopy() throws(StoreError) {
        guard let (url, manifest) = copies.manifest, case .read(let last) = PreviousManifest.load(from: url) else { return }
        previousManifest = last
        guard !readOnly else { return }
        let seeded = copies.rows(of: manifest)
        let found = try rows.isEmpty() ? [:] : try rows.rows(of: seeded.map(\.key))
        try rows.write(seeded.filter { found[$0.key.string] == nil })
        if try rows.pixelAnswers().isEmpty { try rows.replacePixelAnswers(PublishedCopies.pixelAnswers(of: manifest)) }
    }

    /// What the store repaired this run, one line each, for the run's warnings.
    package func repairs() -> [String] {
        guard let restored = publication.restoredFilesWarning() else { return warnings }
        return warnings + [restored]
    }

    /// On a mirror's first run, makes `stage` keep each checked download in `staged/` under its
    /// final name, so `publish` moves the whole folder into place at once
    /// (`Publication.stageUnderFinalNames()` says when, why, and what stays true); into an
    /// index with no row, lookups and free names then need no query for what this run has not
    /// stored (`RowIndex.onlyThisRunsRows`).
    package func stageUnderFinalNames() {
        publication.stageUnderFinalNames()
        rows.setOnlyThisRunsRows(firstRun: publication.stagesUnderFinalNames)
    }

    /// `stageUnderFinalNames()` when this is a mirror's first run: no previous manifest (nor a
    /// page of this mirror that anyone reads). Not for a dry run, which stages nothing. Asked
    /// once, before the first download is stored.
    package func stageUnderFinalNamesOnFirstRun() {
        guard !readOnly, previousManifest == nil else { return }
        stageUnderFinalNames()
    }

    /// Starts flushing what this run downloaded to the disk while the run makes its plan: the
    /// flush before the first file is published (`publish`), or the first page names one, then
    /// finds it done instead of waiting for every download's bytes at the end of the crawl.
    /// Errors are the later flushes' to report. Nothing is started for a run that wrote nothing
    /// (a dry run, or `downloaded` 0): `syncfs` also waits for other programs' files.
    package nonisolated func flushDownloads(downloaded: Int) -> DownloadFlush {
        DownloadFlush(containing: layout.root.path, starts: !readOnly && downloaded > 0)
    }

    /// The line that says which files `items` name are not in the mirror with their size, or
    /// nil when every one is (`Publication.missingFiles(of:in:)`).
    package nonisolated func missingFiles(of items: ItemTable) -> String? {
        Publication.missingFiles(of: items, in: layout, heldBy: copies)
    }

    /// True when the index holds a row (queued rows are written first): what a run that stops
    /// leaves for the next one to revalidate instead of downloading again (SPEC: "A run that
    /// stops keeps what it verified"). The engine removes a first run's directories only when
    /// this is false. An index that cannot be read counts as holding rows: nothing is removed.
    package func keepsDownloads() -> Bool {
        guard !readOnly else { return false }
        // A run stopped by a full disk: room is made by giving up the last downloads whose rows
        // could not be written (`RowIndex.writeUnwrittenMakingRoom`).
        try? rows.writeUnwrittenMakingRoom { [publication] row in publication.remove(row) }
        return !((try? rows.isEmpty()) ?? false)
    }

    /// The stored image for `key` (published, or verified by an interrupted run), if its file is
    /// still in place as stored: its size, and the time its content last changed or else its
    /// hash (a file deleted, truncated or written over since is not trusted, and the key is
    /// downloaded again, unconditionally). Does not count a hit: the caller revalidates first.
    /// An unreadable state counts as nothing stored: the key is downloaded again.
    package func lookup(_ key: CanonicalURL) -> StoredImage? {
        let row: StoredImage?
        do { row = try rows.record(key) } catch { return nil }
        return keptForLoad(row, of: key)
    }

    /// Keeps `row` (found or not) for the `stage` or `confirm` that follows the lookup of `key`
    /// (`RowIndex.remember`), and returns it if its file is still in place with its recorded size.
    private func keptForLoad(_ row: StoredImage?, of key: CanonicalURL) -> StoredImage? {
        rows.remember(row, for: key)
        guard let stored = row else { return nil }
        let path = publication.path(of: stored)
        let status = FileSystem.status(atPath: path)
        if isStored(stored, status: status) { return stored }
        // The right size with another modification time: written since it was stored (by hand,
        // or copied back from a backup by a tool that sets times). The bytes decide, once; the
        // new time is kept with the row so the next run need not hash it again.
        guard let status, status.size == stored.byteCount, FileSystem.sha256(atPath: path) == stored.sha256 else { return nil }
        var confirmed = stored
        confirmed.fileModified = status.modified
        try? keep(confirmed)
        return confirmed
    }

    /// True when the file of `stored`, whose status on this disk is `status`, is as stored: on
    /// this disk (`StoredImage.isHeld(by:)`), or not on it and held by the mirror's bucket with
    /// its bytes (`PublishedCopies.holds`).
    private nonisolated func isStored(_ stored: StoredImage, status: FileSystem.Status?) -> Bool {
        stored.isHeld(by: status) || (status == nil && copies.holds(stored))
    }

    /// `lookup(_:)` for a batch of keys, with one query for their rows: what the engine asks
    /// before it hands the batch's keys to the loader (`ImageRequest.stored`). A key the
    /// query cannot answer (an unreadable state) is looked up on its own when it is loaded.
    /// On a first run into an empty index the keys of a cold crawl need no query at all
    /// (`RowIndex.rows(ofLookedUp:)`).
    package func lookup(_ keys: [CanonicalURL]) -> [ImageRequest.Lookup] {
        guard !keys.isEmpty else { return [] }
        let found: [String: StoredImage]
        do {
            found = try rows.rows(ofLookedUp: keys)
        } catch {
            return keys.map { _ in .unknown }
        }
        return keys.map { key in keptForLoad(found[key.string], of: key).map { .stored($0) } ?? .none }
    }

    /// The rows of `keys` as they are now (a confirmation not yet written applied), in the order
    /// of `keys`, nil for a key without one: what the publish plan reads back for the keys the
    /// loader stored, a batch at a time, instead of the run holding every stored image.
    package func records(_ keys: [CanonicalURL]) throws(StoreError) -> [StoredImage?] {
        let found = try rows.rows(of: keys)
        return keys.map { found[$0.string] }
    }

    /// Records that the stored copy of `key` is current (a 304, or identical bytes): updates its
    /// validators and `lastChecked`, and counts a disk hit. Written with the next batch of rows
    /// (`RowIndex.keep`): losing a new `lastChecked` to a crash costs one more conditional request.
    package func confirm(_ key: CanonicalURL, validators: Validators, at now: Date) throws(StoreError) -> StoredImage? {
        guard var stored = try rows.record(key) else { return nil }
        // The row as the database holds it: read from it, or waiting with a new time only.
        let asInDatabase = rows.isWrittenButForLastChecked(key)
        var checkedOnly = stored
        let readsEmbedded = stored.embedded == nil || (stored.embedded?.locationWithheld == true && !withholdsLocation)
        // What a row from before a field was kept lacks is read from its file, when the file is
        // on this disk (an image only the mirror's bucket holds has none here).
        if stored.fileModified == nil || stored.dimensions == nil || readsEmbedded,
            let status = FileSystem.status(atPath: publication.path(of: stored))
        {
            let path = publication.path(of: stored)
            // The time: taken now, from the file just found whole.
            if stored.fileModified == nil { stored.fileModified = status.modified }
            // The size in pixels: from the file's header (its first 4 KB and a few small
            // reads), so a mirror gains them without downloading anything again.
            if stored.dimensions == nil { stored.dimensions = ImageHeader.dimensions(ofFileAtPath: path) }
            // What the file says of itself, or the position a run with `--strip-location`
            // withheld: from the file's header blocks again.
            if readsEmbedded { stored.embedded = EmbeddedMetadataReader.read(fileAtPath: path) }
        }
        stored.embedded = kept(stored.embedded)
        stored.etag = validators.etag ?? stored.etag
        stored.lastModified = validators.lastModified ?? stored.lastModified
        stored.lastChecked = now
        checkedOnly.lastChecked = now
        try keep(stored, onlyChecked: asInDatabase && stored == checkedOnly)
        hitCount.increment()
        return stored
    }

    /// The last run's answers on pairs of images compared (empty when the index cannot say).
    package func previousPixelAnswers() -> [PixelAnswer] { (try? rows.pixelAnswers()) ?? [] }

    /// Keeps this run's answers on pairs of images for the next (not in a dry run).
    package func keepPixelAnswers(_ answers: [PixelAnswer]) {
        guard !readOnly else { return }
        try? rows.replacePixelAnswers(answers)
    }

    /// The keys the last run rejected as decoration by their icon's size (at most 48 pixels on
    /// both sides, known only from their files): held back and rejected again without a
    /// request unless a page now links them as content. Empty when the index cannot say.
    package func previousIconKeys() -> Set<CanonicalURL> {
        Set(((try? rows.iconKeys()) ?? []).compactMap { CanonicalURL($0) })
    }

    /// Records `keys` as this run's icons, for the next run (not in a dry run).
    package func keepIconKeys(_ keys: [CanonicalURL]) {
        guard !readOnly else { return }
        try? rows.replaceIconKeys(keys.map(\.string))
    }

    /// Keeps the perceptual signature of each key's image (`StoredImage.fingerprint`), for the
    /// rows whose bytes are still those the signature was computed from (`sha256`). Written
    /// with the next batch of rows.
    package func keepFingerprints(_ fingerprints: [(key: CanonicalURL, sha256: String, fingerprint: String)])
        throws(StoreError)
    {
        for (key, sha256, fingerprint) in fingerprints {
            guard var stored = try rows.record(key), stored.sha256 == sha256, stored.fingerprint != fingerprint else {
                continue
            }
            stored.fingerprint = fingerprint
            try keep(stored)
        }
    }

    /// `confirm(_:validators:at:)` for the 304s of a revalidation batch, in one call: each
    /// key's confirmed image, in the order given (nil for a key the store has no row of).
    package func confirm(
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

    /// Queues `stored` to be written (`RowIndex.keep`, whose comments say when a queue is
    /// written), and, while every row is this run's, notes the name it holds (`FileNames`).
    private func keep(_ stored: StoredImage, newFile: Bool = false, onlyChecked: Bool = false) throws(StoreError) {
        if rows.onlyThisRunsRows { names.noteNamed(stored.fileName) }
        try rows.keep(stored, newFile: newFile, onlyChecked: onlyChecked)
    }

    /// Takes a checked download for `request` into the store: picks its file name (the old one
    /// when the bytes did not change), moves the file into `staged/` (on a first run under that
    /// name: `stageUnderFinalNames()`), and commits its row to the state database.
    package func stage(_ file: DownloadedFile, for request: ImageRequest, at now: Date) throws(StoreError) -> StoredImage {
        let previous = try rows.record(request.key)
        // A stored file that is no longer as stored (deleted, truncated or changed by hand) is
        // replaced by this download, under its name, even when the bytes are the ones stored.
        let previousIsHeld = previous.map { isStored($0, status: FileSystem.status(atPath: publication.path(of: $0))) } ?? false
        if let previous, previous.sha256 == file.sha256, previousIsHeld {
            // Same bytes as the stored file: keep it and its name; drop the download.
            unlink(file.temporaryPath)
            var same = previous
            same.etag = file.etag
            same.lastModified = file.lastModified
            same.lastChecked = now
            same.dimensions = same.dimensions ?? file.dimensions
            same.embedded = kept(file.embedded ?? same.embedded)
            try keep(same)
            return same
        }
        let restoresName = previous.flatMap { $0.sha256 == file.sha256 && !previousIsHeld ? $0.fileName : nil }
        if let restoresName { publication.noteRestored(restoresName) }
        let name: String
        if let restoresName { name = restoresName } else { name = try names.freeName(for: request, file: file, rows: rows) }
        let stagedName = try publication.place(file.temporaryPath, as: name)
        let stored = StoredImage(
            key: request.key, fileName: name, sha256: file.sha256, byteCount: file.byteCount,
            contentType: file.format.mediaType, etag: file.etag, lastModified: file.lastModified,
            firstSeen: previous?.firstSeen ?? now, lastChecked: now, stagedName: stagedName,
            fileModified: FileSystem.status(atPath: publication.path(ofFile: name, stagedName: stagedName))?.modified,
            dimensions: file.dimensions, embedded: kept(file.embedded)
        )
        // Replaces any queued confirmation of the old file, which must not overwrite this row.
        try keep(stored, newFile: true)
        // A file an interrupted run had staged for this key is superseded.
        if let old = previous?.stagedName, old != stagedName { publication.removeStaged(old) }
        return stored
    }

    /// Writes every queued row (downloads and confirmations) to the index now, in one
    /// transaction: what the engine asks when the loads have settled, before the publish step.
    package func commit() throws(StoreError) {
        guard !readOnly else { return }
        try rows.writeUnwritten()
    }

    /// Moves the staged files of `keys` into `images/`, flushing the file system before the
    /// first and `images/` after the last; a first run's `staged/` goes whole
    /// (`Publication.publish`).
    package func publish(_ keys: [CanonicalURL]) throws(StoreError) {
        try publication.publish(keys, rows: &rows)
    }

    /// After a new manifest is in place: keeps only the rows it references, then deletes every
    /// file in `images/` it does not reference (removed keys, superseded versions, leftovers of
    /// killed runs) and every staged file. Returns the names deleted.
    @discardableResult
    package func finishPublishing(_ manifest: Manifest) -> [String] {
        publication.finish(manifest, rows: &rows)
    }

    /// The previous manifest, handed over once: the store keeps no copy, so it is freed with the
    /// publish plan, not at the end of the run.
    package func takePreviousManifest() -> PreviousManifest? {
        defer { previousManifest = nil }
        return previousManifest
    }

    /// Ends the `diskHits` stream; the engine calls it when the last download is settled.
    package func finishStreams() {
        hitCount.finish()
    }

    /// Ends the streams, writes pending confirmations, and closes the state database: nothing
    /// may call the store after this (`ImageDatabase.withStore` closes it, once).
    func close() {
        finishStreams()
        rows.close()
    }
}
