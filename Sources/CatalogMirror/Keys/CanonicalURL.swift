/// An absolute URL in the canonical form SPEC.md fixes for image keys: RFC 3986 reference
/// resolution (section 5.2) followed by the normalizations of sections 6.2.2 and 6.2.3.
///
/// Scheme and host are lower-cased, a default port is dropped, the fragment is dropped, dot
/// segments are resolved, percent-escapes use upper-case hex, unreserved characters are never
/// escaped, and anything outside printable ASCII is percent-encoded as UTF-8, so `string` is
/// always plain ASCII and two spellings of one resource compare equal.
///
/// Written by hand because Foundation's `URL` keeps escapes as written (`%7e` and `~` differ),
/// does not decode unreserved escapes, and resolves some references differently across
/// platforms; no maintained Swift package implements RFC 3986 normalization.
///
/// Stored as the canonical text plus the offsets of its parts (40 bytes in all): a run holds a
/// key several times per image (index, catalog, loader, duplicate filter), and six separate
/// strings made each copy 104 bytes. The parts are substrings of `string`, made on demand
/// (short ones, like the scheme and most hosts, need no allocation).
public struct CanonicalURL: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The canonical text, e.g. `http://host:8080/gallery/image?3`.
    public let string: String
    /// UTF-8 offsets into `string`: the scheme ends at `schemeEnd` (the ":"); the authority runs
    /// from `authorityStart` (after "//", or -1 when there is none) to `pathStart`, and the host
    /// from `hostStart` to `hostEnd` inside it; the query starts after `queryStart` (the "?",
    /// or -1 when there is none).
    private let schemeEnd: Int32
    private let authorityStart: Int32
    private let hostStart: Int32
    private let hostEnd: Int32
    private let pathStart: Int32
    private let queryStart: Int32
    /// The explicit port, or -1.
    private let portValue: Int32

    /// Lower-cased scheme without the colon, e.g. `http`.
    public var scheme: String { part(0, schemeEnd) }
    /// Lower-cased host (empty for URLs without an authority); IPv6 literals keep their brackets.
    public var host: String { authorityStart < 0 ? "" : part(hostStart, hostEnd) }
    /// The explicit port, or nil when absent or the scheme's default.
    public var port: Int? { portValue < 0 ? nil : Int(portValue) }
    /// The normalized, still percent-encoded path (never empty when there is an authority).
    public var path: String { part(pathStart, queryStart < 0 ? Int32(string.utf8.count) : queryStart) }
    /// The normalized query without the `?`, or nil when there is none.
    public var query: String? { queryStart < 0 ? nil : part(queryStart + 1, Int32(string.utf8.count)) }
    /// The normalized authority (`user@host:port`), or nil when there is none; kept so that
    /// resolving against this URL does not parse it again.
    var authority: String? { authorityStart < 0 ? nil : part(authorityStart, pathStart) }

    /// `string`'s UTF-8 offsets `start..<end` (always whole scalars: the text is ASCII).
    private func part(_ start: Int32, _ end: Int32) -> String {
        let utf8 = string.utf8
        return String(string[utf8.index(utf8.startIndex, offsetBy: Int(start))..<utf8.index(utf8.startIndex, offsetBy: Int(end))])
    }

    public var description: String { string }

    public static func < (lhs: CanonicalURL, rhs: CanonicalURL) -> Bool {
        // SPEC: sorted "by key in byte order"; the keys are ASCII, so UTF-8 order is byte order.
        lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8)
    }

    public static func == (lhs: CanonicalURL, rhs: CanonicalURL) -> Bool { lhs.string == rhs.string }
    public func hash(into hasher: inout Hasher) { hasher.combine(string) }

    /// Parses and normalizes `text`, resolving it against `base` when it is relative.
    ///
    /// Returns nil when the result would not be an absolute URL (a relative reference without a
    /// base), or when the authority is malformed (bad port, empty host for http/https).
    public init?(_ text: String, relativeTo base: CanonicalURL? = nil) {
        guard let reference = URIReference(parsing: text) else { return nil }
        let target: URIReference
        // A reference without an authority keeps the base's, which is canonical already.
        var known: (host: String, port: Int?, text: String)?
        if reference.scheme != nil {
            target = reference.withDotSegmentsRemoved()
        } else if let base {
            target = reference.resolved(against: URIReference(canonical: base))
            if reference.authority == nil, let authority = base.authority { known = (base.host, base.port, authority) }
        } else {
            return nil
        }
        guard let value = CanonicalURL(normalizing: target, knownAuthority: known) else { return nil }
        self = value
    }

    private init?(scheme: String, host: String, port: Int?, authority: String?, path: String, query: String?) {
        var text = scheme + ":"
        schemeEnd = Int32(clamping: scheme.utf8.count)
        if let authority {
            text += "//"
            authorityStart = Int32(clamping: text.utf8.count)
            // The host is the authority's last part before the port, after any user info.
            let portSuffix = port.map { ":\($0)" } ?? ""
            hostEnd = authorityStart + Int32(clamping: authority.utf8.count - portSuffix.utf8.count)
            hostStart = hostEnd - Int32(clamping: host.utf8.count)
            text += authority
        } else {
            authorityStart = -1
            hostStart = -1
            hostEnd = -1
        }
        pathStart = Int32(clamping: text.utf8.count)
        text += path
        if let query {
            queryStart = Int32(clamping: text.utf8.count)
            text += "?" + query
        } else {
            queryStart = -1
        }
        // Offsets are 32-bit; a key longer than that is not a key anyone can request.
        guard text.utf8.count < Int(Int32.max) else { return nil }
        portValue = Int32(port ?? -1)
        self.string = text
    }

    private init?(normalizing reference: URIReference, knownAuthority: (host: String, port: Int?, text: String)? = nil) {
        guard let rawScheme = reference.scheme else { return nil }
        let scheme = rawScheme.lowercased()
        let isWeb = scheme == "http" || scheme == "https"
        var host = ""
        var port: Int?
        var authorityText: String?
        if let knownAuthority, reference.authority == knownAuthority.text {
            host = knownAuthority.host
            port = knownAuthority.port
            authorityText = knownAuthority.text
        } else if let authority = reference.authority {
            guard let parts = Authority(parsing: authority, scheme: scheme) else { return nil }
            host = parts.host
            port = parts.port
            authorityText = parts.canonicalText
        } else if isWeb {
            return nil
        }
        var path = PercentEncoding.normalize(reference.path, allowed: .path)
        // Decoding `%2E` can reveal dot segments; RFC 3986 6.2.2.3 removes them after decoding.
        path = URIReference.removeDotSegments(path)
        if authorityText != nil && path.isEmpty { path = "/" }
        // Without an authority, a path starting with "//" would read back as one (RFC 3986 5.3).
        if authorityText == nil && path.hasPrefix("//") { path = "/." + path }
        let query = reference.query.map { PercentEncoding.normalize($0, allowed: .query) }
        self.init(scheme: scheme, host: host, port: port, authority: authorityText, path: path, query: query)
    }

    /// `scheme://host[:port]`, the origin robots.txt and scope checks work on.
    public var origin: String {
        // Without user info the origin is the text before the path, as stored.
        if authorityStart >= 0 && hostStart == authorityStart { return part(0, pathStart) }
        var text = scheme + "://" + host
        if let port { text += ":\(port)" }
        return text
    }

    /// The path with percent-escapes decoded (invalid UTF-8 replaced), as globs see it.
    public var decodedPath: String { PercentEncoding.decode(path) }

    /// The path plus query, as sent on the request line and matched by robots.txt rules.
    public var pathAndQuery: String {
        query.map { path + "?" + $0 } ?? path
    }

    /// True for the schemes the mirror can fetch (http and https).
    public var isWeb: Bool { scheme == "http" || scheme == "https" }
}

/// The authority component split and normalized: lower-case host, default port dropped.
private struct Authority {
    let host: String
    let port: Int?
    let canonicalText: String

    init?(parsing raw: String, scheme: String) {
        // Bytes, not Characters: the authority is ASCII by now (URIReference percent-encodes
        // everything else), and searching it backwards by Character was 14 % of extraction.
        let bytes = Array(raw.utf8)[...]
        func string(_ slice: ArraySlice<UInt8>) -> String { String(decoding: slice, as: UTF8.self) }
        var rest = bytes
        var userinfo: String?
        if let at = rest.lastIndex(of: UInt8(ascii: "@")) {
            userinfo = PercentEncoding.normalize(string(rest[..<at]), allowed: .userinfo)
            rest = rest[(at + 1)...]
        }
        var hostPart = rest
        var portText: ArraySlice<UInt8>?
        if rest.first == UInt8(ascii: "[") {
            guard let close = rest.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            hostPart = rest[...close]
            let after = rest[(close + 1)...]
            if after.first == UInt8(ascii: ":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
        } else if let colon = rest.lastIndex(of: UInt8(ascii: ":")) {
            hostPart = rest[..<colon]
            portText = rest[(colon + 1)...]
        }
        var port: Int?
        if let portText, !portText.isEmpty {
            guard portText.count <= 5, portText.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let value = Int(string(portText)), value <= 65535
            else { return nil }
            port = value
        }
        if port == Self.defaultPort(scheme) { port = nil }
        // A reg-name cannot hold ":", "[" or "]" (RFC 3986 3.2.2); only an IP literal is bracketed.
        let isLiteral = hostPart.count >= 2 && hostPart.first == UInt8(ascii: "[") && hostPart.last == UInt8(ascii: "]")
        let inner = isLiteral ? hostPart.dropFirst().dropLast() : hostPart
        guard !inner.contains(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }),
            isLiteral || !inner.contains(UInt8(ascii: ":"))
        else { return nil }
        let host = Self.lowercasingOutsideEscapes(PercentEncoding.normalize(string(hostPart), allowed: .host))
        if (scheme == "http" || scheme == "https") && host.isEmpty { return nil }
        self.host = host
        self.port = port
        var text = userinfo.map { $0 + "@" } ?? ""
        text += host
        if let port { text += ":\(port)" }
        self.canonicalText = text
    }

    /// Lower-cases ASCII letters except the hex digits of percent-escapes, which stay upper-case.
    static func lowercasingOutsideEscapes(_ text: String) -> String {
        var out: [UInt8] = []
        var escapeDigits = 0
        for byte in text.utf8 {
            if escapeDigits > 0 {
                escapeDigits -= 1
                out.append(byte)
            } else if byte == UInt8(ascii: "%") {
                escapeDigits = 2
                out.append(byte)
            } else if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
                out.append(byte + 32)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http", "ws": 80
        case "https", "wss": 443
        case "ftp": 21
        default: nil
        }
    }
}
