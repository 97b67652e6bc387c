import Foundation
import MirrorCore

/// Which row a key has: the store's index (`StateDatabase`), the rows waiting to be written to
/// it (the write-behind), and the rows a lookup just read (`recent`). Every read of a row goes
/// through `record(_:)` or `rows(of:)`, which see a row not yet written before the database's;
/// every change goes through `keep(_:newFile:onlyChecked:)`, which queues it. The other parts
/// of the store reach the database only through the methods here, each named for what it does.
///
/// A part of `DiskStorage`, on its actor: no call here awaits anything.
@ImageDatabase struct RowIndex {
    private let database: StateDatabase
    /// The mirror's root, for the error of a store already closed.
    private let rootPath: String
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
    /// The file names of the rows in `unwritten` that name a file this run wrote (staged),
    /// which `FileNames.freeName` must not hand out again. Kept here, with
    /// the queue it indexes, because every change to the queue changes it, and its count is
    /// what makes the staged batch due.
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
    /// emptied when it grows past `recentLimit`, after which a load reads its row again). A
    /// cache of rows, not a record of the keys this run has seen: a key missing here is read
    /// from the database.
    private var recent: [CanonicalURL: StoredImage?] = [:]
    private static let recentLimit = 512
    /// A first run into an index that had no row when it began: every row is this run's. `rows(ofLookedUp:)` of a key this run has not stored and `FileNames.freeName` of a
    /// name it has not given then need no query (two in every cold download).
    private(set) var onlyThisRunsRows = false
    /// The keys of the rows this run wrote, while `onlyThisRunsRows`.
    private var storedThisRun = KeyFilter()

    nonisolated init(database: StateDatabase, rootPath: String) {
        self.database = database
        self.rootPath = rootPath
    }

    /// The state database, while the store is open.
    private func state() throws(StoreError) -> StateDatabase {
        guard !isClosed else { throw StoreError(.closed, "the store of \(rootPath) is already closed") }
        return database
    }

    /// Starts or ends `onlyThisRunsRows`: on for a `firstRun` into an index with no row (an
    /// index that cannot be read counts as not empty).
    mutating func setOnlyThisRunsRows(firstRun: Bool) {
        onlyThisRunsRows = firstRun && ((try? state().isEmpty()) ?? false)
    }

    /// The last run's answers on pairs of images.
    func pixelAnswers() throws(StoreError) -> [PixelAnswer] { try state().pixelAnswers() }

    /// Keeps `answers` for the next run.
    func replacePixelAnswers(_ answers: [PixelAnswer]) throws(StoreError) {
        try state().replacePixelAnswers(answers)
    }

    /// The keys the last run rejected as icons by their size.
    func iconKeys() throws(StoreError) -> [String] { try state().iconKeys() }

    /// Makes `keys` the keys rejected as icons by their size.
    func replaceIconKeys(_ keys: [String]) throws(StoreError) { try state().replaceIconKeys(keys) }

    /// True when the database holds no row (queued rows are not counted).
    func isEmpty() throws(StoreError) -> Bool {
        try state().isEmpty()
    }

    // MARK: Reading a key's row

    /// The row of `key`, with a confirmation not yet written applied.
    mutating func record(_ key: CanonicalURL) throws(StoreError) -> StoredImage? {
        if let pending = unwritten[key] { return pending }
        if let row = recent.removeValue(forKey: key) { return row }
        return try state().image(for: key)
    }

    /// Keeps `row` (found or not) for the `stage` or `confirm` that follows the lookup of `key`:
    /// without it, a cold run queried again for a key it had just found without a row.
    mutating func remember(_ row: StoredImage?, for key: CanonicalURL) {
        if recent.count >= Self.recentLimit { recent = [:] }
        recent[key] = .some(row)
    }

    /// The rows of `keys` by the key's text, with one query for those not waiting in `unwritten`.
    func rows(of keys: [CanonicalURL]) throws(StoreError) -> [String: StoredImage] {
        var rows: [String: StoredImage] = [:]
        var unknown: [CanonicalURL] = []
        for key in keys {
            if let pending = unwritten[key] { rows[key.string] = pending } else { unknown.append(key) }
        }
        for (text, row) in try state().images(for: unknown) { rows[text] = row }
        return rows
    }

    /// `rows(of:)` for the keys of a lookup batch. On a first run into an empty index
    /// (`onlyThisRunsRows`) a key has a row only if this run stored it (`storedThisRun`): the
    /// keys of a cold crawl need no query at all.
    func rows(ofLookedUp keys: [CanonicalURL]) throws(StoreError) -> [String: StoredImage] {
        let asked = onlyThisRunsRows ? keys.filter { storedThisRun.mayContain($0.string) } : keys
        return asked.isEmpty ? [:] : try rows(of: asked)
    }

    /// True when the database holds the row `record(key)` returns but for its `lastChecked`: no
    /// row of `key` waits unwritten, or the one waiting differs from the database's in that
    /// column only.
    func isWrittenButForLastChecked(_ key: CanonicalURL) -> Bool {
        unwritten[key] == nil || onlyChecked.contains(key)
    }

    // MARK: Changing rows

    /// Queues `stored` to be written to the state database, replacing any row of its key not
    /// yet written, and writes the queue when it is due (see `unwritten`).
    /// `newFile`: the row names a file this run wrote (staged), whose
    /// name `FileNames.freeName` must not hand out again before the row is written.
    /// `onlyChecked`: the database's row differs from `stored` in `lastChecked` only.
    mutating func keep(_ stored: StoredImage, newFile: Bool = false, onlyChecked: Bool = false) throws(StoreError) {
        recent[stored.key] = nil
        if onlyChecked { self.onlyChecked.insert(stored.key) } else { self.onlyChecked.remove(stored.key) }
        if onlyThisRunsRows { storedThisRun.insert(stored.key.string) }
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
    mutating func writeUnwritten() throws(StoreError) {
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

    /// `writeUnwritten()` on a disk too full for it: the queued confirmations are given up first
    /// (a lost one costs one more conditional request), then, one at a time, the queued rows of
    /// files this run wrote, each handed to `remove` (which deletes its file, making room),
    /// until what is left can be written. Throws the first failure all the same: the run stops
    /// (its disk is full), keeping every download the index could still record.
    mutating func writeUnwrittenMakingRoom(_ remove: (StoredImage) -> Void) throws(StoreError) {
        let failure: StoreError
        do {
            try writeUnwritten()
            return
        } catch {
            failure = error
        }
        let newFiles = Set(unwrittenNames.values)
        unwritten = unwritten.filter { newFiles.contains($0.key) }
        onlyChecked = []
        var droppable = Array(unwritten.values)
        while (try? writeUnwritten()) == nil, let row = droppable.popLast() {
            unwritten[row.key] = nil
            unwrittenNames[row.fileName] = nil
            remove(row)
        }
        throw failure
    }

    /// Writes `rows` at once, in one transaction, past the queue: for rows the queue holds no
    /// other version of (those `setUp` settles before anything is queued, and those `publish`
    /// moves after writing the queue).
    func write(_ rows: [StoredImage]) throws(StoreError) {
        try state().save(rows)
    }

    /// Deletes the rows of `keys` (which the queue does not hold), in one transaction.
    func delete(_ keys: [CanonicalURL]) throws(StoreError) {
        try state().delete(keys)
    }

    /// After a new manifest is in place: writes the queue, forgets the rows lookups read, and
    /// keeps only the rows `items` reference (`StateDatabase.keepOnly`). A failed write leaves
    /// extra rows behind, which is harmless: a lookup checks the file, and the next run's setUp
    /// settles staged rows.
    mutating func keepOnly(_ items: ItemTable) {
        try? writeUnwritten()
        recent = [:]
        try? state().keepOnly(items)
    }

    /// Writes the queue and closes the database: nothing may read or change a row after this.
    mutating func close() {
        guard !isClosed else { return }
        try? writeUnwritten()
        database.close()
        isClosed = true
    }

    // MARK: For the other parts of the store

    /// The key of the row waiting in the queue that names the file `name` this run wrote, if any.
    func unwrittenHolder(of name: String) -> CanonicalURL? {
        unwrittenNames[name]
    }

    /// True when a written row other than `key`'s names the file `name`.
    func isTaken(_ name: String, byOtherThan key: CanonicalURL) throws(StoreError) -> Bool {
        try state().isTaken(name, byOtherThan: key)
    }

    /// Every written row whose file waits in `staged/`.
    func stagedRows() throws(StoreError) -> [StoredImage] {
        try state().stagedImages()
    }

    /// How many written rows wait in `staged/`, when every one of them waits under its final
    /// name (a first run's: `Publication.stageUnderFinalNames()`); nil when some do not. Call
    /// after `writeUnwritten()`.
    func stagedUnderFinalNames() throws(StoreError) -> Int? {
        try state().stagedUnderFinalNames()
    }

    /// Marks every written row published (their files were moved into `images/` under the names
    /// the rows give), and forgets the rows lookups read, which said otherwise. Call after
    /// `writeUnwritten()`.
    mutating func markStagedPublished() throws(StoreError) {
        recent = [:]
        try state().markStagedPublished()
    }

    /// Every written row whose file is published, in key order.
    func publishedRows() throws(StoreError) -> [StoredImage] {
        try state().publishedImages()
    }
}
