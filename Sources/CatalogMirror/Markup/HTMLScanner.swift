import Foundation

/// Reads an HTML page with libxml2's recovering HTML parser (network off) into what the crawler
/// needs: every image a visitor sees, grouped into photos with their renditions; the links to
/// follow; the feeds the page advertises; and the page's title.
public enum HTMLScanner {
    /// File extensions that make a URL an image URL.
    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "jpe", "gif", "webp", "avif", "svg"]
    /// Lazy-loading attributes that carry the image an `<img>` shows (read before `src`).
    static let lazySourceAttributes = ["data-src", "data-lazy-src"]
    /// Attributes that carry a `srcset` candidate list.
    static let srcsetAttributes = ["srcset", "data-srcset", "data-lazy-srcset"]
    /// Feed media types read from `<link rel="alternate">`.
    static let feedTypes: Set<String> = [
        "application/rss+xml", "application/atom+xml", "application/json", "application/feed+json",
        "application/xml", "text/xml", "application/rdf+xml",
    ]

    /// Scans `bytes` (a page fetched from `url`). `encoding` is the HTTP header's charset, if any.
    public static func scan(_ bytes: [UInt8], url: String, encoding: String? = nil) throws(MarkupError) -> PageScan {
        let document = try MarkupDocument.html(bytes, url: url, encoding: encoding)
        var reader = PageReading()
        document.walk { node in reader.visit(node) }
        var scan = reader.finish()
        scan.readScripts()
        return scan
    }

    /// True when the URL's path (query and fragment aside) ends in an image file extension.
    static func hasImageExtension(_ url: String) -> Bool {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let dot = path.lastIndex(of: "."), !path[dot...].utf8.contains(UInt8(ascii: "/")) else { return false }
        return imageExtensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// The `url(...)` values of `background` and `background-image` declarations in an inline
    /// style. A small scanner rather than a CSS parser: inline styles are one declaration list.
    static func backgroundImages(inStyle style: String) -> [String] {
        var urls: [String] = []
        for declaration in style.split(separator: ";") {
            guard let colon = declaration.firstIndex(of: ":") else { continue }
            let property = declaration[..<colon].trimmingSpaces.lowercased()
            guard property == "background" || property == "background-image" else { continue }
            var rest = declaration[declaration.index(after: colon)...]
            while let open = rest.range(of: "url(", options: .caseInsensitive) {
                let afterOpen = rest[open.upperBound...]
                guard let close = afterOpen.firstIndex(of: ")") else { break }
                var value = afterOpen[..<close].trimmingSpaces
                if let first = value.first, first == "\"" || first == "'", value.count >= 2, value.last == first {
                    value = String(value.dropFirst().dropLast())
                }
                if !value.isEmpty { urls.append(value) }
                rest = afterOpen[afterOpen.index(after: close)...]
            }
        }
        return urls
    }
}

extension StringProtocol {
    /// Whether `needle` occurs in the text, compared as UTF-8 bytes. Not `contains(_:)`: with
    /// Foundation imported that resolves to NSString's `range(of:)`, which was a seventh of a
    /// page's reading time.
    /// (Nor `utf8.firstRange(of:)`, whose generic searcher looks up type metadata per call.)
    func includes(_ needle: String) -> Bool {
        let bytes = utf8
        guard let first = needle.utf8.first else { return true }
        var start = bytes.startIndex
        while let found = bytes[start...].firstIndex(of: first) {
            if bytes[found...].starts(with: needle.utf8) { return true }
            start = bytes.index(after: found)
        }
        return false
    }

    /// The text without leading and trailing white space (Unicode `White_Space`). Works on
    /// scalars: trimming by `Character` reversed the string grapheme by grapheme, which showed
    /// up as 5 % of a re-sync's CPU time.
    var trimmingSpaces: String {
        let text = String(self)
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isWhiteSpace }),
            let last = scalars.lastIndex(where: { !$0.isWhiteSpace })
        else { return "" }
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return text }
        return String(Substring(scalars[first...last]))
    }
}
