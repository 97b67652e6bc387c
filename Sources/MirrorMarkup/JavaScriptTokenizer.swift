/// Splits JavaScript source into the tokens that reading its literals needs: string literals
/// (escapes decoded), template literals without substitutions (as strings), names, numbers
/// and one-character punctuators. Comments (`//`, `/* */`, `<!--`) and white space are
/// skipped; regular expression literals, template literals with `${}` and strings longer than
/// `maxStringBytes` become `.unknown` (a value that cannot be known without running the code).
///
/// Written by hand: no Swift package tokenizes JavaScript, and only its lexical grammar is
/// needed (nothing is parsed beyond literals, and nothing is ever executed). Bad input never
/// fails: an unterminated string or comment ends at the end of the source, and an unterminated
/// regular expression is a division (a browser would refuse the whole script). Every call to
/// `next()` consumes at least one byte, and every byte is looked at a bounded number of times
/// (a regular expression that finds no end marks the rest of its line as having none), so
/// tokenizing is linear in the source on any input.
struct JavaScriptTokenizer {
    /// One token.
    enum Token: Equatable {
        case string(String)
        /// A regular expression, a template with substitutions, an over-long string.
        case unknown
        case name(String)
        case number(String)
        /// One ASCII punctuator character (`{`, `,`, `+`, ...).
        case punctuator(UInt8)
    }

    /// Strings longer than this (inline data URIs, embedded blobs) are `.unknown`.
    static let maxStringBytes = 8 * 1024
    /// Tokens read from one script at most (about 100 MB at worst): the memory budget of a
    /// script, more than twice what a 100,000-photo data script needs (1.7 million).
    static let maxTokens = 1 << 22
    /// Keywords after which a `/` starts a regular expression rather than a division.
    static let regexKeywords: Set<String> = [
        "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield",
        "await",
    ]

    private let source: [UInt8]
    private var position = 0
    /// Open braces inside the `${...}` of templates: a `}` at count 0 resumes the template.
    private var templateBraces: [Int] = []
    /// Whether a `/` here starts a regular expression (it follows no operand).
    private var regexAllowed = true
    /// True at the start of a line (for `-->` comments).
    private var lineStart = true
    /// Where the line of the last regular expression that found no closing `/` ends: a `/`
    /// before it is read as a division. That line is not valid JavaScript as read (a browser
    /// would refuse the script), and searching again from each `/` on it would make a long
    /// line of them (`/[/[/[...`) quadratic.
    private var divisionUntil = 0
    /// Bytes looked at while searching for the end of regular expressions (at most the
    /// source's length: what keeps tokenizing linear, checked by the tests).
    private(set) var searchedBytes = 0

    init(_ source: [UInt8]) {
        self.source = source
    }

    /// Every token of `text`.
    static func tokens(_ text: [UInt8]) -> [Token] {
        tokens(text, limit: .max).tokens
    }

    /// The first `limit` tokens of `text`, and whether they are all of them.
    static func tokens(_ text: [UInt8], limit: Int) -> (tokens: [Token], isComplete: Bool) {
        var tokenizer = JavaScriptTokenizer(text)
        var tokens: [Token] = []
        while let token = tokenizer.next() {
            guard tokens.count < limit else { return (tokens, false) }
            tokens.append(token)
        }
        return (tokens, true)
    }

    /// The next token, or nil at the end of the source.
    mutating func next() -> Token? {
        skipSpaceAndComments()
        guard position < source.count else { return nil }
        let byte = source[position]
        let token: Token
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            position += 1
            token = quoted(until: byte)
        case UInt8(ascii: "`"):
            position += 1
            token = template()
        case UInt8(ascii: "/") where regexAllowed:
            if let expression = regularExpression() {
                token = expression
            } else {
                // No regular expression ends on this line: the `/` is a division after all,
                // and is consumed as one (staying put here re-read it for ever).
                position += 1
                token = .punctuator(byte)
            }
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            token = number()
        case UInt8(ascii: ".") where position + 1 < source.count && Self.isDigit(source[position + 1]):
            token = number()
        case _ where Self.isNameStart(byte):
            let start = position
            while position < source.count, Self.isNamePart(source[position]) { position += 1 }
            token = .name(String(decoding: source[start..<position], as: UTF8.self))
        case UInt8(ascii: "}") where !templateBraces.isEmpty && templateBraces[templateBraces.count - 1] == 0:
            // The end of a template's `${...}`: the rest of the template follows.
            templateBraces.removeLast()
            position += 1
            _ = templateRest()
            token = .unknown
        default:
            position += 1
            if !templateBraces.isEmpty {
                if byte == UInt8(ascii: "{") { templateBraces[templateBraces.count - 1] += 1 }
                if byte == UInt8(ascii: "}") { templateBraces[templateBraces.count - 1] -= 1 }
            }
            token = .punctuator(byte)
        }
        switch token {
        case .name(let name): regexAllowed = Self.regexKeywords.contains(name)
        case .punctuator(let character):
            regexAllowed = character != UInt8(ascii: ")") && character != UInt8(ascii: "]") && character != UInt8(ascii: "}")
        default: regexAllowed = false
        }
        return token
    }

    // MARK: - Space and comments

    private mutating func skipSpaceAndComments() {
        while position < source.count {
            let byte = source[position]
            if byte == 0x0A || byte == 0x0D {
                lineStart = true
                position += 1
            } else if byte == 0x20 || byte == 0x09 || byte == 0x0B || byte == 0x0C {
                position += 1
            } else if starts(with: "//") || starts(with: "<!--") || (lineStart && starts(with: "-->")) {
                while position < source.count, source[position] != 0x0A, source[position] != 0x0D { position += 1 }
            } else if starts(with: "/*") {
                position += 2
                while position < source.count, !starts(with: "*/") {
                    if source[position] == 0x0A { lineStart = true }
                    position += 1
                }
                position = min(position + 2, source.count)
            } else if starts(with: "\u{FEFF}") || starts(with: "\u{A0}") || starts(with: "\u{2028}") || starts(with: "\u{2029}") {
                position += byte == 0xC2 ? 2 : 3
            } else {
                lineStart = false
                return
            }
        }
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= source.count else { return false }
        let pointer = text.utf8Start
        for offset in 0..<count where source[position + offset] != pointer[offset] { return false }
        return true
    }

    // MARK: - Literals

    /// A `'...'` or `"..."` string, after its opening quote.
    private mutating func quoted(until quote: UInt8) -> Token {
        var text: [UInt8] = []
        var tooLong = false
        while position < source.count {
            let byte = source[position]
            if byte == quote {
                position += 1
                break
            }
            if byte == 0x0A || byte == 0x0D { break }  // unterminated: the string ends with its line
            if byte == UInt8(ascii: "\\") {
                position += 1
                escape(into: &text)
            } else {
                text.append(byte)
                position += 1
            }
            if text.count > Self.maxStringBytes { tooLong = true }
        }
        return tooLong ? .unknown : .string(String(decoding: text, as: UTF8.self))
    }

    /// A template literal, after its opening backquote: a string when it has no substitution.
    private mutating func template() -> Token {
        templateRest() ?? .unknown
    }

    /// Reads template text up to its closing backquote (returning the string) or to a `${`
    /// (returning nil; the substitution's tokens follow, and the `}` that closes it resumes).
    private mutating func templateRest() -> Token? {
        var text: [UInt8] = []
        while position < source.count {
            let byte = source[position]
            if byte == UInt8(ascii: "`") {
                position += 1
                return text.count > Self.maxStringBytes ? .unknown : .string(String(decoding: text, as: UTF8.self))
            }
            if byte == UInt8(ascii: "$"), position + 1 < source.count, source[position + 1] == UInt8(ascii: "{") {
                position += 2
                templateBraces.append(0)
                return nil
            }
            if byte == UInt8(ascii: "\\") {
                position += 1
                escape(into: &text)
            } else {
                if text.count <= Self.maxStringBytes { text.append(byte) }
                position += 1
            }
        }
        return .unknown
    }

    /// Decodes the escape after a backslash (`\n`, `\xHH`, `\uHHHH`, `\u{H...}`, a line
    /// continuation, legacy octal, or the character itself).
    private mutating func escape(into text: inout [UInt8]) {
        guard position < source.count else { return }
        let byte = source[position]
        position += 1
        switch byte {
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "v"): text.append(0x0B)
        case 0x0D:
            if position < source.count, source[position] == 0x0A { position += 1 }
        case 0x0A:
            break
        case UInt8(ascii: "x"):
            if let value = hexValue(digits: 2) { append(scalar: value, to: &text) } else { text.append(byte) }
        case UInt8(ascii: "u"):
            if let value = unicodeEscape() { append(scalar: value, to: &text) } else { text.append(byte) }
        case UInt8(ascii: "0")...UInt8(ascii: "7"):
            var value = UInt32(byte - UInt8(ascii: "0"))
            var digits = 1
            while digits < 3, position < source.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(source[position]),
                value * 8 + UInt32(source[position] - UInt8(ascii: "0")) <= 0xFF
            {
                value = value * 8 + UInt32(source[position] - UInt8(ascii: "0"))
                position += 1
                digits += 1
            }
            append(scalar: value, to: &text)
        default:
            text.append(byte)  // `\'`, `\"`, `\\`, `\/`, and any other character as itself
        }
    }

    /// The code point of `\uHHHH` (a surrogate pair of two such escapes combined) or `\u{H...}`,
    /// after the `u`.
    private mutating func unicodeEscape() -> UInt32? {
        if position < source.count, source[position] == UInt8(ascii: "{") {
            guard let close = source[position...].prefix(10).firstIndex(of: UInt8(ascii: "}")), close > position + 1
            else { return nil }
            var value: UInt32 = 0
            for byte in source[(position + 1)..<close] {
                guard let digit = Self.hexDigit(byte) else { return nil }
                value = value * 16 + digit
            }
            position = close + 1
            return value
        }
        guard let high = hexValue(digits: 4) else { return nil }
        guard (0xD800...0xDBFF).contains(high), position + 6 <= source.count, source[position] == UInt8(ascii: "\\"),
            source[position + 1] == UInt8(ascii: "u")
        else { return high }
        let saved = position
        position += 2
        if let low = hexValue(digits: 4), (0xDC00...0xDFFF).contains(low) {
            return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        }
        position = saved
        return high
    }

    private mutating func hexValue(digits: Int) -> UInt32? {
        guard position + digits <= source.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<digits {
            guard let digit = Self.hexDigit(source[position + offset]) else { return nil }
            value = value * 16 + digit
        }
        position += digits
        return value
    }

    /// Appends a code point as UTF-8 (a lone surrogate or an out-of-range value as U+FFFD).
    private func append(scalar value: UInt32, to text: inout [UInt8]) {
        text.append(contentsOf: String(Unicode.Scalar(value) ?? "\u{FFFD}").utf8)
    }

    /// A regular expression literal (skipped as `.unknown`), or nil when the line ends first
    /// (then the `/` was a division after all).
    private mutating func regularExpression() -> Token? {
        guard position >= divisionUntil else { return nil }
        var index = position + 1
        var inClass = false
        while index < source.count {
            let byte = source[index]
            searchedBytes += 1
            if byte == 0x0A || byte == 0x0D {
                divisionUntil = index
                return nil
            }
            if byte == UInt8(ascii: "\\"), index + 1 < source.count, source[index + 1] != 0x0A, source[index + 1] != 0x0D {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "[") { inClass = true }
            if byte == UInt8(ascii: "]") { inClass = false }
            if byte == UInt8(ascii: "/") && !inClass { break }
            index += 1
        }
        guard index < source.count else {
            divisionUntil = source.count
            return nil
        }
        position = index + 1
        while position < source.count, Self.isNamePart(source[position]) { position += 1 }
        return .unknown
    }

    /// A numeric literal: decimal, hex, octal, binary, exponents, separators, BigInt suffix.
    private mutating func number() -> Token {
        let start = position
        let isHex =
            source[position] == UInt8(ascii: "0") && position + 1 < source.count
            && (source[position + 1] | 0x20) == UInt8(ascii: "x")
        while position < source.count {
            let byte = source[position]
            if Self.isNamePart(byte) || byte == UInt8(ascii: ".") {
                position += 1
            } else if (byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")) && !isHex
                && (source[position - 1] | 0x20) == UInt8(ascii: "e")
            {
                position += 1
            } else {
                break
            }
        }
        return .number(String(decoding: source[start..<position], as: UTF8.self).replacingOccurrences(of: "_", with: ""))
    }

    // MARK: - Characters

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "$") || byte >= 0x80 || byte == UInt8(ascii: "\\")
    }

    private static func isNamePart(_ byte: UInt8) -> Bool { isNameStart(byte) || isDigit(byte) }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
