/// A URI reference split into its five RFC 3986 components (appendix B), before normalization.
///
/// Parsing is lenient the way browsers are with what pages contain: surrounding spaces and
/// control characters are trimmed, tabs and newlines inside are dropped, and for http(s) a
/// backslash before the query counts as a slash.
struct URIReference: Equatable {
    var scheme: String?
    var authority: String?
    var path: String
    var query: String?

    init(scheme: String?, authority: String?, path: String, query: String?) {
        self.scheme = scheme
        self.authority = authority
        self.path = path
        self.query = query
    }

    init(canonical url: CanonicalURL) {
        self.init(scheme: url.scheme, authority: url.authority, path: url.path, query: url.query)
    }

    /// Splits `text`. Empty input is the empty reference (the base itself, RFC 3986 5.2.2).
    ///
    /// Works on UTF-8 bytes: once non-ASCII is percent-encoded the text is ASCII, where bytes and
    /// Characters agree, and the Character-level version was a quarter of a feed's extraction.
    init?(parsing text: String) {
        let utf8 = text.utf8
        func isControlOrSpace(_ byte: UInt8) -> Bool { byte <= 0x20 || byte == 0x7F }
        guard let first = utf8.firstIndex(where: { !isControlOrSpace($0) }),
            let last = utf8.lastIndex(where: { !isControlOrSpace($0) })
        else {
            self.init(scheme: nil, authority: nil, path: "", query: nil)
            return
        }
        // Non-ASCII is percent-encoded before any delimiter is looked for (normalization encodes
        // it the same way anyway); tabs and newlines inside are dropped, as browsers do. The
        // fragment is never part of a key.
        let hex = Array("0123456789ABCDEF".utf8)
        var input: [UInt8] = []
        input.reserveCapacity(utf8.distance(from: first, to: last) + 1)
        for byte in utf8[first...last] {
            if byte == UInt8(ascii: "#") { break }
            if byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
            if byte < 0x80 {
                input.append(byte)
            } else {
                input += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        func string(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

        var rest = input[...]
        var scheme: String?
        if let colon = rest.firstIndex(of: UInt8(ascii: ":")), Self.isScheme(rest[..<colon]) {
            scheme = string(rest[..<colon])
            rest = rest[(colon + 1)...]
        }
        var query: String?
        var beforeQuery = rest
        if let question = rest.firstIndex(of: UInt8(ascii: "?")) {
            query = string(rest[(question + 1)...])
            beforeQuery = rest[..<question]
        }
        let special = scheme.map { ["http", "https"].contains($0.lowercased()) } ?? true
        // For web URLs a backslash before the query counts as a slash.
        var hier = special ? ArraySlice(beforeQuery.map { $0 == UInt8(ascii: "\\") ? UInt8(ascii: "/") : $0 }) : beforeQuery
        var authority: String?
        let slash = UInt8(ascii: "/")
        if hier.count >= 2 && hier[hier.startIndex] == slash && hier[hier.startIndex + 1] == slash {
            let afterSlashes = hier[(hier.startIndex + 2)...]
            let end = afterSlashes.firstIndex(of: slash) ?? afterSlashes.endIndex
            authority = string(afterSlashes[..<end])
            hier = afterSlashes[end...]
        } else if special, scheme != nil, hier.first != slash {
            // "http:host/path" is how browsers read a scheme with no slashes on a web URL.
            let end = hier.firstIndex(of: slash) ?? hier.endIndex
            authority = string(hier[..<end])
            hier = hier[end...]
        }
        self.init(scheme: scheme, authority: authority, path: string(hier), query: query)
    }

    private static func isScheme(_ bytes: ArraySlice<UInt8>) -> Bool {
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        guard let first = bytes.first, isLetter(first) else { return false }
        return bytes.allSatisfy {
            isLetter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "+")
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    /// RFC 3986 section 5.2.2: the target of this reference relative to `base`.
    func resolved(against base: URIReference) -> URIReference {
        if scheme != nil { return withDotSegmentsRemoved() }
        if let authority {
            return URIReference(scheme: base.scheme, authority: authority, path: Self.removeDotSegments(path), query: query)
        }
        if path.isEmpty {
            return URIReference(scheme: base.scheme, authority: base.authority, path: base.path, query: query ?? base.query)
        }
        let merged: String
        if path.hasPrefix("/") {
            merged = path
        } else if base.authority != nil && base.path.isEmpty {
            merged = "/" + path
        } else if let slash = base.path.lastIndex(of: "/") {
            merged = base.path[...slash] + path
        } else {
            merged = path
        }
        return URIReference(scheme: base.scheme, authority: base.authority, path: Self.removeDotSegments(merged), query: query)
    }

    func withDotSegmentsRemoved() -> URIReference {
        var copy = self
        copy.path = Self.removeDotSegments(path)
        return copy
    }

    /// True when a segment of `path` is `.` or `..` (most paths have none, only dots in names).
    static func hasDotSegment(_ path: String) -> Bool {
        var length = 0
        var onlyDots = true
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") {
                if onlyDots && (length == 1 || length == 2) { return true }
                length = 0
                onlyDots = true
            } else {
                length += 1
                if byte != UInt8(ascii: ".") { onlyDots = false }
            }
        }
        return onlyDots && (length == 1 || length == 2)
    }

    /// RFC 3986 section 5.2.4, applied to whole segments (so `a..b` and `..a` are left alone).
    static func removeDotSegments(_ path: String) -> String {
        guard hasDotSegment(path) else { return path }
        let absolute = path.hasPrefix("/")
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if absolute { segments.removeFirst() }
        var output: [String] = []
        var trailingSlash = false
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                trailingSlash = isLast
            case "..":
                if !output.isEmpty { output.removeLast() }
                trailingSlash = isLast
            default:
                output.append(segment)
                trailingSlash = false
            }
        }
        var result = (absolute ? "/" : "") + output.joined(separator: "/")
        if trailingSlash && !result.hasSuffix("/") { result += "/" }
        return result
    }
}
