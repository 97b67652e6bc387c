import MirrorCore

/// A page, feed, listing or robots.txt, read whole (bounded) into memory.
package struct FetchedDocument: Sendable, Equatable {
    /// The URL the body finally came from (after redirects); relative URLs resolve against it.
    package var url: CanonicalURL
    /// The media type of `Content-Type`, lower-cased, without parameters.
    package var mediaType: String?
    /// The `charset` parameter of `Content-Type`, if any.
    package var charset: String?
    /// The body, decoded from its transfer coding.
    package var bytes: [UInt8]

    /// A document from `url` with this body and `Content-Type`'s parts.
    package init(url: CanonicalURL, mediaType: String?, charset: String?, bytes: [UInt8]) {
        self.url = url
        self.mediaType = mediaType
        self.charset = charset
        self.bytes = bytes
    }

    /// The media type (lower-cased, without parameters) and the `charset` parameter of a
    /// `Content-Type` header.
    package static func parseContentType(_ header: String?) -> (mediaType: String?, charset: String?) {
        let parts = (header ?? "").split(separator: ";").map { $0.trimmingSpaces }
        let mediaType = parts.first.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        let charset = parts.dropFirst().first { $0.lowercased().hasPrefix("charset=") }
            .map { String($0.dropFirst("charset=".count)).trimmingCharacters(in: ["\"", "'", " "]) }
        return (mediaType, charset)
    }

    /// Media types read as HTML pages.
    package static let htmlTypes: Set<String> = ["text/html", "application/xhtml+xml"]

    /// What the body is, by its media type and, when that is vague, by its first bytes.
    package enum Kind: Equatable { case html, xml, json, other }

    package var kind: Kind {
        var start = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if start.starts(with: [0xEF, 0xBB, 0xBF]) {
            start = start.dropFirst(3).drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        }
        let prefix = String(decoding: start.prefix(256), as: UTF8.self).lowercased()
        switch mediaType {
        case "text/html", "application/xhtml+xml": return .html
        case .some(let type) where type.hasSuffix("json"): return .json
        default: break
        }
        if prefix.hasPrefix("{") || prefix.hasPrefix("[") { return .json }
        if prefix.hasPrefix("<!doctype html") || prefix.hasPrefix("<html") { return .html }
        if prefix.hasPrefix("<?xml") || prefix.hasPrefix("<rss") || prefix.hasPrefix("<feed") || prefix.hasPrefix("<rdf") {
            return .xml
        }
        if let type = mediaType, type.hasSuffix("xml") { return .xml }
        return prefix.hasPrefix("<") ? .html : .other
    }
}
