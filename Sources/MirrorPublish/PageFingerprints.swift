import Crypto
import Foundation
import MirrorCore

/// What each generated page was rendered from, and what was written, so a re-sync that changes
/// nothing on a page does not render it again: Mustache rendering was a large part of a no-op
/// re-sync. A page is skipped only when the hash of its inputs matches and the file on
/// disk still hashes to what was written (a page edited or deleted by hand is rendered again).
/// Kept in `.catalog-mirror/pages.json`; losing it only costs one full render.
struct PageFingerprints: Codable, Equatable {
    struct Entry: Codable, Equatable {
        /// SHA-256 of everything the page's template context holds.
        var input: String
        /// SHA-256 of the HTML written.
        var output: String
    }

    static let version = 2
    var version = PageFingerprints.version
    /// By file name (`index.html`, `page-2.html`, ...).
    var pages: [String: Entry] = [:]
    /// SHA-256 of everything the whole site was made of (`siteInput`), when every page has an
    /// entry and `files` is complete; nil in files written before it was kept.
    var site: String?
    /// SHA-256 of the other files made from the manifest (`feed.atom`, the search index), by
    /// their path from the mirror's root.
    var files: [String: String]?

    /// Whether the site made from an input hashing to `site` is on disk as last written: the
    /// input is the last publish's, and every page, the feed and the search index still hash
    /// to what was written. Then nothing of the site needs to be worked out again, page by page
    /// or at all: building each page's context to fingerprint it, and the search index to
    /// compare it, is work a re-sync that changed nothing need not do.
    func isCurrent(site input: String, root: String) -> Bool {
        guard site == input, let files, !pages.isEmpty else { return false }
        let outputs = pages.lazy.map { ($0.key, $0.value.output) }.sorted { $0.0 < $1.0 } + files.sorted { $0.key < $1.key }
        return outputs.allSatisfy { name, output in FileSystem.sha256(atPath: root + "/" + name) == output }
    }

    /// SHA-256 of what every page, the feed and the search index are made from: the manifest
    /// but its `generatedAt` (unless it has no item: the feed's `updated` is then the time of
    /// the run) and its items' `lastChecked`, the template, the number of photos a page, and the
    /// program itself (its executable's size and time: a new version may render the same input
    /// otherwise). A re-sync that changed nothing else hashes to the last run's.
    static func siteInput(of manifest: Manifest, templateSource: String, itemsPerPage: Int) -> String {
        var hasher = SHA256()
        func add(_ text: String?) {
            let bytes = Array((text ?? "").utf8)
            withUnsafeBytes(of: Int64(text == nil ? -1 : bytes.count).littleEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: bytes)
        }
        add("site@\(version)")
        add(executableIdentity)
        add(templateSource)
        add("\(itemsPerPage)")
        add(manifest.schema)
        add(manifest.source)
        add(manifest.title)
        add(manifest.table.isEmpty ? Timestamp.string(manifest.generatedAt) : nil)
        if let albums = manifest.albums {
            add("\(albums.count)")
            for album in albums {
                add(album.url)
                add(album.title)
                add(album.cover)
            }
        } else {
            add(nil)
        }
        // Chunks of the table are gathered up to 64 KB before each hasher update.
        var pending: [UInt8] = []
        pending.reserveCapacity(64 * 1024)
        manifest.table.content { bytes in
            if pending.count + bytes.count > 64 * 1024 {
                pending.withUnsafeBytes { hasher.update(bufferPointer: $0) }
                pending.removeAll(keepingCapacity: true)
            }
            if bytes.count >= 64 * 1024 {
                hasher.update(bufferPointer: bytes)
            } else {
                pending.append(contentsOf: bytes)
            }
        }
        pending.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return hasher.finalize().hexString
    }

    /// The running executable's path, size and modification time (empty when it cannot be
    /// told): a rebuilt or upgraded program renders every page once more.
    static let executableIdentity: String = {
        guard let path = Bundle.main.executablePath, let status = FileSystem.status(atPath: path) else { return "" }
        return "\(path) \(status.size) \(status.modified)"
    }()

    static func read(from url: URL) -> PageFingerprints? {
        guard let data = FileManager.default.contents(atPath: url.path),
            let stored = try? JSONCoding.decode(PageFingerprints.self, from: data), stored.version == version
        else { return nil }
        return stored
    }

    /// Whether pages rendered from `source` depend only on what `input(of:)` hashes. A template
    /// that names `generatedAt` (which changes every run), renders a whole context with `{{.}}`,
    /// or changes its delimiters (so tags cannot be read here) is rendered every time.
    static func canSkip(templateSource source: String) -> Bool {
        if source.contains("generatedAt") || source.contains("{{=") { return false }
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            rest = rest[open.upperBound...]
            guard let close = rest.range(of: "}}") else { break }
            let tag = rest[..<close.lowerBound].drop { "{#^/&!>".contains($0) || $0 == " " }
            if tag.trimmingSpaces.trimmingCharacters(in: CharacterSet(charactersIn: "}")).trimmingSpaces == "." {
                return false
            }
            rest = rest[close.upperBound...]
        }
        return true
    }

    /// SHA-256 of a page's template context and the template: objects' fields in name order,
    /// every value length-prefixed and tagged by type, so no two contexts hash alike.
    static func input(of context: TemplateObject, templateSource: String) -> String {
        var pieces = Pieces(templateSource: templateSource)
        // `generatedAt` is shown only by templates that are never skipped.
        pieces.add(context, leaving: "generatedAt")
        return pieces.finish()
    }

    /// The same, of a context given as dictionaries, as pages were given until version 2's
    /// contexts became `TemplateObject`s: for a context of the same values, the same hash
    /// (`PublishTests.fingerprintBytes`), so fingerprints written then still match.
    static func input(of context: [String: Any], templateSource: String) -> String {
        var pieces = Pieces(templateSource: templateSource)
        var context = context
        context["generatedAt"] = nil  // shown only by templates that are never skipped
        pieces.add(value: context)
        return pieces.finish()
    }

    /// The pieces of a page's input, each its length and its bytes, gathered here and hashed
    /// 16 KB at a time: a hasher update per piece (three per value) cost more than the hashing.
    private struct Pieces {
        var hasher = SHA256()
        var pending: [UInt8] = []

        init(templateSource: String) {
            pending.reserveCapacity(16 * 1024 + 256)
            add("pages@\(version)")
            add(templateSource)
        }

        mutating func drain() {
            pending.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            pending.removeAll(keepingCapacity: true)
        }

        /// Adds the length of `tag` + `text`, then both.
        mutating func add(_ text: String, tag: UInt8? = nil) {
            let length = UInt64(text.utf8.count + (tag == nil ? 0 : 1)).littleEndian
            withUnsafeBytes(of: length) { pending.append(contentsOf: $0) }
            if let tag { pending.append(tag) }
            pending.append(contentsOf: text.utf8)
            if pending.count >= 16 * 1024 { drain() }
        }

        /// An object as a dictionary of its fields was hashed: their count, then each name and
        /// value in name order.
        mutating func add(_ object: TemplateObject, leaving left: String? = nil) {
            var order = Array(object.names.indices)
            if let left { order.removeAll { object.names[$0] == left } }
            order.sort { object.names[$0] < object.names[$1] }
            add("{\(order.count)")
            for index in order {
                add(object.names[index])
                add(object.values[index])
            }
        }

        mutating func add(_ value: TemplateObject.Value) {
            switch value {
            case .text(let text): add(text, tag: UInt8(ascii: "s"))
            case .number(let number): add("i\(number)")
            case .flag(let flag): add(flag ? "t" : "f")
            case .bytes(let bytes): add("l\(bytes)")
            case .object(let object): add(object)
            case .list(let list):
                add("[\(list.count)")
                for element in list { add(element) }
            }
        }

        // The most common types are tried first: a failed cast from `Any` to a collection type
        // was most of the cost of fingerprinting a page.
        mutating func add(value: Any) {
            switch value {
            case let text as String: add(text, tag: UInt8(ascii: "s"))
            case let number as Int: add("i\(number)")
            case let flag as Bool: add(flag ? "t" : "f")
            case let dictionary as [String: Any]:
                add("{\(dictionary.count)")
                for (key, value) in dictionary.sorted(by: { $0.key < $1.key }) {
                    add(key)
                    add(value: value)
                }
            case let array as [Any]:
                add("[\(array.count)")
                for element in array { add(value: element) }
            case let number as Int64: add("l\(number)")
            default: add("?\(value)")
            }
        }

        mutating func finish() -> String {
            drain()
            return hasher.finalize().hexString
        }
    }
}
