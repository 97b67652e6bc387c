import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The store's per-item commit log: one JSON line per stored or confirmed image, written before
/// the item counts as stored, so a run killed at any moment leaves a record of everything it
/// had verified. A torn last line (the kill landed mid-write) is ignored on replay. Emptied once
/// a manifest that covers its records is in place.
///
/// Lines are not flushed one by one: a write survives the process being killed, and an `fsync`
/// per image cost more than the download it recorded. A power loss can lose or garble lines and
/// the files they name, which is why `DiskStorage.setUp` checks each file's bytes against its
/// record, and why the store flushes everything once before publishing.
///
/// Chosen over SQLite because the state is a small append-mostly set of records that the
/// manifest already holds in full after every successful run; replaying a few lines is all
/// recovery needs, with no extra dependency.
struct StateJournal {
    /// One line of the journal.
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
        /// The file's name inside `staged/` (its download name); absent in records written
        /// before downloads stayed under that name, where it equals `fileName`.
        var stagedName: String? = nil
    }

    let url: URL
    private var descriptor: Int32 = -1
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(date))
        }
        return encoder
    }()

    init(url: URL) {
        self.url = url
    }

    /// The complete records of the journal at `url`, oldest first; unreadable lines are skipped.
    static func replay(_ url: URL) -> [Record] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
        var records: [Record] = []
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
            if let record = try? JSONCoding.decode(Record.self, from: Data(line)) { records.append(record) }
        }
        return records
    }

    /// Appends `record` (one `write`; see above for why it is not flushed).
    mutating func append(_ record: Record) throws {
        if descriptor < 0 {
            descriptor = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            if descriptor < 0 { throw TemporaryFileWriter.WriteError(errno: errno) }
        }
        // A line starts with a newline too, so a torn previous line cannot swallow this one.
        var line = Data([0x0A])
        line.append(try encoder.encode(record))
        line.append(0x0A)
        try line.withUnsafeBytes { try TemporaryFileWriter.writeAll($0, to: descriptor) }
    }

    /// Empties the journal (its records are now in the manifest).
    mutating func reset() {
        close()
        unlink(url.path)
    }

    mutating func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
