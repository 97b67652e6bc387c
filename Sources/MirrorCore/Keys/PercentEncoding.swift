/// Percent-encoding normalization per RFC 3986 sections 2.1–2.4 and 6.2.2.
package enum PercentEncoding {
    /// Which ASCII characters may stand unescaped in a component (besides unreserved ones).
    package enum Component {
        case path, query, userinfo, host

        func allows(_ byte: UInt8) -> Bool {
            if PercentEncoding.isUnreserved(byte) || PercentEncoding.isSubDelimiter(byte) { return true }
            switch self {
            case .path: return byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "/")
            case .query:
                return byte == UInt8(ascii: ":") || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "/")
                    || byte == UInt8(ascii: "?")
            case .userinfo: return byte == UInt8(ascii: ":")
            case .host: return byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: ":")
            }
        }
    }

    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    static func isSubDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="):
            true
        default: false
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Normalizes one component: valid escapes of unreserved characters are decoded, other
    /// escapes get upper-case hex, a stray `%` becomes `%25`, and every byte the component may not
    /// hold raw (non-ASCII, space, quotes, controls...) is escaped.
    package static func normalize(_ text: String, allowed component: Component) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                let decoded = high << 4 | low
                if isUnreserved(decoded) {
                    out.append(decoded)
                } else {
                    appendEscaped(decoded, to: &out)
                }
                index += 3
                continue
            }
            if byte < 0x80 && byte != UInt8(ascii: "%") && component.allows(byte) {
                out.append(byte)
            } else {
                appendEscaped(byte, to: &out)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "%"))
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0x0F)])
    }

    /// Decodes every valid escape; invalid UTF-8 in the result is replaced with U+FFFD.
    package static func decode(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        return String(decoding: decodedBytes(Array(text.utf8)[...]), as: UTF8.self)
    }

    /// The bytes of `input` with every valid escape (`%` and two hex digits) decoded; an
    /// invalid one is kept as it is. The one percent-decoder of keys and hosts.
    package static func decodedBytes(_ input: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var index = input.startIndex
        while index < input.endIndex {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.endIndex,
                let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(input[index])
                index += 1
            }
        }
        return out
    }
}
