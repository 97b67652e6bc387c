extension CanonicalURL {
    /// The key of `text` without the WHATWG parser, for the references that make up nearly all of
    /// a feed or a gallery page: an absolute `http(s)://host[:port]/path?query` already in canonical
    /// form, or a relative path (`img/a.jpg`, `/img/a.jpg`) that only needs the base's text in
    /// front. nil when `text` needs anything the full parser does (case folding, white space, a
    /// backslash, a dot segment, an escape to add or rewrite, credentials, IDNA, an IPv4 number
    /// form, a default port): the caller then parses it in full.
    ///
    /// Both give the same key for every input this accepts (`CanonicalFastPathTests` runs both
    /// over the URL tables and generated inputs). It exists because the full parser, with the
    /// arrays it builds for each part and the base it rebuilds as a record, was the largest cost
    /// of reading a feed after libxml2 itself.
    static func canonicalFastPath(_ text: String, relativeTo base: CanonicalURL?) -> CanonicalURL? {
        text.utf8.withContiguousStorageIfAvailable { bytes -> CanonicalURL? in
            guard let first = bytes.first else { return nil }
            if first == UInt8(ascii: "h"), let url = absolute(text, bytes) { return url }
            guard let base, base.authorityStart >= 0 else { return nil }
            return relative(text, bytes, base: base)
        } ?? nil
    }

    /// `http://` or `https://`, a lower-case ASCII host, an optional port, a canonical path and query.
    private static func absolute(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> CanonicalURL? {
        let count = bytes.count
        var index: Int
        let secure: Bool
        if count > 7, bytes[0] == 0x68, bytes[1] == 0x74, bytes[2] == 0x74, bytes[3] == 0x70 {
            if bytes[4] == UInt8(ascii: ":") {
                secure = false
                index = 5
            } else if bytes[4] == UInt8(ascii: "s"), bytes[5] == UInt8(ascii: ":") {
                secure = true
                index = 6
            } else {
                return nil
            }
        } else {
            return nil
        }
        let schemeEnd = index - 1
        guard index + 2 < count, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "/") else { return nil }
        index += 2
        let hostStart = index
        while index < count, isHostByte(bytes[index]) { index += 1 }
        let hostEnd = index
        guard hostEnd > hostStart, isCanonicalHost(bytes, hostStart, hostEnd) else { return nil }
        var port = -1
        if index < count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let digits = index
            var value = 0
            while index < count, index - digits < 5, isDigit(bytes[index]) {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            // No leading zero, at most 65535, and not the scheme's default (all rewritten in full).
            guard index > digits, bytes[digits] != UInt8(ascii: "0"), value <= 65535, value != (secure ? 443 : 80)
            else { return nil }
            port = value
        }
        let pathStart = index
        let hasPath = index < count && bytes[index] == UInt8(ascii: "/")
        if hasPath {
            guard let end = pathEnd(bytes, from: index, allowingColon: true) else { return nil }
            index = end
        } else if index < count, bytes[index] != UInt8(ascii: "?"), bytes[index] != UInt8(ascii: "#") {
            return nil
        }
        var queryStart = -1
        if index < count, bytes[index] == UInt8(ascii: "?") {
            queryStart = index
            guard let end = queryEnd(bytes, from: index + 1) else { return nil }
            index = end
        }
        // What is left is the fragment (or nothing): never part of a key, whatever it holds.
        let end = index
        let string: String
        if hasPath {
            string = end == count ? text : String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
        } else {
            // "http://host" and "http://host?q" have the path "/".
            string = String(unsafeUninitializedCapacity: end + 1) { out in
                _ = out.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: bytes[..<pathStart]))
                out[pathStart] = UInt8(ascii: "/")
                _ = out[(pathStart + 1)...].initialize(fromContentsOf: UnsafeBufferPointer(rebasing: bytes[pathStart..<end]))
                return end + 1
            }
            if queryStart >= 0 { queryStart += 1 }
        }
        guard end < Int(Int32.max) else { return nil }
        return CanonicalURL(
            canonical: string, schemeEnd: schemeEnd, authorityStart: hostStart, hostStart: hostStart, hostEnd: hostEnd,
            pathStart: pathStart, queryStart: queryStart, port: port)
    }

    /// A path (`a/b.jpg`, or `/a/b.jpg` but not `//host`) with an optional query, resolved by
    /// putting the base's text in front.
    private static func relative(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>, base: CanonicalURL) -> CanonicalURL? {
        let count = bytes.count
        let isAbsolutePath = bytes[0] == UInt8(ascii: "/")
        if isAbsolutePath {
            guard count < 2 || bytes[1] != UInt8(ascii: "/") else { return nil }
        }
        // A relative path starts with a segment byte; a ":" might make its start a scheme.
        guard let end = pathEnd(bytes, from: 0, allowingColon: isAbsolutePath), end > 0 else { return nil }
        var queryStart = -1
        var index = end
        if index < count, bytes[index] == UInt8(ascii: "?") {
            queryStart = index
            guard let queryEnd = queryEnd(bytes, from: index + 1) else { return nil }
            index = queryEnd
        }
        let baseQuery = base.queryStart < 0 ? base.string.utf8.count : Int(base.queryStart)
        let pathStart = Int(base.pathStart)
        let resolved = base.string.utf8.withContiguousStorageIfAvailable { baseBytes -> String in
            // Against a path, the base's path up to and including its last "/" (a canonical path
            // starts with one); against an absolute path, only the base's scheme and authority.
            var prefixEnd = pathStart
            if !isAbsolutePath {
                var last = baseQuery - 1
                while last > pathStart, baseBytes[last] != UInt8(ascii: "/") { last -= 1 }
                prefixEnd = last + 1
            }
            if queryStart >= 0 { queryStart += prefixEnd }
            return String(unsafeUninitializedCapacity: prefixEnd + index) { out in
                _ = out.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: baseBytes[..<prefixEnd]))
                _ = out[prefixEnd...].initialize(fromContentsOf: UnsafeBufferPointer(rebasing: bytes[..<index]))
                return prefixEnd + index
            }
        }
        guard let resolved, resolved.utf8.count < Int(Int32.max) else { return nil }
        return CanonicalURL(
            canonical: resolved, schemeEnd: Int(base.schemeEnd), authorityStart: Int(base.authorityStart),
            hostStart: Int(base.hostStart), hostEnd: Int(base.hostEnd), pathStart: pathStart, queryStart: queryStart,
            port: Int(base.portValue))
    }

    /// The end of a canonical path from `start` (at "?", "#" or the end), or nil when a byte needs
    /// encoding, an escape is not canonical, or a segment is `.` or `..`.
    private static func pathEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, allowingColon: Bool) -> Int? {
        var index = start
        var segmentStart = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "/") {
                guard !isDotSegment(bytes, segmentStart, index) else { return nil }
                segmentStart = index + 1
            } else if byte == UInt8(ascii: "%") {
                guard isCanonicalEscape(bytes, index) else { return nil }
                index += 2
            } else if byte == UInt8(ascii: ":") {
                guard allowingColon else { return nil }
            } else if !isPathByte(byte) {
                return nil
            }
            index += 1
        }
        return isDotSegment(bytes, segmentStart, index) ? nil : index
    }

    /// The end of a canonical query from `start` (at "#" or the end), or nil.
    private static func queryEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "%") {
                guard isCanonicalEscape(bytes, index) else { return nil }
                index += 2
            } else if !(isPathByte(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "?"))
                || byte == UInt8(ascii: "'")
            {
                // The special-query set encodes "'" (as %27).
                return nil
            }
            index += 1
        }
        return index
    }

    private static func isDotSegment(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        switch end - start {
        case 1: bytes[start] == UInt8(ascii: ".")
        case 2: bytes[start] == UInt8(ascii: ".") && bytes[start + 1] == UInt8(ascii: ".")
        default: false
        }
    }

    /// `%` and two upper-case hex digits of a byte that stays escaped (not an unreserved one).
    private static func isCanonicalEscape(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> Bool {
        guard index + 2 < bytes.count, let high = upperHex(bytes[index + 1]), let low = upperHex(bytes[index + 2]) else {
            return false
        }
        return !PercentEncoding.isUnreserved(high << 4 | low)
    }

    private static func upperHex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// What a path holds raw in both the URL Standard's path set and RFC 3986's normal form:
    /// unreserved characters, sub-delimiters and `@` (`:` and `/` are the callers').
    private static func isPathByte(_ byte: UInt8) -> Bool {
        PercentEncoding.isUnreserved(byte) || PercentEncoding.isSubDelimiter(byte) || byte == UInt8(ascii: "@")
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || isDigit(byte) || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: "-")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// A host the full parser keeps as written: no `xn--` label (IDNA checks those), not ending in
    /// ".", and a last label that does not start with a digit (so it is no IPv4 number in any
    /// form), unless the host is a dotted-decimal IPv4 address as the Standard serializes one.
    private static func isCanonicalHost(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        guard bytes[end - 1] != UInt8(ascii: ".") else { return false }
        var labelStart = start
        var lastLabelStart = start
        var labels = 0
        var allOctets = true
        for index in start...end where index == end || bytes[index] == UInt8(ascii: ".") {
            if index - labelStart >= 4, bytes[labelStart] == UInt8(ascii: "x"), bytes[labelStart + 1] == UInt8(ascii: "n"),
                bytes[labelStart + 2] == UInt8(ascii: "-"), bytes[labelStart + 3] == UInt8(ascii: "-")
            {
                return false
            }
            allOctets = allOctets && isDecimalOctet(bytes, labelStart, index)
            labels += 1
            lastLabelStart = labelStart
            labelStart = index + 1
        }
        return !isDigit(bytes[lastLabelStart]) || (labels == 4 && allOctets)
    }

    /// `0` to `255` in decimal without a leading zero.
    private static func isDecimalOctet(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Bool {
        guard end > start, end - start <= 3, bytes[start] != UInt8(ascii: "0") || end - start == 1 else { return false }
        var value = 0
        for index in start..<end {
            guard isDigit(bytes[index]) else { return false }
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
        }
        return value <= 255
    }
}
