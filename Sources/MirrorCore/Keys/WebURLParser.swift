/// The URL Standard's basic URL parser (section 4.4), for what a mirror can fetch: absolute
/// http(s) URLs and references relative to an http(s) base. Every other scheme (`data:`,
/// `javascript:`, `mailto:`, `ftp:`...) gives nil: no key.
///
/// It reads a reference as a browser does: leading and trailing C0 controls and spaces stripped,
/// tabs and newlines removed anywhere, `\` read as `/`, `http:a.png` relative to an http base,
/// any number of slashes after `http:`, credentials before `@`, the host through `WebHost` (IPv4
/// number forms, IPv6, IDNA), default ports dropped, `.`/`..` and `%2e` segments resolved, and
/// the path, query and credentials percent-encoded with the Standard's encode sets. The fragment
/// is never part of a key and is dropped.
///
/// Written by hand because no Swift package implements the WHATWG parser, and Foundation's `URL`
/// follows RFC 3986 (it refuses `\`, spaces and IPv4 number forms, and resolves `http:a.png`
/// differently). It works on UTF-8 bytes: every delimiter is ASCII, and the encode sets encode
/// every non-ASCII code point, so byte-wise encoding equals the Standard's per-code-point one.
struct WebURLParser {
    /// The parsed URL's parts, serialized except for the host-less steps of relative resolution.
    struct Record {
        /// `http` or `https`.
        var scheme = ""
        var username: [UInt8] = []
        var password: [UInt8] = []
        /// The serialized host (see `WebHost`).
        var host = ""
        /// The port, nil when absent or the scheme's default.
        var port: Int?
        /// The serialized path: `/` followed by the segments joined by `/`.
        var path: [UInt8] = []
        var query: [UInt8]?
        /// True when credentials, host and port were copied from the base, unchanged.
        var authorityFromBase = false
    }

    private enum State {
        case schemeStart, scheme, noScheme, specialRelativeOrAuthority, relative, relativeSlash
        case specialAuthoritySlashes, specialAuthorityIgnoreSlashes, authority, host, port, pathStart, path, query
    }

    private static let slash = UInt8(ascii: "/")
    private static let backslash = UInt8(ascii: "\\")

    /// Parses `text`, relative to `base` when it has no scheme of its own (or the base's).
    static func parse(_ text: String, base: Record?) -> Record? {
        let input = preprocessed(text)
        var state = State.schemeStart
        var buffer: [UInt8] = []
        var atSignSeen = false
        var insideBrackets = false
        var passwordTokenSeen = false
        var url = Record()
        var pointer = 0
        func at(_ index: Int) -> UInt8? { index >= 0 && index < input.count ? input[index] : nil }
        func isSlash(_ c: UInt8?) -> Bool { c == slash || c == backslash }
        /// EOF, `/`, `\`, `?` or `#`: what ends the authority, host and port.
        func endsAuthority(_ c: UInt8?) -> Bool {
            c == nil || c == slash || c == backslash || c == UInt8(ascii: "?") || c == UInt8(ascii: "#")
        }

        parsing: while true {
            let c = at(pointer)
            switch state {
            case .schemeStart:
                if let c, isASCIIAlpha(c) {
                    buffer.append(c | 0x20)
                    state = .scheme
                } else {
                    state = .noScheme
                    pointer -= 1
                }
            case .scheme:
                if let c,
                    isASCIIAlpha(c) || isDigit(c) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
                {
                    buffer.append(isASCIIAlpha(c) ? c | 0x20 : c)
                } else if c == UInt8(ascii: ":") {
                    let scheme = String(decoding: buffer, as: UTF8.self)
                    guard scheme == "http" || scheme == "https" else { return nil }
                    url.scheme = scheme
                    buffer = []
                    state = base?.scheme == scheme ? .specialRelativeOrAuthority : .specialAuthoritySlashes
                } else {
                    buffer = []
                    state = .noScheme
                    pointer = -1
                }
            case .noScheme:
                // Bases are http(s), special and never opaque; without one there is no URL.
                guard base != nil else { return nil }
                state = .relative
                pointer -= 1
            case .specialRelativeOrAuthority:
                if c == slash && at(pointer + 1) == slash {
                    state = .specialAuthorityIgnoreSlashes
                    pointer += 1
                } else {
                    state = .relative
                    pointer -= 1
                }
            case .relative:
                guard let base else { return nil }
                url.scheme = base.scheme
                if isSlash(c) {
                    state = .relativeSlash
                } else {
                    copyAuthority(from: base, to: &url)
                    url.path = base.path
                    url.query = base.query
                    if c == UInt8(ascii: "?") {
                        url.query = []
                        state = .query
                    } else if c == UInt8(ascii: "#") {
                        break parsing
                    } else if c != nil {
                        url.query = nil
                        shorten(&url.path)
                        state = .path
                        pointer -= 1
                    }
                }
            case .relativeSlash:
                if isSlash(c) {
                    state = .specialAuthorityIgnoreSlashes
                } else {
                    guard let base else { return nil }
                    copyAuthority(from: base, to: &url)
                    state = .path
                    pointer -= 1
                }
            case .specialAuthoritySlashes:
                state = .specialAuthorityIgnoreSlashes
                if c == slash && at(pointer + 1) == slash { pointer += 1 } else { pointer -= 1 }
            case .specialAuthorityIgnoreSlashes:
                if !isSlash(c) {
                    state = .authority
                    pointer -= 1
                }
            case .authority:
                if c == UInt8(ascii: "@") {
                    if atSignSeen { buffer.insert(contentsOf: Array("%40".utf8), at: 0) }
                    atSignSeen = true
                    for byte in buffer {
                        if byte == UInt8(ascii: ":") && !passwordTokenSeen {
                            passwordTokenSeen = true
                            continue
                        }
                        if passwordTokenSeen {
                            url.password.append(byte, encodedBy: .userinfo)
                        } else {
                            url.username.append(byte, encodedBy: .userinfo)
                        }
                    }
                    buffer = []
                } else if endsAuthority(c) {
                    if atSignSeen && buffer.isEmpty { return nil }
                    pointer -= buffer.count + 1
                    buffer = []
                    state = .host
                } else if let c {
                    buffer.append(c)
                }
            case .host:
                if c == UInt8(ascii: ":") && !insideBrackets {
                    guard !buffer.isEmpty, let host = WebHost.parse(buffer[...]) else { return nil }
                    url.host = host
                    buffer = []
                    state = .port
                } else if endsAuthority(c) {
                    pointer -= 1
                    guard !buffer.isEmpty, let host = WebHost.parse(buffer[...]) else { return nil }
                    url.host = host
                    buffer = []
                    state = .pathStart
                } else if let c {
                    if c == UInt8(ascii: "[") { insideBrackets = true }
                    if c == UInt8(ascii: "]") { insideBrackets = false }
                    buffer.append(c)
                }
            case .port:
                if let c, isDigit(c) {
                    buffer.append(c)
                } else if endsAuthority(c) {
                    if !buffer.isEmpty {
                        var port = 0
                        for digit in buffer {
                            port = port * 10 + Int(digit - UInt8(ascii: "0"))
                            guard port <= 65535 else { return nil }
                        }
                        url.port = port == defaultPort(url.scheme) ? nil : port
                    }
                    buffer = []
                    state = .pathStart
                    pointer -= 1
                } else {
                    return nil
                }
            case .pathStart:
                state = .path
                if !isSlash(c) { pointer -= 1 }
            case .path:
                if isSlash(c) || c == nil || c == UInt8(ascii: "?") || c == UInt8(ascii: "#") {
                    if isDoubleDotSegment(buffer) {
                        shorten(&url.path)
                        if !isSlash(c) { url.path.append(slash) }
                    } else if isSingleDotSegment(buffer) {
                        if !isSlash(c) { url.path.append(slash) }
                    } else {
                        url.path.append(slash)
                        url.path += buffer
                    }
                    buffer = []
                    if c == UInt8(ascii: "?") {
                        url.query = []
                        state = .query
                    } else if c == UInt8(ascii: "#") {
                        break parsing
                    }
                } else if let c {
                    buffer.append(c, encodedBy: .path)
                }
            case .query:
                if c == UInt8(ascii: "#") || c == nil { break parsing }
                if let c { url.query?.append(c, encodedBy: .specialQuery) }
            }
            if pointer >= input.count { break }
            pointer += 1
        }
        return url
    }

    /// The input with leading and trailing C0 controls and spaces stripped and every tab, LF and
    /// CR removed.
    private static func preprocessed(_ text: String) -> [UInt8] {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { $0 > 0x20 }), let last = utf8.lastIndex(where: { $0 > 0x20 }) else {
            return []
        }
        var input: [UInt8] = []
        input.reserveCapacity(utf8.distance(from: first, to: last) + 1)
        for byte in utf8[first...last] where byte != 0x09 && byte != 0x0A && byte != 0x0D {
            input.append(byte)
        }
        return input
    }

    private static func copyAuthority(from base: Record, to url: inout Record) {
        url.username = base.username
        url.password = base.password
        url.host = base.host
        url.port = base.port
        url.authorityFromBase = true
    }

    /// Removes the path's last segment (the Standard's "shorten a URL's path").
    private static func shorten(_ path: inout [UInt8]) {
        if let last = path.lastIndex(of: slash) { path.removeSubrange(last...) }
    }

    /// `..`, `.%2e`, `%2e.` or `%2e%2e`, in any case.
    private static func isDoubleDotSegment(_ segment: [UInt8]) -> Bool {
        switch segment.count {
        case 2: segment == [0x2E, 0x2E]
        case 4: (segment[0] == 0x2E && isEscapedDot(segment[1...])) || (isEscapedDot(segment[0..<3]) && segment[3] == 0x2E)
        case 6: isEscapedDot(segment[0..<3]) && isEscapedDot(segment[3...])
        default: false
        }
    }

    /// `.` or `%2e`, in any case.
    private static func isSingleDotSegment(_ segment: [UInt8]) -> Bool {
        (segment.count == 1 && segment[0] == 0x2E) || (segment.count == 3 && isEscapedDot(segment[...]))
    }

    private static func isEscapedDot(_ bytes: ArraySlice<UInt8>) -> Bool {
        let start = bytes.startIndex
        return bytes.count == 3 && bytes[start] == UInt8(ascii: "%") && bytes[start + 1] == UInt8(ascii: "2")
            && bytes[start + 2] | 0x20 == UInt8(ascii: "e")
    }

    private static func isASCIIAlpha(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    static func defaultPort(_ scheme: String) -> Int? {
        switch scheme {
        case "http": 80
        case "https": 443
        default: nil
        }
    }
}
