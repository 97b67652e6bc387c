import Foundation
import MirrorCore

/// A JSON value, or a JavaScript literal read as one: what `ImageValueWalker` walks. Object
/// members keep their order (a script's literal as written; a JSON document's sorted by key,
/// `JSONParser`). Numbers keep the text they print as.
enum JSONValue: Equatable, Sendable {
    /// One member of an object.
    struct Member: Equatable, Sendable {
        var key: String
        var value: JSONValue
    }

    case string(String)
    case number(String)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([Member])

    /// The text of a string, number or boolean.
    var scalarText: String? {
        switch self {
        case .string(let text), .number(let text): text
        case .bool(let value): String(value)
        default: nil
        }
    }

    var string: String? {
        if case .string(let text) = self { text } else { nil }
    }

    /// A positive integer from a number or a string that starts with one (`"800px"`).
    var positiveInteger: Int? {
        guard let text = scalarText?.trimmingSpaces else { return nil }
        let digits = text.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 9, let value = Int(digits), value > 0 else { return nil }
        return value
    }

    /// The value of member `key` of an object.
    subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }
}

extension JSONValue {
    /// How a number that is not a 64-bit integer prints: a whole one without its fraction.
    static func numberText(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// The values Foundation's `JSONDecoder` gives: what `JSONParser` must agree with (the tests
/// decode with both).
extension JSONValue: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(String(value))
        } else if let value = try? container.decode(Double.self) {
            self = .number(Self.numberText(value))
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            let members = try container.decode([String: JSONValue].self)
            self = .object(members.sorted { $0.key < $1.key }.map { Member(key: $0.key, value: $0.value) })
        }
    }
}

extension JSONValue {
    /// The deepest nesting of arrays and objects in JSON text, counted without parsing it, so
    /// a document nested deeper than a parser's recursion can bear is refused before it is
    /// decoded. Stops counting at `limit + 1`.
    static func nesting(of bytes: [UInt8], limit: Int) -> Int {
        var depth = 0
        var deepest = 0
        var strings = JSONStrings()
        for byte in bytes {
            if strings.take(byte) { continue }
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > deepest {
                    deepest = depth
                    if deepest > limit { return deepest }
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}
