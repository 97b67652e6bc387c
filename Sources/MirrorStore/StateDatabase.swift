import Foundation
import GRDB
import MirrorCore

/// What the pixels said of a pair of images, and of which bytes.
package struct PixelAnswer: Sendable, Equatable {
    /// The pair's keys, in byte order, and the SHA-256 of the bytes compared.
    package var first: String
    package var second: String
    package var firstSHA256: String
    package var secondSHA256: String
    /// Whether their pixels matched.
    package var matches: Bool

    /// One answer.
    package init(first: String, second: String, firstSHA256: String, secondSHA256: String, matches: Bool) {
        (self.first, self.second, self.firstSHA256, self.secondSHA256, self.matches) =
            (first, second, firstSHA256, secondSHA256, matches)
    }
}

/// The store's index and commit log: one SQLite database (`.catalog-mirror/state.sqlite`, WAL)
/// with a row per stored image, read by key when a lookup needs it and never loaded whole.
///
/// Rows are written in small batches, one transaction each (`RowIndex` decides when), and a
/// staged image's row always before its file is published, so a run killed at any moment leaves
/// a record of everything it had verified and committed; SQLite rolls back a transaction the
/// kill interrupted. Commits are not flushed one by one (`synchronous=NORMAL`:
/// a commit survives the process being killed, and an `fsync` per image cost more than the
/// download it recorded); `Publication.publish` flushes the file system, this file included,
/// before the first file becomes visible, and a resumed run re-hashes every staged file before
/// trusting its row.
///
/// Runs only on `ImageDatabase` (through `DiskStorage`'s `RowIndex`): every call is synchronous
/// and short.
/// Reads are single statements outside a transaction (`inDatabase`): GRDB's `read` wraps each
/// in a savepoint and two `PRAGMA query_only` statements, five statements per lookup.
struct StateDatabase: Sendable {
    /// The file name inside `.catalog-mirror/`.
    static let fileName = "state.sqlite"

    private let queue: DatabaseQueue
    /// The database's path, for error messages.
    let path: String

    private init(queue: DatabaseQueue, path: String) {
        self.queue = queue
        self.path = path
    }

    /// Opens (creating and migrating on first open) the state of the mirror at `layout`. A
    /// read-only store (`--dry-run`) works on an in-memory copy, so nothing on disk changes.
    static func open(_ layout: MirrorLayout, readOnly: Bool) throws(StoreError) -> StateDatabase {
        let path = layout.database.path
        do {
            return StateDatabase(queue: try connect(layout, readOnly: readOnly), path: path)
        } catch {
            throw openFailure(path, error)
        }
    }

    /// Opens the state as `open` does, and repairs a damaged one: a file SQLite cannot read as
    /// a database, or that fails `PRAGMA quick_check`, is moved aside (with its `-wal` and
    /// `-shm`) as `state.sqlite.damaged-<time>`, and a new index is built from `manifest.json`
    /// and the files it names, each hashed (`LegacyState`: what the first migration takes in),
    /// so a file that no longer matches is downloaded again. Published images are never touched.
    /// A dry run changes nothing: it reads a damaged state as empty. Returns the warning line
    /// that says what happened, if anything did.
    ///
    /// Failures that are not damage (permissions, a full or read-only disk) still throw: moving
    /// the file aside would not help, and the operator must act.
    static func openRepairing(_ layout: MirrorLayout, readOnly: Bool, now: Date) throws(StoreError) -> (
        database: StateDatabase, warning: String?
    ) {
        let path = layout.database.path
        let damage: String
        do {
            let queue = try connect(layout, readOnly: readOnly)
            guard let problem = try quickCheck(queue) else { return (StateDatabase(queue: queue, path: path), nil) }
            try? queue.close()
            damage = problem
        } catch let error as DatabaseError where isDamage(error) {
            damage = error.message ?? "\(error.resultCode)"
        } catch {
            throw openFailure(path, error)
        }
        if readOnly {
            do {
                let queue = try DatabaseQueue()
                try StateSchema.migrator(layout).migrate(queue)
                return (
                    StateDatabase(queue: queue, path: path),
                    "\(path) is damaged (\(damage)): this dry run reads it as empty; a sync moves it aside and rebuilds it from manifest.json"
                )
            } catch {
                throw openFailure(path, error)
            }
        }
        let aside = path + ".damaged-" + Timestamp.compact(now)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            do {
                try FileSystem.move(path + suffix, to: aside + suffix)
            } catch {
                throw StoreError(.damaged, "\(path) is damaged (\(damage)) and could not be moved aside: \(error)")
            }
        }
        do {
            let database = StateDatabase(queue: try connect(layout, readOnly: false), path: path)
            let count = try database.queue.inDatabase { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM image") ?? 0 }
            return (
                database,
                "\(path) was damaged (\(damage)): moved aside as \((aside as NSString).lastPathComponent) and rebuilt "
                    + "from manifest.json (\(count) images verified by their hash; any other is downloaded again)"
            )
        } catch {
            throw openFailure(path, error)
        }
    }

    /// Opens and migrates the database (an in-memory copy for a read-only store).
    private static func connect(_ layout: MirrorLayout, readOnly: Bool) throws -> DatabaseQueue {
        let path = layout.database.path
        let queue: DatabaseQueue
        if readOnly {
            queue = try readOnlyCopy(path)
        } else {
            var configuration = Configuration()
            configuration.journalMode = .wal
            configuration.busyMode = .timeout(5)
            // Durable against a killed process; see the type's comment for power loss. One
            // process at a time (MirrorLock), so exclusive locking: the WAL index lives in
            // memory and a read takes no file lock (four fcntl calls per lookup otherwise).
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA locking_mode = EXCLUSIVE")
            }
            queue = try DatabaseQueue(path: path, configuration: configuration)
        }
        try StateSchema.migrator(layout).migrate(queue)
        return queue
    }

    /// What `PRAGMA quick_check` finds wrong (its first line), or nil when it says `ok`: a
    /// check of every page's structure, linear in the file, without the slower comparison of
    /// each index with its table that `integrity_check` adds.
    private static func quickCheck(_ queue: DatabaseQueue) throws -> String? {
        let lines = try queue.inDatabase { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
        return lines == ["ok"] ? nil : lines.first ?? "quick_check said nothing"
    }

    /// True for the errors of a file that is not a database or is corrupt: what moving the file
    /// aside repairs.
    private static func isDamage(_ error: DatabaseError) -> Bool {
        [ResultCode.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode.primaryResultCode)
    }

    private static func openFailure(_ path: String, _ error: any Error) -> StoreError {
        StoreError(.database, "cannot open \(path): \(error)\(advice(path))")
    }

    /// What to check after a failure on the database at `path`. SQLite says "disk I/O error"
    /// when the disk is full at some steps (opening a write-ahead log, growing its index), so
    /// the file system's free space is looked at, and named when it is all but gone.
    private static func advice(_ path: String) -> String {
        var info = statvfs()
        if statvfs((path as NSString).deletingLastPathComponent, &info) == 0,
            UInt64(info.f_bavail) * UInt64(info.f_bsize) < 1 << 20
        {
            return " (No space left on device: \(UInt64(info.f_bavail) * UInt64(info.f_bsize) / 1024) KB free; "
                + "free space, then run sync again)"
        }
        return " (check permissions and free space)"
    }

    /// An in-memory copy of the database at `path` (empty when there is none). SQLite creates
    /// `-wal` and `-shm` files even for a read-only connection, so the copy is taken from a
    /// copy of the files in a temporary directory: a dry run leaves the mirror byte for byte.
    private static func readOnlyCopy(_ path: String) throws -> DatabaseQueue {
        let files = FileManager.default
        guard files.fileExists(atPath: path) else { return try DatabaseQueue() }
        let scratch = files.temporaryDirectory.appendingPathComponent("catalog-mirror-state-\(UUID().uuidString)")
        try files.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? files.removeItem(at: scratch) }
        let copy = scratch.appendingPathComponent(fileName).path
        try files.copyItem(atPath: path, toPath: copy)
        // Commits a killed run left in the write-ahead log are part of the state.
        if files.fileExists(atPath: path + "-wal") { try files.copyItem(atPath: path + "-wal", toPath: copy + "-wal") }
        return try DatabaseQueue.inMemoryCopy(fromPath: copy)
    }

    /// The columns a lookup reads, by name.
    private static let columns = StoredImage.Columns.allCases.map(\.rawValue).joined(separator: ", ")

    private func failure(_ operation: String, _ error: any Error) -> StoreError {
        StoreError(.database, "cannot \(operation) \(path): \(error)\(Self.advice(path))")
    }

    /// The row of `key`, if there is one.
    func image(for key: CanonicalURL) throws(StoreError) -> StoredImage? {
        do {
            return try queue.inDatabase { db in
                // Decoded from the statement's row in place: `Row.fetchOne` copies every column
                // into a new row first.
                let rows = try Row.fetchCursor(
                    db.cachedStatement(sql: "SELECT \(Self.columns) FROM image WHERE key = ?"), arguments: [key.string])
                return try rows.next().flatMap { StoredImage(row: $0, known: key) }
            }
        } catch {
            throw failure("read", error)
        }
    }

    /// The rows of those `keys` that have one, by the key's text: one statement for a batch
    /// of lookups instead of one each.
    func images(for keys: [CanonicalURL]) throws(StoreError) -> [String: StoredImage] {
        guard !keys.isEmpty else { return [:] }
        var byText: [String: CanonicalURL] = [:]
        byText.reserveCapacity(keys.count)
        for key in keys { byText[key.string] = key }
        let texts = Array(byText.keys)
        do {
            return try queue.inDatabase { db in
                let placeholders = repeatElement("?", count: texts.count).joined(separator: ", ")
                let rows = try Row.fetchCursor(
                    db.cachedStatement(sql: "SELECT \(Self.columns) FROM image WHERE key IN (\(placeholders))"),
                    arguments: StatementArguments(texts))
                var found: [String: StoredImage] = [:]
                while let row = try rows.next() {
                    let text: String = row[StoredImage.Columns.key]
                    if let key = byText[text], let image = StoredImage(row: row, known: key) { found[text] = image }
                }
                return found
            }
        } catch {
            throw failure("read", error)
        }
    }

    /// True when the index has no row at all.
    /// The last run's answers on pairs of images (`replacePixelAnswers`).
    func pixelAnswers() throws(StoreError) -> [PixelAnswer] {
        do {
            return try queue.inDatabase { db in
                try Row.fetchAll(db, sql: "SELECT first, second, firstSHA256, secondSHA256, matches FROM pixelPair").map {
                    PixelAnswer(
                        first: $0[0], second: $0[1], firstSHA256: $0[2], secondSHA256: $0[3], matches: $0[4] as Bool)
                }
            }
        } catch {
            throw failure("read", error)
        }
    }

    /// Makes `answers` the answers kept, in place of the last run's.
    func replacePixelAnswers(_ answers: [PixelAnswer]) throws(StoreError) {
        do {
            try queue.write { db in
                try db.execute(sql: "DELETE FROM pixelPair")
                for answer in answers {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO pixelPair VALUES (?, ?, ?, ?, ?)",
                        arguments: [answer.first, answer.second, answer.firstSHA256, answer.secondSHA256, answer.matches])
                }
            }
        } catch {
            throw failure("write", error)
        }
    }

    /// The keys the last run rejected as icons by their size (`replaceIconKeys`).
    func iconKeys() throws(StoreError) -> [String] {
        do {
            return try queue.inDatabase { db in try String.fetchAll(db, sql: "SELECT key FROM icon") }
        } catch {
            throw failure("read", error)
        }
    }

    /// Makes `keys` the keys rejected as icons by their size, in place of the last run's.
    func replaceIconKeys(_ keys: [String]) throws(StoreError) {
        do {
            try queue.write { db in
                try db.execute(sql: "DELETE FROM icon")
                for key in keys { try db.execute(sql: "INSERT OR IGNORE INTO icon (key) VALUES (?)", arguments: [key]) }
            }
        } catch {
            throw failure("write", error)
        }
    }

    func isEmpty() throws(StoreError) -> Bool {
        do {
            return try queue.inDatabase { db in
                try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM image)") ?? false)
            }
        } catch {
            throw failure("read", error)
        }
    }

    /// True when a row other than `key`'s names the file `fileName`.
    func isTaken(_ fileName: String, byOtherThan key: CanonicalURL) throws(StoreError) -> Bool {
        do {
            return try queue.inDatabase { db in
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM image WHERE fileName = ? AND key != ?)"),
                    arguments: [fileName, key.string]) ?? false
            }
        } catch {
            throw failure("read", error)
        }
    }

    /// Every row whose file waits in `staged/`.
    func stagedImages() throws(StoreError) -> [StoredImage] {
        do {
            return try queue.inDatabase { db in
                try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM image WHERE stagedName IS NOT NULL")
                    .compactMap { StoredImage(row: $0, known: nil) }
            }
        } catch {
            throw failure("read", error)
        }
    }

    /// How many rows wait in `staged/`, when each waits under its final name (`stagedName` is
    /// `fileName`); nil when some row waits under another name.
    func stagedUnderFinalNames() throws(StoreError) -> Int? {
        do {
            return try queue.inDatabase { db in
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*) AS count, COALESCE(SUM(stagedName != fileName), 0) AS other FROM image
                        WHERE stagedName IS NOT NULL
                        """)
                guard let row else { return nil }
                let (count, other): (Int, Int) = (row["count"], row["other"])
                return other == 0 ? count : nil
            }
        } catch {
            throw failure("read", error)
        }
    }

    /// Marks every row published (`stagedName` cleared), in one statement.
    func markStagedPublished() throws(StoreError) {
        do {
            try queue.write { db in try db.execute(sql: "UPDATE image SET stagedName = NULL WHERE stagedName IS NOT NULL") }
        } catch {
            throw failure("write", error)
        }
    }

    /// Every row whose file is published in `images/`, in key order: what stands in for a
    /// damaged manifest (`PreviousManifest.init(index:url:)`).
    func publishedImages() throws(StoreError) -> [StoredImage] {
        do {
            return try queue.inDatabase { db in
                try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM image WHERE stagedName IS NULL ORDER BY key")
                    .compactMap { StoredImage(row: $0, known: nil) }
            }
        } catch {
            throw failure("read", error)
        }
    }

    /// Writes the rows of `images` (replacing those of the same keys), and the `lastChecked` of
    /// `checked` (rows that differ from the stored ones in nothing else), in one transaction.
    func save(_ images: some Sequence<StoredImage>, checked: [StoredImage] = []) throws(StoreError) {
        do {
            try queue.write { db in
                let insert = try db.cachedStatement(sql: StoredImage.insertStatementSQL)
                for image in images { try insert.execute(arguments: StatementArguments(image.columnValues)) }
                guard !checked.isEmpty else { return }
                let update = try db.cachedStatement(sql: "UPDATE image SET lastChecked = ? WHERE key = ?")
                for image in checked {
                    try update.execute(arguments: [image.lastChecked.timeIntervalSince1970, image.key.string])
                }
            }
        } catch {
            throw failure("write", error)
        }
    }

    /// Deletes the rows of `keys`, in one transaction.
    func delete(_ keys: some Sequence<CanonicalURL>) throws(StoreError) {
        do {
            try queue.write { db in
                let statement = try db.cachedStatement(sql: "DELETE FROM image WHERE key = ?")
                for key in keys { try statement.execute(arguments: [key.string]) }
            }
        } catch {
            throw failure("write", error)
        }
    }

    /// After a manifest is in place: keeps only the rows its `items` reference with the same
    /// file (their path is `images/` and the row's file name), in one transaction.
    ///
    /// The rows are read in key order beside the items in key order: a table of every key and
    /// file name grew with the mirror, at the end of a run that already held its items.
    func keepOnly(_ items: ItemTable) throws(StoreError) {
        let order = items.keyOrder()
        let prefixLength = StoredImage.directory.utf8.count
        do {
            try queue.write { db in
                // Collected first: SQLite does not promise a cursor over rows being deleted.
                var stale: [String] = []
                var cursor = 0
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT key, fileName, stagedName IS NOT NULL AS staged FROM image ORDER BY key")
                while let row = try rows.next() {
                    let key: String = row[StoredImage.Columns.key]
                    while cursor < order.count, ByteOrder.precedes(items.keys[order[cursor]].utf8, key.utf8) {
                        cursor += 1
                    }
                    let referenced =
                        cursor < order.count && items.keys[order[cursor]] == key
                        && ByteOrder.equal(
                            items.pathBytes(at: order[cursor]).dropFirst(prefixLength),
                            (row[StoredImage.Columns.fileName] as String).utf8)
                    if row["staged"] as Bool || !referenced { stale.append(key) }
                }
                let statement = try db.cachedStatement(sql: "DELETE FROM image WHERE key = ?")
                for key in stale { try statement.execute(arguments: [key]) }
            }
        } catch {
            throw failure("write", error)
        }
    }

    /// Every row, in key order; for tests and inspection (a sync never loads the whole index).
    func allImages() throws(StoreError) -> [StoredImage] {
        do {
            return try queue.inDatabase { db in
                try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM image ORDER BY key").compactMap {
                    StoredImage(row: $0, known: nil)
                }
            }
        } catch {
            throw failure("read", error)
        }
    }

    /// Closes the database file.
    func close() {
        try? queue.close()
    }
}
