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
        let authority: String? =
            url.string.dropFirst(url.scheme.count + 1).hasPrefix("//")
            ? String(url.string.dropFirst(url.scheme.count + 3).prefix { $0 != "/" && $0 != "?" })
            : nil
        self.init(scheme: url.scheme, authority: authority, path: url.path, query: url.query)
    }

    /// Splits `text`. Empty input is the empty reference (the base itself, RFC 3986 5.2.2).
    init?(parsing text: String) {
        var cleaned = Substring(text).drop { $0.isControlOrSpace }
        while let last = cleaned.last, last.isControlOrSpace { cleaned = cleaned.dropLast() }
        // Non-ASCII is percent-encoded before any delimiter is looked for: a combining mark after
        // ":" or "/" would otherwise fuse with it into one Character and hide it from the
        // searches below (found by fuzzing). Normalization encodes it the same way anyway, and
        // ASCII never forms multi-scalar Characters once CR and LF are gone.
        var input = ""
        for scalar in cleaned.unicodeScalars where scalar != "\t" && scalar != "\n" && scalar != "\r" {
            if scalar.isASCII {
                input.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 { input += "%" + String(byte, radix: 16, uppercase: true) }
            }
        }

        // Fragment: never part of a key.
        if let hash = input.firstIndex(of: "#") { input = String(input[..<hash]) }

        var rest = Substring(input)
        if let colon = rest.firstIndex(of: ":"), Self.isScheme(rest[..<colon]) {
            scheme = String(rest[..<colon])
            rest = rest[rest.index(after: colon)...]
        }
        var beforeQuery = rest
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            beforeQuery = rest[..<question]
        }
        let special = scheme.map { ["http", "https"].contains($0.lowercased()) } ?? true
        var hier = special ? String(beforeQuery.map { $0 == "\\" ? "/" : $0 }) : String(beforeQuery)
        if hier.hasPrefix("//") {
            let afterSlashes = hier.dropFirst(2)
            let end = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
            authority = String(afterSlashes[..<end])
            hier = String(afterSlashes[end...])
        } else if special, scheme != nil, !hier.hasPrefix("/") {
            // "http:host/path" is how browsers read a scheme with no slashes on a web URL.
            let end = hier.firstIndex(of: "/") ?? hier.endIndex
            authority = String(hier[..<end])
            hier = String(hier[end...])
        }
        path = hier
    }

    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
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

extension Character {
    fileprivate var isControlOrSpace: Bool {
        guard let scalar = unicodeScalars.first, unicodeScalars.count == 1 else { return false }
        return scalar.value <= 0x20 || scalar.value == 0x7F
    }
}
