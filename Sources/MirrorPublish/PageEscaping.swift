import Mustache

/// The page template's HTML escaping: swift-mustache's own, byte for byte, made cheaper.
///
/// swift-mustache 2.1.1 escapes every value a page shows by walking its characters (grapheme
/// clusters) and looking each one up in a `[Character: String]`: hashing every character of
/// every title, path and caption is work rendering a page pays again and again. Here a value is
/// scanned as UTF-8 first: with none of `<>&"'` it is returned as it is (swift-mustache appends
/// the same characters again); ASCII text is escaped byte by byte (in ASCII no cluster holds
/// two characters but CR LF, so each of the five is a cluster of its own); other text is walked
/// by character and each compared with the five, as swift-mustache does (a `<` that a combining
/// mark or a prepended character joins into one cluster is not escaped by either).
///
/// A template is given this escaping by the `CONTENT_TYPE` pragma, swift-mustache's own way of
/// naming a content type (`MustacheContentTypes`), on a line of its own before the template's
/// first: a standalone tag line renders as nothing, so the template renders as its own text
/// would, with every tag and line as written (`SiteTemplateTests`). A template that names a
/// content type of its own switches to it there, as before.
struct PageEscaping: MustacheContentType {
    /// The content type's name in the pragma.
    static let name = "CATALOG_MIRROR_HTML"

    /// Registered once, before the first template that names it is parsed.
    private static let registered: Void = MustacheContentTypes.register(PageEscaping(), named: name)

    /// The line put before a page template's text.
    static var pragma: String {
        _ = registered
        return "{{%CONTENT_TYPE:\(name)}}\n"
    }

    func escapeText(_ text: String) -> String {
        var special = false
        var ascii = true
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"), UInt8(ascii: "\""), UInt8(ascii: "'"): special = true
            case 0x80...: ascii = false
            default: continue
            }
        }
        guard special else { return text }
        if ascii {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.utf8.count + 32)
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): bytes.append(contentsOf: "&#39;".utf8)
                default: bytes.append(byte)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 32)
        for character in text {
            switch character {
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "&": escaped += "&amp;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
