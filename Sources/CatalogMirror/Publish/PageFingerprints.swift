import Crypto
import Foundation

/// What each generated page was rendered from, and what was written, so a re-sync that changes
/// nothing on a page does not render it again: at 10,000 images Mustache rendering was 15 % of
/// a no-op re-sync. A page is skipped only when the hash of its inputs matches and the file on
/// disk still hashes to what was written (a page edited or deleted by hand is rendered again).
/// Kept in `.catalog-mirror/pages.json`; losing it only costs one full render.
struct PageFingerprints: Codable, Equatable {
    struct Entry: Codable, Equatable {
        /// SHA-256 of everything the page's template context holds.
        var input: String
        /// SHA-256 of the HTML written.
        var output: String
    }

    static let version = 1
    var version = PageFingerprints.version
    /// By file name (`index.html`, `page-2.html`, ...).
    var pages: [String: Entry] = [:]

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

    /// SHA-256 of page `index`'s context: the template, the site fields and every rendered
    /// field of its items, each length-prefixed so no two inputs run together.
    static func input(of index: Int, in pages: MirrorPublisher.Pages, templateSource: String) -> String {
        var hasher = SHA256()
        func add(_ text: String) {
            var length = UInt64(text.utf8.count).littleEndian
            withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
            var copy = text
            copy.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        }
        add("pages@\(version)")
        add(templateSource)
        add(pages.siteTitle)
        add(pages.manifest.source)
        add("\(pages.manifest.items.count) \(index) \(pages.count)")
        for item in pages.chunks[index] {
            add(item.key)
            add(item.path)
            add(item.title ?? "\u{0}")
            add(item.contentType)
            add(String(item.bytes))
            let metadata = (item.metadata ?? [:]).sorted { $0.key < $1.key }
            add(String(metadata.count))
            for (name, value) in metadata {
                add(name)
                add(value)
            }
        }
        return hasher.finalize().hexString
    }
}
