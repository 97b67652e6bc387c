/// A percent-encode set of the URL Standard (section 1.3): which code points the parser writes
/// as `%XX` in a component. Every set holds the C0 controls and everything above `~`, so a
/// non-ASCII code point is always encoded, byte by byte, as UTF-8.
struct PercentEncodeSet: Sendable {
    /// Bits for ASCII 0–63 and 64–127.
    private let low: UInt64
    private let high: UInt64

    private init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// This set plus the ASCII characters of `characters`.
    private func adding(_ characters: String) -> PercentEncodeSet {
        var low = self.low
        var high = self.high
        for byte in characters.utf8 {
            if byte < 64 { low |= 1 << byte } else { high |= 1 << (byte - 64) }
        }
        return PercentEncodeSet(low: low, high: high)
    }

    /// True when `byte` (a UTF-8 byte) is written percent-encoded.
    func contains(_ byte: UInt8) -> Bool {
        if byte >= 0x80 { return true }
        return byte < 64 ? (low >> byte) & 1 == 1 : (high >> (byte - 64)) & 1 == 1
    }

    /// C0 controls (U+0000–U+001F), U+007F and everything above it.
    static let c0Control = PercentEncodeSet(low: 0xFFFF_FFFF, high: 1 << 63)
    /// The query set: C0 controls, space, `"`, `#`, `<` and `>`.
    static let query = c0Control.adding(" \"#<>")
    /// The special-query set (http, https): the query set and `'`.
    static let specialQuery = query.adding("'")
    /// The path set: the query set and `?`, `^`, `` ` ``, `{` and `}`.
    static let path = query.adding("?^`{}")
    /// The userinfo set: the path set and `/`, `:`, `;`, `=`, `@`, `[` to `^`, and `|`.
    static let userinfo = path.adding("/:;=@[\\]^|")
}

extension [UInt8] {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Appends `byte`, percent-encoded when `set` holds it.
    mutating func append(_ byte: UInt8, encodedBy set: PercentEncodeSet) {
        if set.contains(byte) {
            append(UInt8(ascii: "%"))
            append(Self.hexDigits[Int(byte >> 4)])
            append(Self.hexDigits[Int(byte & 0x0F)])
        } else {
            append(byte)
        }
    }
}
