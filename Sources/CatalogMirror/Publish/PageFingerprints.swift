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

    static let version = 2
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

    /// SHA-256 of a page's template context and the template: dictionaries in key order,
    /// every value length-prefixed and tagged by type, so no two contexts hash alike.
    static func input(of context: [String: Any], templateSource: String) -> String {
        var hasher = SHA256()
        // The pieces are gathered here and hashed 16 KB at a time: a hasher update per piece
        // (three per value) cost more than the hashing itself.
        var pending: [UInt8] = []
        pending.reserveCapacity(16 * 1024 + 256)
        func drain() {
            pending.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            pending.removeAll(keepingCapacity: true)
        }
        /// Adds the length of `tag` + `text`, then both.
        func add(_ text: String, tag: UInt8? = nil) {
            let length = UInt64(text.utf8.count + (tag == nil ? 0 : 1)).littleEndian
            withUnsafeBytes(of: length) { pending.append(contentsOf: $0) }
            if let tag { pending.append(tag) }
            pending.append(contentsOf: text.utf8)
            if pending.count >= 16 * 1024 { drain() }
        }
        // The most common types are tried first: a failed cast from `Any` to a collection type
        // was most of the cost of fingerprinting a page.
        func add(value: Any) {
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
        add("pages@\(version)")
        add(templateSource)
        var context = context
        context["generatedAt"] = nil  // shown only by templates that are never skipped
        add(value: context)
        drain()
        return hasher.finalize().hexString
    }
}
