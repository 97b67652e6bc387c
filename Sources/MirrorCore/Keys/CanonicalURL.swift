#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An absolute http(s) URL in the canonical form of image keys (docs/reference.md, "Keys"): the reference is
/// parsed as browsers parse it (the URL Standard's basic URL parser, `WebURLParser`), then
/// normalized as RFC 3986 sections 6.2.2 and 6.2.3 describe.
///
/// Scheme and host are lower-cased, a default port is dropped, the fragment is dropped, dot
/// segments are resolved, percent-escapes use upper-case hex, unreserved characters are never
/// escaped, and anything outside printable ASCII is percent-encoded as UTF-8, so `string` is
/// always plain ASCII and two spellings of one resource compare equal.
///
/// The normalization is written by hand because Foundation's `URL` keeps escapes as written
/// (`%7e` and `~` differ) and does not decode unreserved escapes; no maintained Swift package
/// implements RFC 3986 normalization.
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
    /// or -1 when there is none). Internal for the fast path (`CanonicalURL+FastPath.swift`).
    package let schemeEnd: Int32
    package let authorityStart: Int32
    package let hostStart: Int32
    package let hostEnd: Int32
    package let pathStart: Int32
    package let queryStart: Int32
    /// The explicit port, or -1.
    package let portValue: Int32

    /// Lower-cased scheme without the colon, e.g. `http`.
    package var scheme: String { part(0, schemeEnd) }
    /// Lower-cased host (empty for URLs without an authority); IPv6 literals keep their brackets.
    public var host: String { authorityStart < 0 ? "" : part(hostStart, hostEnd) }
    /// The explicit port, or nil when absent or the scheme's default.
    package var port: Int? { portValue < 0 ? nil : Int(portValue) }
    /// The normalized, still percent-encoded path (never empty when there is an authority).
    public var path: String { part(pathStart, queryStart < 0 ? Int32(string.utf8.count) : queryStart) }
    /// The normalized query without the `?`, or nil when there is none.
    package var query: String? { queryStart < 0 ? nil : part(queryStart + 1, Int32(string.utf8.count)) }
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
        // The manifest is sorted "by key in byte order". One `memcmp` of the two UTF-8 buffers: comparing
        // through the views' iterators was most of the cost of sorting a catalog. Read in place when
        // the strings are native (always, for keys this type made): `withUTF8` needs a copy of each
        // string to mutate, two retains and releases a comparison, which a sort makes n log n of.
        if let answer = lhs.string.utf8.withContiguousStorageIfAvailable({ a in
            rhs.string.utf8.withContiguousStorageIfAvailable { b in bytesPrecede(a, b) }
        }), let answer {
            return answer
        }
        var (left, right) = (lhs.string, rhs.string)
        return left.withUTF8 { a in right.withUTF8 { b in bytesPrecede(a, b) } }
    }

    private static func bytesPrecede(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let common = min(a.count, b.count)
        guard common > 0, let left = a.baseAddress, let right = b.baseAddress else { return a.count < b.count }
        let order = memcmp(left, right, common)
        return order != 0 ? order < 0 : a.count < b.count
    }

    public static func == (lhs: CanonicalURL, rhs: CanonicalURL) -> Bool { lhs.string == rhs.string }
    public func hash(into hasher: inout Hasher) { hasher.combine(string) }

    /// Parses `text` as a browser does and normalizes it, resolving it against `base` when it is
    /// relative.
    ///
    /// Returns nil when the result would not be an absolute http(s) URL: another scheme (`data:`,
    /// `mailto:`...), a relative reference without a base, or a reference the URL Standard
    /// rejects (bad port, invalid host, no host). Default: no base.
    public init?(_ text: String, relativeTo base: CanonicalURL? = nil) {
        if let key = Self.canonicalFastPath(text, relativeTo: base) {
            self = key
            return
        }
        self.init(parsing: text, relativeTo: base)
    }

    /// The same key through the full parser, always (the fast path's tests compare the two).
    init?(parsing text: String, relativeTo base: CanonicalURL?) {
        guard let record = WebURLParser.parse(text, base: base?.record) else { return nil }
        let path = PercentEncoding.normalize(String(decoding: record.path, as: UTF8.self), allowed: .path)
        let query = record.query.map { PercentEncoding.normalize(String(decoding: $0, as: UTF8.self), allowed: .query) }
        if record.authorityFromBase, let base, let authority = base.authority {
            // A reference without an authority keeps the base's, which is canonical already.
            self.init(scheme: record.scheme, host: base.host, port: base.port, authority: authority, path: path, query: query)
            return
        }
        let host = PercentEncoding.normalize(record.host, allowed: .host)
        var authority = ""
        if !record.username.isEmpty || !record.password.isEmpty {
            authority = PercentEncoding.normalize(String(decoding: record.username, as: UTF8.self), allowed: .userinfo)
            if !record.password.isEmpty {
                authority += ":" + PercentEncoding.normalize(String(decoding: record.password, as: UTF8.self), allowed: .userinfo)
            }
            authority += "@"
        }
        authority += host
        if let port = record.port { authority += ":\(port)" }
        self.init(scheme: record.scheme, host: host, port: record.port, authority: authority, path: path, query: query)
    }

    /// This URL as the parser's base record.
    private var record: WebURLParser.Record {
        var record = WebURLParser.Record()
        record.scheme = scheme
        if authorityStart >= 0 && hostStart > authorityStart {
            // The credentials, without the "@" before the host.
            let userinfo = Array(part(authorityStart, hostStart - 1).utf8)
            if let colon = userinfo.firstIndex(of: UInt8(ascii: ":")) {
                record.username = Array(userinfo[..<colon])
                record.password = Array(userinfo[(colon + 1)...])
            } else {
                record.username = userinfo
            }
        }
        record.host = host
        record.port = port
        record.path = Array(path.utf8)
        record.query = query.map { Array($0.utf8) }
        return record
    }

    /// A key from text known to be canonical and the offsets of its parts (see the stored
    /// properties; -1 for an absent query or port).
    package init(
        canonical string: String, schemeEnd: Int, authorityStart: Int, hostStart: Int, hostEnd: Int, pathStart: Int,
        queryStart: Int, port: Int
    ) {
        self.string = string
        self.schemeEnd = Int32(truncatingIfNeeded: schemeEnd)
        self.authorityStart = Int32(truncatingIfNeeded: authorityStart)
        self.hostStart = Int32(truncatingIfNeeded: hostStart)
        self.hostEnd = Int32(truncatingIfNeeded: hostEnd)
        self.pathStart = Int32(truncatingIfNeeded: pathStart)
        self.queryStart = Int32(truncatingIfNeeded: queryStart)
        self.portValue = Int32(truncatingIfNeeded: port)
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

    /// `scheme://host[:port]`, the origin robots.txt and scope checks work on.
    package var origin: String {
        // Without user info the origin is the text before the path, as stored.
        if authorityStart >= 0 && hostStart == authorityStart { return part(0, pathStart) }
        var text = scheme + "://" + host
        if let port { text += ":\(port)" }
        return text
    }

    /// The path with percent-escapes decoded (invalid UTF-8 replaced), as globs see it.
    package var decodedPath: String { PercentEncoding.decode(path) }

    /// The path plus query, as sent on the request line and matched by robots.txt rules.
    package var pathAndQuery: String {
        query.map { path + "?" + $0 } ?? path
    }

    /// True for the schemes the mirror can fetch (http and https): every parsed key, since other
    /// schemes give none.
    public var isWeb: Bool { scheme == "http" || scheme == "https" }
}
