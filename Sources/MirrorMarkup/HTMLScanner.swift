import CLibXML
import Foundation

/// Reads an HTML page with libxml2's recovering HTML parser (network off) into what the crawler
/// needs: every image a visitor sees, grouped into photos with their renditions; the links to
/// follow; the feeds the page advertises; and the page's title.
package enum HTMLScanner {
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
    ///
    /// libxml2's recovering HTML parser reads the whole page, in one pass and without building
    /// its tree (`PageStream`), so broken markup still gives what it can; `encoding` defaults to
    /// nil (the page's own `<meta charset>`, else UTF-8). Numeric character references libxml2
    /// would cut a value at (`&#xB;`) are first rewritten as the HTML Standard reads them
    /// (`CharacterReferences`).
    /// `isFragment`: the bytes are HTML inside another document (a feed item's content), not
    /// a page, so no photo there is the one a page is about (`PageReading.readsOwnPage`).
    /// Default: false.
    /// - Throws: ``MarkupError`` only when libxml2 cannot set up a parser for the page.
    package static func scan(
        _ bytes: [UInt8], url: String, encoding: String? = nil, isFragment: Bool = false
    ) throws(MarkupError) -> PageScan {
        let knownEncoding = encoding.flatMap { name in xmlFindCharEncodingHandler(name) != nil ? name : nil }
        var input = bytes
        if CharacterReferences.isASCIICompatible(bytes, encoding: knownEncoding),
            let rewritten = CharacterReferences.rewritten(bytes)
        {
            input = rewritten
        }
        var scan = try PageStream.read(input, url: url, encoding: knownEncoding, isFragment: isFragment)
        scan.readScripts()
        return scan
    }

    /// True when the URL's path (query and fragment aside) ends in an image file extension.
    package static func hasImageExtension(_ url: String) -> Bool {
        if let answer = url.utf8.withContiguousStorageIfAvailable(asciiImageExtension), let answer { return answer }
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let dot = path.lastIndex(of: "."), !path[dot...].utf8.contains(UInt8(ascii: "/")) else { return false }
        return imageExtensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// The extensions as bytes, for `asciiImageExtension`.
    private static let imageExtensionBytes = imageExtensions.map { Array($0.utf8) }

    /// `hasImageExtension` for ASCII text, byte by byte (in ASCII every character is one byte,
    /// CR LF aside, which matters to none of the tests); nil for other text. It runs for every
    /// link and label of a page, where scanning by `Character` breaks graphemes for nothing.
    private static func asciiImageExtension(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        var end = bytes.count
        var dot: Int?
        for index in bytes.indices {
            let byte = bytes[index]
            guard byte < 0x80 else { return nil }
            guard end == bytes.count else { continue }
            switch byte {
            case UInt8(ascii: "?"), UInt8(ascii: "#"): end = index
            case UInt8(ascii: "."): dot = index
            case UInt8(ascii: "/"): dot = nil
            default: break
            }
        }
        guard let dot else { return false }
        let length = end - dot - 1
        return imageExtensionBytes.contains { name in
            name.count == length
                && name.indices.allSatisfy { offset in
                    let byte = bytes[dot + 1 + offset]
                    return (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == name[offset]
                }
        }
    }

    /// The `url(...)` values of `background` and `background-image` declarations in an inline
    /// style. A small scanner rather than a CSS parser: inline styles are one declaration list.
    /// The URLs of an attribute other than `style` whose value is CSS: a `url(...)` alone
    /// (`data-bg="url(photo.jpg)"`), or declarations (`data-style="background-image:
    /// url(photo.jpg)"`), whatever the property. A value with text before its first `url(`
    /// that is no declaration (a caption that mentions one) gives none, and neither does a
    /// `url(#id)` (an SVG reference within the page).
    static func cssURLs(inValue value: String) -> [String] {
        let text = value.trimmingSpaces
        guard let open = text.range(of: "url(", options: .caseInsensitive) else { return [] }
        guard open.lowerBound == text.startIndex || text[..<open.lowerBound].contains(":") else { return [] }
        var urls: [String] = []
        var rest = text[open.lowerBound...]
        while let open = rest.range(of: "url(", options: .caseInsensitive) {
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.firstIndex(of: ")") else { break }
            var url = afterOpen[..<close].trimmingSpaces
            if let first = url.first, first == "\"" || first == "'", url.count >= 2, url.last == first {
                url = String(url.dropFirst().dropLast())
            }
            if !url.isEmpty, !url.hasPrefix("#") { urls.append(url) }
            rest = afterOpen[afterOpen.index(after: close)...]
        }
        return urls
    }

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
