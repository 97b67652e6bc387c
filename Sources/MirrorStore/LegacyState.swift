import Foundation
import MirrorCore

/// The state of mirrors written before `StateDatabase`: the index was rebuilt on every run from
/// `manifest.json`, then the records of `.catalog-mirror/journal.jsonl` (one JSON line per image
/// an interrupted run had stored, the last line for a key winning). Read once, when the
/// database is created, so a mirror an older version wrote keeps its files and resumes without
/// downloading again.
enum LegacyState {
    /// One line of the old journal, as the old code wrote it.
    struct Record: Codable, Equatable {
        var key: String
        var fileName: String
        var sha256: String
        var bytes: Int64
        var contentType: String
        var etag: String?
        var lastModified: String?
        var firstSeen: Date
        var lastChecked: Date
        /// True while the file waits in `staged/`; false once it is (or was) in `images/`.
        var staged: Bool
        /// The file's name inside `staged/`; absent in the oldest records, where it equals `fileName`.
        var stagedName: String? = nil
    }

    /// The complete records of the journal at `url`, oldest first; unreadable lines (a torn last
    /// line, where a kill landed mid-write) are skipped.
    static func replay(_ url: URL) -> [Record] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
        var records: [Record] = []
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if let record = try? JSONCoding.decode(Record.self, from: Data(line)) { records.append(record) }
        }
        return records
    }

    /// The index the old code built: the manifest's items whose files are in `images/` with
    /// their recorded size and hash, then the journal's records (newer) whose files are where the record
    /// says, or already in `images/`, with the recorded bytes (the old journal was not flushed
    /// line by line, so a record may name bytes that never reached the disk).
    static func images(_ layout: MirrorLayout) -> [StoredImage] {
        let imagesPath = layout.images.path
        let stagedPath = layout.staged.path
        var index: [CanonicalURL: StoredImage] = [:]
        var owners: [String: CanonicalURL] = [:]
        func add(_ stored: StoredImage) {
            if let old = index[stored.key], owners[old.fileName] == stored.key { owners[old.fileName] = nil }
            index[stored.key] = stored
            owners[stored.fileName] = stored.key
        }
        let manifest = try? Manifest.read(from: layout.manifest)
        for item in manifest?.items ?? [] {
            guard let key = CanonicalURL(item.key), item.path.hasPrefix("images/") else { continue }
            let name = String(item.path.dropFirst("images/".count))
            // Hashed, not only sized: this also rebuilds the index of a mirror whose state file
            // was damaged, and a file someone changed since must be downloaded again.
            guard isPlainName(name), owners[name] == nil || owners[name] == key,
                FileSystem.size(atPath: imagesPath + "/" + name) == item.bytes,
                FileSystem.sha256(atPath: imagesPath + "/" + name) == item.sha256
            else { continue }
            add(
                StoredImage(
                    key: key, fileName: name, sha256: item.sha256, byteCount: item.bytes, contentType: item.contentType,
                    etag: item.etag, lastModified: item.lastModified, firstSeen: item.firstSeen,
                    lastChecked: item.lastChecked, stagedName: nil))
        }
        var latest: [CanonicalURL: Record] = [:]
        for record in replay(layout.legacyJournal) {
            guard let key = CanonicalURL(record.key), isPlainName(record.fileName),
                isPlainName(record.stagedName ?? record.fileName)
            else { continue }
            latest[key] = record
        }
        for (key, record) in latest {
            if let owner = owners[record.fileName], owner != key { continue }
            let stagedName = record.stagedName ?? record.fileName
            let inStaging = record.staged && holds(stagedPath + "/" + stagedName, record)
            guard inStaging || holds(imagesPath + "/" + record.fileName, record) else { continue }
            add(
                StoredImage(
                    key: key, fileName: record.fileName, sha256: record.sha256, byteCount: record.bytes,
                    contentType: record.contentType, etag: record.etag, lastModified: record.lastModified,
                    firstSeen: record.firstSeen, lastChecked: record.lastChecked, stagedName: inStaging ? stagedName : nil))
        }
        return Array(index.values)
    }

    /// True when the file at `path` has the record's size and SHA-256.
    private static func holds(_ path: String, _ record: Record) -> Bool {
        FileSystem.size(atPath: path) == record.bytes && FileSystem.sha256(atPath: path) == record.sha256
    }

    /// True for a name that stays inside its directory.
    static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.utf8.contains(UInt8(ascii: "/")) && name != "." && name != ".." && !name.utf8.contains(0)
    }
}
