/// Reads JSON text (RFC 8259) held in memory, token by token: the one JSON scanner. Strings
/// (escapes decoded), numbers as the grammar has them, literals, and, for a reader that knows
/// the shape it expects, objects member by member, arrays element by element and values skipped
/// whole. Every reader of the manifest reads an element of `items` with it (`Manifest.Item.read`,
/// `PreviousManifest.Item.read`), after `JSONMemberScanner` has cut the file into elements;
/// MirrorMarkup's `JSONParser` builds its trees of listings from the web on it.
///
/// Nothing is built that the caller does not ask for: a skipped value is only walked, and
/// never followed deeper than `maxDepth`. What is not JSON throws `Malformed`, with the offset.
package struct JSONCursor {
    /// Why the text is not JSON, or not the JSON the reader expected, and where.
    package struct Malformed: Error, Sendable, CustomStringConvertible {
        /// What went wrong, with the byte offset.
        package let description: String

        package init(_ what: String, at offset: Int) { description = "\(what) at byte \(offset)" }
    }

    /// Values nested deeper than this are not skipped.
    static let maxDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    package private(set) var index = 0

    /// A cursor at the first byte of `bytes`, which must outlive it.
    package init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Runs `body` with a cursor over `bytes`, and checks that nothing but spaces follows what
    /// it read.
    package static func reading<Result>(
        _ bytes: ArraySlice<UInt8>, _ body: (inout JSONCursor) throws -> Result
    ) throws -> Result {
        try bytes.withUnsafeBufferPointer { buffer in
            var cursor = JSONCursor(buffer)
            let result = try body(&cursor)
            cursor.skipSpaces()
            guard cursor.isAtEnd else { throw cursor.failure("text after the value") }
            return result
        }
    }

    /// `what` went wrong at the cursor.
    package func failure(_ what: String) -> Malformed { Malformed(what, at: index) }

    /// Whether every byte has been read.
    package var isAtEnd: Bool { index == bytes.count }

    /// The next byte, not taken; nil at the end.
    package var next: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Moves past a byte order mark at the start, if there is one.
    package mutating func skipByteOrderMark() {
        if index == 0, bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    }

    package mutating func skipSpaces() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Takes `byte` after any spaces; false, with only the spaces taken, when the next byte is another.
    package mutating func take(_ byte: UInt8) -> Bool {
        skipSpaces()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Takes `word` (`true`, `false`, `null`).
    package mutating func literal(_ word: StaticString) throws(Malformed) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("an unknown word") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("an unknown word")
        }
        index += count
    }

    // MARK: - Strings

    /// The string at the cursor (after any spaces). With `repairing`, bytes that are not UTF-8
    /// and a lone surrogate escape become U+FFFD, as a lenient reader wants them; otherwise
    /// they are refused.
    package mutating func string(repairing: Bool = false) throws(Malformed) -> String {
        skipSpaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("a string") }
        index += 1
        let start = index
        // The common case: no escape, one copy of the bytes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                return try text(raw, repairing: repairing, at: start)
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("a control character in a string") }
            index += 1
        }
        var text = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try text.withUnsafeBufferPointer { (raw) throws(Malformed) in
                    try self.text(raw, repairing: repairing, at: start)
                }
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &text, repairing: repairing)
            case 0..<0x20:
                throw failure("a control character in a string")
            default:
                text.append(byte)
                index += 1
            }
        }
        throw failure("a string that is not closed")
    }

    private func text(_ raw: UnsafeBufferPointer<UInt8>, repairing: Bool, at start: Int) throws(Malformed) -> String {
        // ASCII (most text of a manifest) is UTF-8 as it is: `String(validating:)` costs a
        // lookup of generic metadata on every call.
        if repairing || raw.allSatisfy({ $0 < 0x80 }) { return String(decoding: raw, as: UTF8.self) }
        guard let text = String(validating: raw, as: UTF8.self) else { throw Malformed("a string that is not UTF-8", at: start) }
        return text
    }

    private mutating func escape(into text: inout [UInt8], repairing: Bool) throws(Malformed) {
        guard index < bytes.count else { throw failure("a string that is not closed") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800...0xDBFF).contains(scalar), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                bytes[index + 1] == UInt8(ascii: "u")
            {
                let saved = index
                index += 2
                let low = try hex4()
                if (0xDC00...0xDFFF).contains(low) {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    index = saved
                }
            }
            guard let value = Unicode.Scalar(scalar) else {
                guard repairing else { throw failure("a lone surrogate escape") }
                text.append(contentsOf: [0xEF, 0xBF, 0xBD])
                return
            }
            text.append(contentsOf: String(value).utf8)
        default:
            index -= 1
            throw failure("an unknown escape")
        }
    }

    private mutating func hex4() throws(Malformed) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("a \\u escape cut short") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape with a non-hex digit")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Passes over the string at the cursor without making it: its escapes are only walked.
    private mutating func skipString() throws(Malformed) {
        if let end = plainStringEnd() {
            index = end + 1
            return
        }
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return
            case UInt8(ascii: "\\"): index += 2
            case 0..<0x20: throw failure("a control character in a string")
            default: index += 1
            }
        }
        throw failure("a string that is not closed")
    }

    // MARK: - Numbers

    /// The text of the number at the cursor (after any spaces), checked against the grammar,
    /// and whether it is written as an integer (no fraction, no exponent).
    package mutating func number() throws(Malformed) -> (text: String, isInteger: Bool) {
        let (range, isInteger) = try numberRange()
        return (String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self), isInteger)
    }

    /// `number()` without making its text.
    private mutating func numberRange() throws(Malformed) -> (Range<Int>, isInteger: Bool) {
        skipSpaces()
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number without digits") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number without digits after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number without exponent digits") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        return (start..<index, isInteger)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// An integer written as one, that fits `Integer`.
    package mutating func integer<Integer: FixedWidthInteger>(_: Integer.Type = Integer.self) throws(Malformed) -> Integer {
        let start = index
        let (text, isInteger) = try number()
        guard isInteger, let value = Integer(text) else { throw Malformed("an integer that fits \(Integer.self)", at: start) }
        return value
    }

    /// A finite number.
    package mutating func double() throws(Malformed) -> Double {
        let start = index
        guard let value = Double(try number().text), value.isFinite else { throw Malformed("a number out of range", at: start) }
        return value
    }

    // MARK: - Shapes

    /// Reads an object, handing `member` each member's name (its UTF-8 bytes) with the cursor
    /// at its value, which `member` must read or skip.
    package mutating func object(_ member: (UnsafeBufferPointer<UInt8>, inout JSONCursor) throws -> Void) throws {
        guard take(UInt8(ascii: "{")) else { throw failure("an object") }
        if take(UInt8(ascii: "}")) { return }
        repeat {
            skipSpaces()
            if let end = plainStringEnd() {
                // A name without escapes (every name the manifest has) is handed over in place.
                let name = UnsafeBufferPointer(rebasing: bytes[index + 1..<end])
                index = end + 1
                guard take(UInt8(ascii: ":")) else { throw failure("a member without ':'") }
                try member(name, &self)
            } else {
                let name = Array(try string().utf8)
                guard take(UInt8(ascii: ":")) else { throw failure("a member without ':'") }
                try name.withUnsafeBufferPointer { try member($0, &self) }
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")) else { throw failure("an object member not followed by ',' or '}'") }
    }

    /// Where the string at the cursor ends (its closing quote) when it has no escape and no
    /// control character; nil otherwise.
    private func plainStringEnd() -> Int? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        var end = index + 1
        while end < bytes.count {
            switch bytes[end] {
            case UInt8(ascii: "\""): return end
            case UInt8(ascii: "\\"), 0..<0x20: return nil
            default: end += 1
            }
        }
        return nil
    }

    /// Reads an array, `element` reading each element.
    package mutating func array(_ element: (inout JSONCursor) throws -> Void) throws {
        guard take(UInt8(ascii: "[")) else { throw failure("an array") }
        if take(UInt8(ascii: "]")) { return }
        repeat {
            skipSpaces()
            try element(&self)
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "]")) else { throw failure("an array element not followed by ',' or ']'") }
    }

    /// Skips one value of any kind, checking its grammar.
    package mutating func skipValue() throws {
        try skipValue(depth: 0)
    }

    private mutating func skipValue(depth: Int) throws {
        skipSpaces()
        guard depth < Self.maxDepth else { throw failure("nesting deeper than \(Self.maxDepth) levels") }
        guard let next else { throw failure("the text ends where a value should be") }
        switch next {
        case UInt8(ascii: "\""): try skipString()
        case UInt8(ascii: "{"): try object { _, cursor in try cursor.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): try array { try $0.skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: _ = try numberRange()
        }
    }
}
