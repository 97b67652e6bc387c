import Foundation
import MirrorCore

/// The summary of one sync: what `--report FILE` writes and what the exit status comes from.
public struct RunReport: Codable, Sendable, Equatable {
    /// The source URL, canonical.
    package var source: String
    /// The mirror directory's absolute path.
    package var output: String
    /// When the run started (whole seconds, as the manifest writes times).
    package var startedAt: Date
    /// When the run ended (whole seconds).
    package var finishedAt: Date
    /// Wall-clock length of the run, in seconds (not truncated).
    package var durationSeconds: Double
    /// 0 all good; 1 some accepted keys failed (or a page could not be read); 2, 3, 4, 75 and
    /// 130 for runs that stopped (see `MirrorError`).
    public var exitStatus: Int32
    /// True for `--dry-run`: the counts below say what a real run would do.
    package var dryRun: Bool = false
    /// Keys published for the first time.
    package var added: Int = 0
    /// Keys whose bytes changed.
    package var replaced: Int = 0
    /// Keys confirmed unchanged (304 or identical bytes).
    package var unchanged: Int = 0
    /// Items of the previous manifest deleted (or, stopped by the guard, that would have been).
    package var removed: Int = 0
    /// Items of the previous manifest that failed this run and were kept as they were.
    package var kept: Int = 0
    /// The images this run added, replaced and removed, with their files (with `--dry-run`:
    /// what a real run would); nil for a run that stopped before its plan was made.
    public var changes: RunChanges?
    /// Seconds from the start of the run to the end of each phase: `crawl` (pages, feeds and
    /// sitemaps read), `fetch` (every download settled; overlaps the crawl), `publish`.
    package var phases: [String: Double] = [:]
    /// The process's peak resident memory over the run, in bytes (`VmHWM`): what to size a
    /// container's or a unit's memory limit by. Nil where it cannot be read (not Linux).
    public var peakMemoryBytes: Int?
    /// HTML pages read.
    package var pages: Int
    /// Feeds, listings and sitemaps read.
    package var feeds: Int
    /// Distinct keys seen.
    package var keys: Int
    /// Items in the manifest: files, each a rendition of a photo.
    package var published: Int
    /// Distinct photos published (each a group of renditions, counted once: the items with no
    /// `variantOf`); nil in a report written before photos were counted, or for a run that
    /// stopped before its plan was made.
    package var photos: Int?
    /// Pairs of images the pages proposed as renditions of one photo whose pixels matched
    /// (joined), and whose pixels did not (two photos); nil when none was proposed.
    package var renditionPairs: RenditionPairs?

    /// What the pixels said of the pairs of images proposed as renditions of one photo.
    package struct RenditionPairs: Codable, Sendable, Equatable {
        /// Pairs whose pixels matched: one photo.
        package var matched: Int
        /// Pairs whose pixels did not: two photos, whatever the pages said.
        package var differed: Int
        /// Pairs that could not be compared (an image failed, or is in a format the matcher
        /// does not read): joined as proposed.
        package var unknown: Int

        /// The counts of one run.
        package init(matched: Int, differed: Int, unknown: Int) {
            (self.matched, self.differed, self.unknown) = (matched, differed, unknown)
        }
    }
    /// Image bodies received, checked and staged in this run (one the store already held
    /// byte for byte too: its copy is kept); 304s are not downloads.
    package var downloaded: Int
    /// Repeated sightings of a key answered by the loader from that key's load, under way or
    /// still held in its memory (`ImageLoader.memoryHits`), without the store or the network.
    package var memoryHits: Int
    /// Keys whose stored file a 304 confirmed current (`DiskStorage.diskHits`).
    package var diskHits: Int
    /// Bytes of image bodies received in this run.
    package var bytesDownloaded: Int64
    /// Policy rejections by reason.
    package var rejected: [String: Int]
    /// Failures of accepted keys by reason.
    public var failed: [String: Int]
    /// Lines worth a person's attention (failed pages and keys), at most 50.
    public var warnings: [String]
    /// Why the run stopped before publishing, when it did, or why publishing to the bucket
    /// failed (`--publish`).
    public var error: String?
    /// What `--publish` sent to the bucket; nil without `--publish` or when it failed.
    package var bucket: BucketUpload?

    package init(
        source: String, output: String, startedAt: Date, finishedAt: Date, durationSeconds: Double, exitStatus: Int32,
        dryRun: Bool = false, added: Int = 0, replaced: Int = 0, unchanged: Int = 0, removed: Int = 0, kept: Int = 0,
        changes: RunChanges? = nil, phases: [String: Double] = [:], peakMemoryBytes: Int? = nil, pages: Int, feeds: Int,
        keys: Int, published: Int, downloaded: Int, memoryHits: Int, diskHits: Int, bytesDownloaded: Int64,
        rejected: [String: Int], failed: [String: Int], warnings: [String], error: String? = nil
    ) {
        self.source = source
        self.output = output
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.durationSeconds = durationSeconds
        self.exitStatus = exitStatus
        self.dryRun = dryRun
        self.added = added
        self.replaced = replaced
        self.unchanged = unchanged
        self.removed = removed
        self.kept = kept
        self.changes = changes
        self.phases = phases
        self.peakMemoryBytes = peakMemoryBytes
        self.pages = pages
        self.feeds = feeds
        self.keys = keys
        self.published = published
        self.downloaded = downloaded
        self.memoryHits = memoryHits
        self.diskHits = diskHits
        self.bytesDownloaded = bytesDownloaded
        self.rejected = rejected
        self.failed = failed
        self.warnings = warnings
        self.error = error
    }

    /// The one-line summary printed at the end of every run.
    public var summaryLine: String {
        var parts =
            dryRun
            ? ["dry run: would add \(added), replace \(replaced), delete \(removed)", "\(unchanged) unchanged"]
            : [
                publishedPhrase, "\(added) added", "\(replaced) replaced", "\(unchanged) unchanged",
                "\(removed) removed",
            ]
        if kept > 0 { parts.append("\(kept) kept from the last run") }
        if let pairs = renditionPairs, pairs.matched + pairs.differed > 0 {
            parts.append("renditions: \(pairs.matched) matched, \(pairs.differed) did not")
        }
        let rejectedCount = rejected.values.reduce(0, +)
        let failedCount = failed.values.reduce(0, +)
        // By reason: what the configuration or the source turned away, each named (a key seen
        // again in another document is one key, neither counted nor rejected).
        if rejectedCount > 0 {
            parts.append(
                "\(rejectedCount) rejected ("
                    + rejected.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
        }
        if failedCount > 0 {
            parts.append(
                "\(failedCount) failed ("
                    + failed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")")
        }
        parts.append(Self.count(pages, "page") + ", " + Self.count(feeds, "feed"))
        parts.append(String(format: "%.1f s", durationSeconds))
        parts.append(String(format: "%.1f MB downloaded", Double(bytesDownloaded) / 1e6))
        let destination = bucket.map { " → \($0.target) (\($0.uploaded) uploaded, \($0.deleted) deleted)" } ?? ""
        return "catalog-mirror: " + parts.joined(separator: ", ") + " → \(output)" + destination
    }

    /// What was published: "20 photos in 104 files" (a photo's renditions are files of one
    /// photo, so a count of files alone read as five times the photos the gallery has), or
    /// "104 files published" when the photos were not counted.
    var publishedPhrase: String {
        guard let photos else { return Self.count(published, "file") + " published" }
        return Self.count(photos, "photo") + " in " + Self.count(published, "file")
    }

    /// Reads a report written by ``encoded()``.
    ///
    /// - Throws: A `DecodingError` when `data` is not such a report.
    package static func decode(_ data: Data) throws -> RunReport { try JSONCoding.decode(RunReport.self, from: data) }

    private static func count(_ value: Int, _ noun: String) -> String {
        "\(value) \(noun)\(value == 1 ? "" : "s")"
    }

    /// The report as `--report FILE` writes it: pretty JSON with sorted keys, dates as
    /// second-precision UTC RFC 3339 strings.
    ///
    /// - Throws: An `EncodingError` if a value cannot be encoded (not expected for a report).
    package func encoded() throws -> Data {
        var output = Data()
        try write { output.append(contentsOf: $0) }
        return output
    }

    /// Hands the encoded report to `sink` piece by piece, as `JSONCoding` encodes it, byte for
    /// byte: the skeleton (every field, empty `changes` lists) from the encoder, each list's
    /// entries written into it by `JSONStream`, so a long list is never held as JSON (or as
    /// entries) whole.
    ///
    /// - Throws: An `EncodingError` if a value cannot be encoded, or what `sink` throws.
    package func write(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        var skeleton = self
        var lists: [JSONStream.List<LazyMapSequence<Range<Int>, RunChanges.Entry>>] = []
        if let changes {
            skeleton.changes = RunChanges()
            // In the order the sorted keys put them in the skeleton.
            lists = RunChanges.Kind.allCases.sorted { $0.rawValue < $1.rawValue }.map {
                JSONStream.List($0.rawValue, indent: 4, elements: changes.entries($0))
            }
        }
        try JSONStream.write(
            skeleton: JSONCoding.encode(skeleton),
            filling: lists,
            element: Self.write(_:into:),
            whole: { try JSONCoding.encode(self) },
            into: sink
        )
    }

    /// Writes the report to `url`: atomically (a temporary file beside it, then a rename) onto
    /// a regular file or a new one; straight into anything else (`/dev/null`, `/dev/stdout`,
    /// a pipe), which a rename would replace.
    ///
    /// - Throws: A one-line `PublishError` naming the file when it cannot be written.
    public func write(to url: URL) throws(PublishError) {
        var status = stat()
        if stat(url.path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            do {
                let handle = try FileHandle(forWritingTo: url)
                defer { try? handle.close() }
                try write { try handle.write(contentsOf: Data($0)) }
            } catch {
                throw PublishError(.fileSystem, "cannot write \(url.path): \(error.localizedDescription)")
            }
            return
        }
        try AtomicFile.replace(url) { writer in try write { try writer.write($0) } }
    }

    /// One entry of `changes`, as the encoder writes it inside the report (keys sorted, an
    /// object at the third level of indentation).
    private static func write(_ entry: RunChanges.Entry, into out: inout [UInt8]) {
        var first = true
        func field(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            out.append(contentsOf: (first ? "      {\n        \"" : ",\n        \"").utf8)
            first = false
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: "\" : ".utf8)
            JSONText.appendQuoted(value, to: &out)
        }
        field("album", entry.album)
        field("key", entry.key)
        field("path", entry.path)
        field("title", entry.title)
        out.append(contentsOf: "\n      }".utf8)
    }
}
