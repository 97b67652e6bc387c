import Foundation

/// The on-disk store of one mirror: its image files, their index, and the namespace of names.
///
/// The whole class runs on `ImageDatabase`, so the index and the names can never race. Bytes
/// never pass through here: downloads arrive as checked files in `staged/` and are renamed once,
/// into `images/`, when the run publishes. Every change to the index is committed to the
/// `StateJournal` before it is acted on, so a run killed at any point can be resumed without
/// downloading again what was stored and verified.
///
/// Durability is batched: neither the downloads nor the journal lines are flushed one by one.
/// A killed process loses nothing (the kernel still holds the written pages); against a power
/// loss, `publish` flushes the file system once before the first file becomes visible, and a
/// resumed run re-hashes every journaled file before trusting it.
@ImageDatabase public final class DiskStorage {
    /// Where the mirror lives.
    public nonisolated let layout: MirrorLayout
    /// When true (`--dry-run`) nothing on disk is created, changed or removed.
    public nonisolated let readOnly: Bool
    /// Running count of disk hits (a key answered from a stored file: unchanged on revalidation).
    public nonisolated let diskHits: AsyncStream<Int>
    private nonisolated let diskHitsContinuation: AsyncStream<Int>.Continuation

    /// The manifest of the last successful run, if there is a readable one.
    public private(set) var previousManifest: Manifest?
    private var index: [CanonicalURL: StoredImage] = [:]
    /// File name → the key that owns it, over published and staged files.
    private var owners: [String: CanonicalURL] = [:]
    private var journal: StateJournal
    private var hitCount = 0
    private let fileManager = FileManager.default
    /// `images/` and `staged/` as paths, joined to file names without any file-system lookup.
    private nonisolated let imagesPath: String
    private nonisolated let stagedPath: String

    nonisolated init(layout: MirrorLayout, readOnly: Bool = false) {
        self.layout = layout
        self.readOnly = readOnly
        self.journal = StateJournal(url: layout.journal)
        imagesPath = layout.images.path
        stagedPath = layout.staged.path
        (diskHits, diskHitsContinuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Where downloads are written. A checked download stays there under its temporary name
    /// until `publish` renames it into `images/`.
    public nonisolated var downloadDirectory: URL { layout.staged }

    /// Builds the index, before anything else runs: the previous manifest's items whose files
    /// are in `images/` with their recorded size, then the journal's records (newer) whose files
    /// are where the record says or already in `images/`, with the recorded bytes. Leftovers of
    /// an interrupted run are removed: files in `tmp/` and staged files no record vouches for.
    public func setUp() throws(StoreError) {
        if !readOnly {
            for directory in [layout.root, layout.images, layout.state, layout.temporary, layout.staged] {
                do {
                    try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
                } catch {
                    throw StoreError.io("create", directory.path, error)
                }
            }
            removeContents(of: layout.temporary) { _ in true }
        }
        index = [:]
        owners = [:]
        previousManifest = try? Manifest.read(from: layout.manifest)
        for item in previousManifest?.items ?? [] {
            guard let key = CanonicalURL(item.key), item.path.hasPrefix("images/") else { continue }
            let name = String(item.path.dropFirst("images/".count))
            guard Self.isPlainName(name), owners[name] == nil || owners[name] == key,
                FileSystem.size(atPath: imagesPath + "/" + name) == item.bytes
            else { continue }
            add(
                StoredImage(
                    key: key, fileName: name, sha256: item.sha256, byteCount: item.bytes, contentType: item.contentType,
                    etag: item.etag, lastModified: item.lastModified, firstSeen: item.firstSeen,
                    lastChecked: item.lastChecked, stagedName: nil))
        }
        // Records of an interrupted run; the last one for a key wins.
        var latest: [CanonicalURL: StateJournal.Record] = [:]
        for record in StateJournal.replay(layout.journal) {
            guard let key = CanonicalURL(record.key), Self.isPlainName(record.fileName),
                Self.isPlainName(record.stagedName ?? record.fileName)
            else { continue }
            latest[key] = record
        }
        for (key, record) in latest {
            if let owner = owners[record.fileName], owner != key { continue }
            // Journal lines were not flushed one by one, so after a power loss a record may name
            // a file whose bytes never reached the disk: the bytes must hash to the record.
            let stagedName = record.stagedName ?? record.fileName
            let inStaging = record.staged && Self.holds(stagedPath + "/" + stagedName, record)
            guard inStaging || Self.holds(imagesPath + "/" + record.fileName, record) else { continue }
            add(
                StoredImage(
                    key: key, fileName: record.fileName, sha256: record.sha256, byteCount: record.bytes,
                    contentType: record.contentType, etag: record.etag, lastModified: record.lastModified,
                    firstSeen: record.firstSeen, lastChecked: record.lastChecked, stagedName: inStaging ? stagedName : nil))
        }
        if !readOnly {
            let vouched = Set(index.values.compactMap(\.stagedName))
            removeContents(of: layout.staged) { !vouched.contains($0) }
        }
    }

    /// True when the file at `path` has the record's size and SHA-256.
    private nonisolated static func holds(_ path: String, _ record: StateJournal.Record) -> Bool {
        FileSystem.size(atPath: path) == record.bytes && FileSystem.sha256(atPath: path) == record.sha256
    }

    private func add(_ stored: StoredImage) {
        if let old = index[stored.key], owners[old.fileName] == stored.key { owners[old.fileName] = nil }
        index[stored.key] = stored
        owners[stored.fileName] = stored.key
    }

    /// The stored image for `key` (published, or verified by an interrupted run), if its file is
    /// still in place. Does not count a hit: the caller revalidates first.
    public func lookup(_ key: CanonicalURL) -> StoredImage? {
        guard let stored = index[key], FileSystem.size(atPath: path(of: stored)) != nil else { return nil }
        return stored
    }

    /// Records that the stored copy of `key` is current (a 304, or identical bytes): updates its
    /// validators and `lastChecked`, and counts a disk hit. Only a staged file's confirmation is
    /// journaled: a published one is already safe, and losing its new `lastChecked` to a crash
    /// costs one more conditional request, which is cheaper than an fsync per image.
    public func confirm(_ key: CanonicalURL, validators: Validators, at now: Date) throws(StoreError) -> StoredImage? {
        guard var stored = index[key] else { return nil }
        stored.etag = validators.etag ?? stored.etag
        stored.lastModified = validators.lastModified ?? stored.lastModified
        stored.lastChecked = now
        if stored.isStaged { try commit(stored) }
        index[key] = stored
        hitCount += 1
        diskHitsContinuation.yield(hitCount)
        return stored
    }

    /// Where the file of `stored` is now.
    private func path(of stored: StoredImage) -> String {
        stored.stagedName.map { stagedPath + "/" + $0 } ?? imagesPath + "/" + stored.fileName
    }

    /// Takes a checked download for `request` into the store: picks its file name (the old one
    /// when the bytes did not change), leaves the file in the staging directory (moving it there
    /// if it was written elsewhere), commits the record to the journal, and indexes it.
    public func stage(_ file: DownloadedFile, for request: ImageRequest, at now: Date) throws(StoreError) -> StoredImage {
        let previous = index[request.key]
        if let previous, previous.sha256 == file.sha256 {
            // Same bytes as the stored file: keep it and its name; drop the download.
            unlink(file.temporaryURL.path)
            var confirmed = previous
            confirmed.etag = file.etag
            confirmed.lastModified = file.lastModified
            confirmed.lastChecked = now
            if confirmed.isStaged { try commit(confirmed) }
            index[request.key] = confirmed
            return confirmed
        }
        let name = freeName(for: request, file: file)
        let stagedName = file.temporaryURL.lastPathComponent
        if file.temporaryURL.deletingLastPathComponent().standardizedFileURL.path != stagedPath {
            do {
                try FileSystem.move(file.temporaryURL.path, to: stagedPath + "/" + stagedName)
            } catch {
                throw StoreError(error.description)
            }
        }
        let stored = StoredImage(
            key: request.key, fileName: name, sha256: file.sha256, byteCount: file.byteCount,
            contentType: file.format.mediaType, etag: file.etag, lastModified: file.lastModified,
            firstSeen: previous?.firstSeen ?? now, lastChecked: now, stagedName: stagedName)
        try commit(stored)
        // A file an interrupted run had staged for this key is superseded.
        if let old = previous?.stagedName, old != stagedName { unlink(stagedPath + "/" + old) }
        add(stored)
        return stored
    }

    private func commit(_ stored: StoredImage) throws(StoreError) {
        guard !readOnly else { return }
        do {
            try journal.append(
                .init(
                    key: stored.key.string, fileName: stored.fileName, sha256: stored.sha256, bytes: stored.byteCount,
                    contentType: stored.contentType, etag: stored.etag, lastModified: stored.lastModified,
                    firstSeen: stored.firstSeen, lastChecked: stored.lastChecked, staged: stored.isStaged,
                    stagedName: stored.stagedName))
        } catch {
            throw StoreError.io("write", layout.journal.path, error)
        }
    }

    private func freeName(for request: ImageRequest, file: DownloadedFile) -> String {
        var length = 10
        while true {
            let name = FileNamer.fileName(
                key: request.key, title: request.title, sha256: file.sha256, format: file.format, hashLength: length)
            if owners[name] == nil || owners[name] == request.key || length >= 64 { return name }
            length += 4
        }
    }

    /// Moves the staged files of `keys` into `images/` (one atomic rename each), so pages
    /// written after this only reference complete files. The file system is flushed once
    /// before the first rename (every staged byte is durable before it becomes visible) and
    /// `images/` once after the last (the renames are durable before a page names them).
    public func publish(_ keys: [CanonicalURL]) throws(StoreError) {
        let pending = keys.compactMap { index[$0] }.filter(\.isStaged)
        guard !readOnly, !pending.isEmpty else { return }
        do {
            try FileSystem.flushFileSystem(containing: stagedPath)
            for var stored in pending {
                try FileSystem.move(path(of: stored), to: imagesPath + "/" + stored.fileName)
                stored.stagedName = nil
                index[stored.key] = stored
            }
            try FileSystem.flushDirectory(imagesPath)
        } catch {
            throw StoreError(error.description)
        }
    }

    /// After a new manifest is in place: deletes every file in `images/` it does not reference
    /// (removed keys, superseded versions, leftovers of killed runs), every staged file, and the
    /// journal, whose records the manifest now holds. Returns the names deleted.
    @discardableResult
    public func finishPublishing(_ manifest: Manifest) -> [String] {
        guard !readOnly else { return [] }
        let referenced = Set(manifest.items.map { String($0.path.dropFirst("images/".count)) })
        var deleted: [String] = []
        removeContents(of: layout.images) { name in
            let remove = !referenced.contains(name)
            if remove { deleted.append(name) }
            return remove
        }
        removeContents(of: layout.staged) { _ in true }
        journal.reset()
        index = index.filter { !$0.value.isStaged && referenced.contains($0.value.fileName) }
        owners = Dictionary(uniqueKeysWithValues: index.map { ($0.value.fileName, $0.key) })
        previousManifest = manifest
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
        journal.reset()
        index = [:]
        owners = [:]
    }

    /// Ends the `diskHits` stream and closes the journal; the store's owner calls it at the end.
    func finishStreams() {
        diskHitsContinuation.finish()
        journal.close()
    }

    private func removeContents(of directory: URL, where shouldRemove: (String) -> Bool) {
        guard let names = try? fileManager.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where shouldRemove(name) {
            try? fileManager.removeItem(atPath: directory.path + "/" + name)
        }
    }

    private nonisolated static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.utf8.contains(UInt8(ascii: "/")) && name != "." && name != ".." && !name.utf8.contains(0)
    }
}
