import Crypto
import Foundation
import MirrorCore
import MirrorFetch

/// Stored copies of the pages and feeds of the last successful run, with their validators, so
/// they can be revalidated with conditional requests. A 304 returns the stored copy, so a page
/// that did not change still yields everything it links to (wget stops recursing there).
///
/// Bodies are named by their hash and written as they arrive; the index naming them is saved
/// only at the end of a successful run, so an interrupted run never pairs old validators with
/// new bytes.
package actor DocumentCache {
    struct Entry: Codable, Sendable {
        var etag: String?
        var lastModified: String?
        var mediaType: String?
        var charset: String?
        /// The body's file name in the documents directory (its SHA-256).
        var body: String
        /// The URL the body came from after redirects.
        var finalURL: String
    }

    /// Where bodies are kept (and streamed bodies are written first).
    nonisolated let directory: URL
    private nonisolated let readOnly: Bool
    private var entries: [String: Entry]
    private var changed = false

    package init(directory: URL, readOnly: Bool) {
        self.directory = directory
        self.readOnly = readOnly
        let index = directory.appendingPathComponent("index.json")
        entries =
            FileManager.default.contents(atPath: index.path).flatMap { try? JSONCoding.decode([String: Entry].self, from: $0) }
            ?? [:]
    }

    /// Validators to send for `url`, when a stored copy exists.
    func validators(for url: CanonicalURL) -> Validators? {
        guard let entry = entries[url.string], !(entry.etag == nil && entry.lastModified == nil),
            FileManager.default.fileExists(atPath: directory.appendingPathComponent(entry.body).path)
        else { return nil }
        return Validators(etag: entry.etag, lastModified: entry.lastModified)
    }

    /// The stored copy of `url` (after a 304).
    func document(for url: CanonicalURL) -> FetchedDocument? {
        guard let entry = entries[url.string], let finalURL = CanonicalURL(entry.finalURL),
            let data = FileManager.default.contents(atPath: directory.appendingPathComponent(entry.body).path)
        else { return nil }
        return FetchedDocument(url: finalURL, mediaType: entry.mediaType, charset: entry.charset, bytes: Array(data))
    }

    /// The stored copy of `url` as a file (after a 304), for documents read as a stream.
    func storedFile(for url: CanonicalURL) -> DownloadedDocument? {
        guard let entry = entries[url.string], let finalURL = CanonicalURL(entry.finalURL) else { return nil }
        let file = directory.appendingPathComponent(entry.body)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return DownloadedDocument(
            url: finalURL, mediaType: entry.mediaType, charset: entry.charset, file: file, isFresh: false, sha256: entry.body,
            validators: Validators(etag: entry.etag, lastModified: entry.lastModified))
    }

    /// Keeps a freshly downloaded body (moved into the cache) with its validators, or deletes
    /// it when it cannot be kept (a dry run, no validators).
    func keep(_ download: DownloadedDocument, for url: CanonicalURL) {
        guard download.isFresh else { return }
        store(
            file: download.file, sha256: download.sha256, for: url, finalURL: download.url, mediaType: download.mediaType,
            charset: download.charset, validators: download.validators)
    }

    /// Remembers a freshly fetched document and its validators.
    func store(_ document: FetchedDocument, for url: CanonicalURL, validators: Validators) {
        guard !readOnly else { return }
        guard !validators.isEmpty else {
            if entries.removeValue(forKey: url.string) != nil { changed = true }
            return
        }
        let name = SHA256.hash(data: document.bytes).hexString
        let file = directory.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: file.path) { try Data(document.bytes).write(to: file, options: .atomic) }
        } catch {
            return  // A cache that cannot be written only costs a full fetch next time.
        }
        entries[url.string] = Entry(
            etag: validators.etag, lastModified: validators.lastModified, mediaType: document.mediaType,
            charset: document.charset, body: name, finalURL: document.url.string)
        changed = true
    }

    /// Remembers a document whose body was streamed into `file` (inside `directory`).
    func store(
        file: URL, sha256: String, for url: CanonicalURL, finalURL: CanonicalURL, mediaType: String?, charset: String?,
        validators: Validators
    ) {
        let destination = directory.appendingPathComponent(sha256)
        guard !readOnly, !validators.isEmpty, rename(file.path, destination.path) == 0 else {
            try? FileManager.default.removeItem(at: file)
            return
        }
        entries[url.string] = Entry(
            etag: validators.etag, lastModified: validators.lastModified, mediaType: mediaType, charset: charset,
            body: sha256, finalURL: finalURL.string)
        changed = true
    }

    /// Saves the index (after a successful run) and removes bodies it no longer names.
    package func save() {
        guard !readOnly, changed else { return }
        let index = directory.appendingPathComponent("index.json")
        guard let data = try? JSONCoding.encode(entries) else { return }
        try? data.write(to: index, options: .atomic)
        let named = Set(entries.values.map(\.body)).union(["index.json"])
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where !named.contains(name) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
        changed = false
    }
}
