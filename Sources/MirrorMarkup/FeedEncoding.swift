import CLibXML
import Foundation

/// Chooses the character encoding a feed is read in, before libxml2 sees its first byte.
///
/// The order is the one RFC 7303 and browsers use: a byte order mark wins; then the `charset`
/// parameter of the HTTP `Content-Type`; then the XML declaration. Labels are read as the
/// WHATWG Encoding Standard reads them, so `ISO-8859-1` and `US-ASCII` mean windows-1252 (feeds
/// labelled Latin-1 routinely carry windows-1252 quotes and dashes, and feed readers show them).
/// libxml2 detects BOMs, UTF-16 and the declaration itself; this only decides when to override it.
enum FeedEncoding {
    /// Bytes looked at for a BOM and the XML declaration.
    static let sniffLength = 512

    /// Labels the WHATWG Encoding Standard maps to windows-1252.
    static let windows1252Labels: Set<String> = [
        "ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1",
        "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252",
    ]

    /// What to do about the encoding of a document starting with `prefix`.
    enum Choice: Equatable {
        /// Let libxml2 detect it (BOM, UTF-16 patterns, the declaration, UTF-8 by default).
        case detect
        /// Read it in this encoding, whatever the declaration says.
        case force(String)
    }

    /// The encoding to force, if any, for a document starting with `prefix` that came with
    /// `charset` (the HTTP header's parameter, nil when absent). `warn` hears about a charset
    /// libxml2 does not know (the document is then read as it declares itself).
    static func choose(prefix: some Collection<UInt8>, charset: String?, warn: (String) -> Void) -> Choice {
        let bytes = Array(prefix.prefix(sniffLength))
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            return .detect
        }
        let utf16 = bytes.starts(with: [0x3C, 0x00, 0x3F, 0x00]) || bytes.starts(with: [0x00, 0x3C, 0x00, 0x3F])
        if let charset = charset?.trimmingSpaces.lowercased(), !charset.isEmpty {
            let name = canonical(charset)
            if utf16 && !name.hasPrefix("utf-16") { return .detect }
            if isKnown(name) { return .force(name) }
            warn("names an unknown charset \"\(charset)\"")
        }
        if !utf16, let declared = declaredEncoding(bytes), windows1252Labels.contains(declared), isKnown("windows-1252") {
            return .force("windows-1252")
        }
        return .detect
    }

    /// The encoding name libxml2 is given for a label.
    static func canonical(_ label: String) -> String {
        windows1252Labels.contains(label) ? "windows-1252" : label
    }

    /// True when libxml2 (with iconv or ICU) can decode `name`.
    static func isKnown(_ name: String) -> Bool {
        LibXML.ensureInitialized()
        guard let handler = xmlFindCharEncodingHandler(name) else { return false }
        xmlCharEncCloseFunc(handler)
        return true
    }

    /// The lower-cased `encoding` pseudo-attribute of an XML declaration at the very start of
    /// an ASCII-compatible document.
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        guard bytes.starts(with: Array("<?xml".utf8)), let end = bytes.firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let declaration = String(decoding: bytes[..<end], as: UTF8.self)
        guard let key = declaration.range(of: "encoding") else { return nil }
        var rest = declaration[key.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        let value = rest.dropFirst().prefix { $0 != quote }
        return value.isEmpty ? nil : value.lowercased()
    }
}
