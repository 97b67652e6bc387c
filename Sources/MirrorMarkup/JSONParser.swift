import MirrorCore

/// Parses JSON text (RFC 8259) into a `JSONValue`, in one pass over the bytes, with MirrorCore's
/// `JSONCursor` (the scanner the manifest is read with) reading the tokens.
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
    typealias Failure = JSONCursor.Malformed

    /// Arrays and objects nested deeper than this are refused.
    let maxDepth: Int

    /// A parser refusing nesting deeper than `maxDepth` (default 256).
    init(maxDepth: Int = 256) {
        self.maxDepth = maxDepth
    }

    /// The value `bytes` hold (a UTF-8 byte order mark first is skipped).
    func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        let result: Result<JSONValue, Failure> = bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(cursor: JSONCursor(buffer), maxDepth: maxDepth)
            return Result { () throws(Failure) in try reader.document() }
        }
        return try result.get()
    }

    /// The tree built over the cursor: what the cursor leaves to its reader (nesting, the
    /// decoder's leniencies, members sorted) is here.
    private struct Reader {
        var cursor: JSONCursor
        let maxDepth: Int

        mutating func document() throws(Failure) -> JSONValue {
            cursor.skipByteOrderMark()
            let value = try self.value(depth: 0)
            cursor.skipSpaces()
            guard cursor.isAtEnd else { throw cursor.failure("text after the top-level value") }
            return value
        }

        private mutating func value(depth: Int) throws(Failure) -> JSONValue {
            cursor.skipSpaces()
            guard let next = cursor.next else { throw cursor.failure("the text ends where a value should be") }
            switch next {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try cursor.string(repairing: true))
            case UInt8(ascii: "t"):
                try cursor.literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try cursor.literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try cursor.literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return .number(try number())
            default:
                throw cursor.failure("an unexpected character")
            }
        }

        private mutating func object(depth: Int) throws(Failure) -> JSONValue {
            guard depth <= maxDepth else { throw cursor.failure("nesting deeper than \(maxDepth) levels") }
            _ = cursor.take(UInt8(ascii: "{"))
            var members: [JSONValue.Member] = []
            if cursor.take(UInt8(ascii: "}")) { return .object(members) }
            while true {
                // A comma before the brace, which the decoder lets pass.
                if !members.isEmpty, cursor.take(UInt8(ascii: "}")) { return .object(Self.sortedByKey(members)) }
                cursor.skipSpaces()
                guard cursor.next == UInt8(ascii: "\"") else { throw cursor.failure("a member without a quoted name") }
                let key = try cursor.string(repairing: true)
                guard cursor.take(UInt8(ascii: ":")) else { throw cursor.failure("a member without ':'") }
                members.append(JSONValue.Member(key: key, value: try value(depth: depth)))
                if cursor.take(UInt8(ascii: ",")) { continue }
                guard !cursor.isAtEnd else { throw cursor.failure("an object that is not closed") }
                guard cursor.take(UInt8(ascii: "}")) else { throw cursor.failure("an object member not followed by ',' or '}'") }
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
            guard depth <= maxDepth else { throw cursor.failure("nesting deeper than \(maxDepth) levels") }
            _ = cursor.take(UInt8(ascii: "["))
            var elements: [JSONValue] = []
            if cursor.take(UInt8(ascii: "]")) { return .array(elements) }
            while true {
                // A comma before the bracket, which the decoder lets pass.
                if !elements.isEmpty, cursor.take(UInt8(ascii: "]")) { return .array(elements) }
                elements.append(try value(depth: depth))
                if cursor.take(UInt8(ascii: ",")) { continue }
                guard !cursor.isAtEnd else { throw cursor.failure("an array that is not closed") }
                guard cursor.take(UInt8(ascii: "]")) else { throw cursor.failure("an array element not followed by ',' or ']'") }
                return .array(elements)
            }
        }

        /// A number printed as the decoder printed it: an integer that fits 64 bits as written,
        /// anything else through `Double` (a whole one without its fraction).
        private mutating func number() throws(Failure) -> String {
            let (text, isInteger) = try cursor.number()
            if isInteger, let integer = Int64(text) { return String(integer) }
            guard let double = Double(text) else { throw cursor.failure("a number out of range") }
            return JSONValue.numberText(double)
        }
    }
}
