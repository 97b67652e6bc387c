import MirrorCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Numeric character references that libxml2's HTML parser cannot hold, rewritten before it
/// reads a page into what the HTML Standard makes of them.
///
/// libxml2 (2.9) takes from a reference only what XML allows in a document: `&#xB;`, `&#1;`,
/// `&#0;` or `&#xD800;` give it a NUL, which ends an attribute's value there
/// (`srcset="&#xB;a.png 1x"` reads as nothing, `src="a&#xB;b.png"` as `a`). The HTML Standard
/// keeps every control but NUL, and reads NUL, a surrogate or a number past U+10FFFF as U+FFFD.
/// So a reference to a control becomes the control's own byte, which libxml2 keeps in an
/// attribute value (text drops it either way), and the others become `&#xFFFD;`. Script and
/// style text and comments are left as written: nothing decodes references there.
///
/// Left to libxml2: U+FFFE and U+FFFF (browsers keep them, libxml2 still cuts there: a raw
/// form depends on the page's encoding), and U+0080–U+009F (browsers read them as
/// windows-1252, libxml2 as the C1 controls they name).
enum CharacterReferences {
    /// `bytes` with such references rewritten, or nil when it has none (nearly every page: the
    /// bytes are then handed to libxml2 as they are).
    ///
    /// Only for encodings where ASCII bytes mean ASCII characters: a UTF-16 or UTF-32 page, or
    /// an ISO-2022 one, whose bytes can spell `&#` inside other characters, is left alone
    /// (`isASCIICompatible`).
    static func rewritten(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBufferPointer { buffer -> [UInt8]? in
            guard let first = firstRewrite(in: buffer) else { return nil }
            return rewriting(buffer, from: first)
        }
    }

    /// Whether a page's bytes, in the `encoding` its server named (nil: none), spell ASCII as
    /// ASCII, so that rewriting `&#...;` cannot touch another character's bytes.
    static func isASCIICompatible(_ bytes: [UInt8], encoding: String?) -> Bool {
        if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            return false
        }
        guard let name = encoding?.lowercased() else { return true }
        return !["utf-16", "utf16", "utf-32", "utf32", "ucs-2", "ucs2", "ucs-4", "ucs4", "2022", "ebcdic"].contains {
            name.includes($0)
        }
    }

    /// What a numeric reference must become for libxml2 to read it as a browser does.
    private enum Rewrite {
        /// The control's own byte.
        case byte(UInt8)
        /// `&#xFFFD;`.
        case replacementCharacter
    }

    /// A numeric reference at `start` (the `&`): where it ends (after its digits and `;`, if
    /// any) and its rewrite, or nil when it is none or libxml2 reads it right.
    private static func reference(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (end: Int, rewrite: Rewrite)? {
        var index = start + 2
        guard index < bytes.count, bytes[start + 1] == UInt8(ascii: "#") else { return nil }
        var radix: UInt32 = 10
        if bytes[index] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            index += 1
        }
        let digits = index
        var value: UInt32 = 0
        while index < bytes.count, let digit = PercentEncoding.hexValue(bytes[index]).map(UInt32.init), digit < radix {
            // Saturates past U+10FFFF: every such number reads as U+FFFD.
            value = min(value * radix + digit, 0x11_0000)
            index += 1
        }
        // "&#" or "&#x" without digits is no reference: text as written (libxml2 cuts there too).
        guard index > digits else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ";") { index += 1 }
        switch value {
        case 0x01...0x08, 0x0B, 0x0C, 0x0E...0x1F: return (index, .byte(UInt8(value)))
        case 0, 0xD800...0xDFFF, 0x11_0000...: return (index, .replacementCharacter)
        default: return nil
        }
    }

    /// The offset of the first reference to rewrite, outside scripts, styles and comments.
    private static func firstRewrite(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        // Most pages have no "&#" at all: one memchr-driven pass says so.
        var index = 0
        var hasCandidate = false
        while let ampersand = find(UInt8(ascii: "&"), in: bytes, from: index) {
            if ampersand + 1 < bytes.count, bytes[ampersand + 1] == UInt8(ascii: "#"), reference(bytes, at: ampersand) != nil {
                hasCandidate = true
                break
            }
            index = ampersand + 1
        }
        guard hasCandidate else { return nil }
        return nextRewrite(in: bytes, from: 0)
    }

    /// The offset of the next reference to rewrite from `start`, skipping what is not markup.
    private static func nextRewrite(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "&"):
                if reference(bytes, at: index) != nil { return index }
                index += 1
            case UInt8(ascii: "<"):
                index = endOfRawText(in: bytes, at: index)
            default:
                index += 1
            }
        }
        return nil
    }

    /// The elements whose text libxml2 reads as written.
    private static let rawTextElements: [StaticString] = ["script", "style"]

    /// Past a comment, or a script or style element's text, that starts at the `<` at `start`;
    /// `start + 1` when none does.
    private static func endOfRawText(in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Int {
        if matches(bytes, at: start, "<!--") {
            return search("-->", in: bytes, from: start + 4).map { $0 + 3 } ?? bytes.count
        }
        for name in rawTextElements where matches(bytes, at: start + 1, name) {
            // libxml2 ends such an element at the first "</name", in any case.
            let after = start + 1 + name.utf8CodeUnitCount
            guard after < bytes.count, [0x09, 0x0A, 0x0C, 0x0D, 0x20, 0x2F, 0x3E].contains(bytes[after]) else { break }
            var index = after
            while let open = find(UInt8(ascii: "<"), in: bytes, from: index) {
                if open + 1 < bytes.count, bytes[open + 1] == UInt8(ascii: "/"), matches(bytes, at: open + 2, name) {
                    return open + 2
                }
                index = open + 1
            }
            return bytes.count
        }
        return start + 1
    }

    /// `bytes` with every reference to rewrite from `first` on rewritten.
    private static func rewriting(_ bytes: UnsafeBufferPointer<UInt8>, from first: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var copied = 0
        var next: Int? = first
        while let start = next, let found = reference(bytes, at: start) {
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<start]))
            switch found.rewrite {
            case .byte(let byte): out.append(byte)
            case .replacementCharacter: out.append(contentsOf: "&#xFFFD;".utf8)
            }
            copied = found.end
            next = nextRewrite(in: bytes, from: found.end)
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied...]))
        return out
    }

    /// Whether the bytes at `index` spell `text` (lower-case ASCII) in any ASCII case.
    private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, _ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count {
            let byte = bytes[index + offset]
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            guard lower == text.utf8Start[offset] else { return false }
        }
        return true
    }

    /// The offset of `text` from `start`, or nil.
    private static func search(_ text: StaticString, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var index = start
        while let candidate = find(text.utf8Start.pointee, in: bytes, from: index) {
            if matches(bytes, at: candidate, text) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    /// The offset of `byte` from `start`, or nil (memchr: pages run to megabytes).
    private static func find(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < bytes.count, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }
}
