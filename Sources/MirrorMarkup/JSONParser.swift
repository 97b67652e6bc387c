/// Parses JSON text (RFC 8259) into a `JSONValue`, in one pass over the bytes.
///
/// Written by hand because the library at hand cannot read an untyped value cheaply: Foundation's
/// `JSONDecoder` decodes one only by trying each type in turn, every miss a thrown error with
/// its coding path (five per object), which was most of the cost of reading a listing;
/// `JSONSerialization` hands back `Any` values that cost a cast per value and lose what a
/// number was written as. This reads the same language the decoder reads, and gives the same
/// values (`JSONParserTests` compares the two): members of an object sorted by key, a repeated
/// key's first value kept, a comma before a closing bracket allowed; an integer that fits 64
/// bits as written, any other number as `Double` prints it. Two things it forgives where the
/// decoder refuses the whole document: bytes that are not UTF-8 inside a string become U+FFFD,
/// and so does a lone surrogate escape.
///
/// Bounded on any input: the work is linear in the bytes, nesting deeper than `maxDepth` is
/// refused before it is followed, and the tree is never larger than a few times the text.
struct JSONParser {
    /// Why the text is not JSON, and where.
    struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, with the byte offset.
        let description: String
    }

    /// Arrays and objects nested deeper than this are refused.
    let maxDepth: Int

    /// A parser refusing nesting deeper than `maxDepth` (default 256).
    init(maxDepth: Int = 256) {
        self.maxDepth = maxDepth
    }

    /// The value `bytes` hold (a UTF-8 byte order mark first is skipped).
    func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        let result: Result<JSONValue, Failure> = bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer, maxDepth: maxDepth)
            return Result { () throws(Failure) in try reader.document() }
        }
        return try result.get()
    }

    /// The reading position over the text.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let maxDepth: Int
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        }

        mutating func document() throws(Failure) -> JSONValue {
            let value = try self.value(depth: 0)
            skipSpace()
            guard index == bytes.count else { throw failure("text after the top-level value") }
            return value
        }

        private func failure(_ what: String) -> Failure {
            Failure(description: "\(what) at byte \(index)")
        }

        private mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        private mutating func value(depth: Int) throws(Failure) -> JSONValue {
            skipSpace()
            guard index < bytes.count else { throw failure("the text ends where a value should be") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try number())
            default:
                throw failure("an unexpected character")
            }
        }

        private mutating func literal(_ word: StaticString) throws(Failure) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw failure("an unknown word") }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
                throw failure("an unknown word")
            }
            index += count
        }

        private mutating func object(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= maxDepth else { throw failure("nesting deeper than \(maxDepth) levels") }
            index += 1
            var members: [JSONValue.Member] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}"), !members.isEmpty {
                    // A comma before the brace, which the decoder lets pass.
                    index += 1
                    return .object(Self.sortedByKey(members))
                }
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw failure("a member without a quoted name")
                }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("a member without ':'") }
                index += 1
                members.append(JSONValue.Member(key: key, value: try value(depth: depth)))
                skipSpace()
                guard index < bytes.count else { throw failure("an object that is not closed") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}") else { throw failure("an object member not followed by ',' or '}'") }
                index += 1
                return .object(Self.sortedByKey(members))
            }
        }

        /// Members in key order (`String`'s, as the decoder's dictionary was sorted), one per
        /// key: the first value given for a repeated key, as the decoder keeps it.
        private static func sortedByKey(_ members: [JSONValue.Member]) -> [JSONValue.Member] {
            guard members.count > 1 else { return members }
            let order = members.indices.sorted { a, b in
                members[a].key == members[b].key ? a < b : members[a].key < members[b].key
            }
            var sorted: [JSONValue.Member] = []
            sorted.reserveCapacity(members.count)
            for position in order where sorted.last?.key != members[position].key {
                sorted.append(members[position])
            }
            return sorted
        }

        private mutating func array(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= maxDepth else { throw failure("nesting deeper than \(maxDepth) levels") }
            index += 1
            var elements: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                skipSpace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]"), !elements.isEmpty {
                    // A comma before the bracket, which the decoder lets pass.
                    index += 1
                    return .array(elements)
                }
                elements.append(try value(depth: depth))
                skipSpace()
                guard index < bytes.count else { throw failure("an array that is not closed") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "]") else { throw failure("an array element not followed by ',' or ']'") }
                index += 1
                return .array(elements)
            }
        }

        /// A string, from its opening quote; `index` then follows its closing quote.
        private mutating func string() throws(Failure) -> String {
            index += 1
            let start = index
            // The common case: no escape, one copy of the bytes.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
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
                    return String(decoding: text, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    try escape(into: &text)
                case 0..<0x20:
                    throw failure("a control character in a string")
                default:
                    text.append(byte)
                    index += 1
                }
            }
            throw failure("a string that is not closed")
        }

        private mutating func escape(into text: inout [UInt8]) throws(Failure) {
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
                text.append(contentsOf: String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8)
            default:
                index -= 1
                throw failure("an unknown escape")
            }
        }

        private mutating func hex4() throws(Failure) -> UInt32 {
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

        /// A number as the grammar has it, printed as the decoder printed it: an integer that
        /// fits 64 bits as written, anything else through `Double` (a whole one without its
        /// fraction).
        private mutating func number() throws(Failure) -> String {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
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
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return String(integer) }
            guard let double = Double(text) else { throw failure("a number out of range") }
            return JSONValue.numberText(double)
        }

        private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    }
}
