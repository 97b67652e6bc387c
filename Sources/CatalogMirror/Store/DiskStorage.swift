import Foundation

/// The on-disk store of one mirror: its image files, their index, and the namespace of names.
///
/// The whole class runs on `ImageDatabase`, so the index and the names can never race. Bytes
/// never pass through here: downloads arrive as checked temporary files and are renamed.
@ImageDatabase public final class DiskStorage {
    /// Where the mirror lives.
    public nonisolated let layout: MirrorLayout
    /// Running count of disk hits (a key served from a stored file without a download).
    public nonisolated let diskHits: AsyncStream<Int>
    private nonisolated let diskHitsContinuation: AsyncStream<Int>.Continuation

    private var index: [CanonicalURL: StoredImage] = [:]
    /// File name → the key that owns it, over published and staged files.
    private var owners: [String: CanonicalURL] = [:]
    /// Published files replaced this run by new bytes of their key; pruned after publishing.
    private var superseded: [String] = []
    private var hitCount = 0
    private let fileManager = FileManager.default

    nonisolated init(layout: MirrorLayout) {
        self.layout = layout
        (diskHits, diskHitsContinuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Prepares the directories, removes leftovers of an interrupted run from the state
    /// directory, and builds the index from the previous manifest and the files on disk: an
    /// entry counts only when its file exists in `images/` with the recorded size.
    public func setUp() throws(StoreError) {
        for directory in [layout.root, layout.images, layout.state] {
            do {
                try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError.io("create", directory.path, error)
            }
        }
        for directory in [layout.temporary, layout.staged] {
            try? fileManager.removeItem(at: directory)
            do {
                try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError.io("create", directory.path, error)
            }
        }
        index = [:]
        owners = [:]
        guard let manifest = try? Manifest.read(from: layout.manifest) else { return }
        for item in manifest.items {
            guard let key = CanonicalURL(item.key), item.path.hasPrefix("images/") else { continue }
            let name = String(item.path.dropFirst("images/".count))
            guard !name.isEmpty, !name.contains("/"), name != ".", name != "..", owners[name] == nil,
                let attributes = try? fileManager.attributesOfItem(atPath: layout.images.appendingPathComponent(name).path),
                (attributes[.size] as? NSNumber)?.int64Value == item.bytes
            else { continue }
            index[key] = StoredImage(
                key: key, fileName: name, sha256: item.sha256, byteCount: item.bytes, contentType: item.contentType,
                etag: item.etag, lastModified: item.lastModified, firstSeen: item.firstSeen,
                lastChecked: item.lastChecked, isStaged: false)
            owners[name] = key
        }
    }

    /// The published image for `key`, if its file is still there; counts a disk hit.
    public func lookup(_ key: CanonicalURL) -> StoredImage? {
        guard let stored = index[key], !stored.isStaged,
            fileManager.fileExists(atPath: layout.images.appendingPathComponent(stored.fileName).path)
        else { return nil }
        hitCount += 1
        diskHitsContinuation.yield(hitCount)
        return stored
    }

    /// The index entry for `key` (published or staged), without counting a hit.
    public func record(for key: CanonicalURL) -> StoredImage? { index[key] }

    /// Every entry of the index.
    public var records: [StoredImage] { Array(index.values) }

    /// Takes a checked download for `request` into the store: picks its file name (the old one
    /// when the bytes did not change), moves the file to the staging directory, and indexes it.
    public func stage(_ file: DownloadedFile, for request: ImageRequest, at now: Date) throws(StoreError) -> StoredImage {
        let previous = index[request.key]
        if let previous, previous.sha256 == file.sha256, !previous.isStaged {
            // Same bytes as the published file: keep it and its name; drop the download.
            try? fileManager.removeItem(at: file.temporaryURL)
            var confirmed = previous
            confirmed.etag = file.etag ?? previous.etag
            confirmed.lastModified = file.lastModified ?? previous.lastModified
            confirmed.lastChecked = now
            index[request.key] = confirmed
            return confirmed
        }
        let name = freeName(for: request, file: file)
        let destination = layout.staged.appendingPathComponent(name)
        do {
            try? fileManager.removeItem(at: destination)
            try fileManager.moveItem(at: file.temporaryURL, to: destination)
        } catch {
            throw StoreError.io("move a download to", destination.path, error)
        }
        if let previous, !previous.isStaged { superseded.append(previous.fileName) }
        let stored = StoredImage(
            key: request.key, fileName: name, sha256: file.sha256, byteCount: file.byteCount,
            contentType: file.format.mediaType, etag: file.etag, lastModified: file.lastModified,
            firstSeen: previous?.firstSeen ?? now, lastChecked: now, isStaged: true)
        index[request.key] = stored
        owners[name] = request.key
        return stored
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

    /// Moves every staged file into `images/` (one atomic rename each), so pages written after
    /// this only reference complete files.
    public func publishStaged() throws(StoreError) {
        for (key, stored) in index where stored.isStaged {
            let source = layout.staged.appendingPathComponent(stored.fileName)
            let destination = layout.images.appendingPathComponent(stored.fileName)
            if rename(source.path, destination.path) != 0 {
                throw StoreError("cannot move \(source.path) to \(destination.path): \(String(cString: strerror(errno)))")
            }
            var published = stored
            published.isStaged = false
            index[key] = published
        }
    }

    /// Removes the files of this run's downloads that were never published (an aborted run).
    public func discardStaged() {
        try? fileManager.removeItem(at: layout.staged)
        for (key, stored) in index where stored.isStaged {
            index[key] = nil
            owners[stored.fileName] = nil
        }
    }

    /// Deletes published files whose key now has other bytes. Called after the new pages and
    /// manifest are in place, so no served page references them any more.
    public func pruneSuperseded() {
        for name in superseded where !owners.values.contains(where: { index[$0]?.fileName == name }) {
            try? fileManager.removeItem(at: layout.images.appendingPathComponent(name))
        }
        superseded = []
    }

    /// Removes every stored file and empties the index (the memory cache is the loader's).
    public func clear() throws(StoreError) {
        for directory in [layout.images, layout.staged, layout.temporary] {
            do {
                if fileManager.fileExists(atPath: directory.path) { try fileManager.removeItem(at: directory) }
                try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw StoreError.io("clear", directory.path, error)
            }
        }
        index = [:]
        owners = [:]
        superseded = []
    }

    /// Ends the `diskHits` stream; the store's owner calls it when the run is over.
    func finishStreams() {
        diskHitsContinuation.finish()
    }
}
