/// Reads the object and array literals of a script, leniently, as `JSONValue`s: keys quoted or
/// not (`{title: "A", 'thumb': "a.jpg", 3: x}`), trailing commas, string concatenations of
/// literals, and any other value (a name, a call, a function) skipped as unknown up to the next
/// `,` at its level, so `{dataSource: data, extend: function () {...}}` still gives its
/// literal fields. JSON is read the same way (it is a subset). Literals inside skipped values
/// (a function body) are read on their own.
///
/// Also collects the string literals that stand outside every literal read (`img.src =
/// 'a.jpg'`), leaving out those joined to something else by `+` (`'cap-' + state + '.png'`
/// names no file as written), and every complete string, for the data files a script names.
///
/// A failed attempt at a literal is tried again from each bracket inside it, so a hostile
/// script could make reading cost its length times its nesting: every attempt draws on one
/// budget of token visits (`workPerToken` a token), and a script that spends it is read only
/// as far as it got (`isComplete` false), never for longer.
struct ScriptLiteralReader {
    typealias Token = JavaScriptTokenizer.Token

    /// Nesting followed; a deeper literal is not read.
    static let maxDepth = 64
    /// Token visits allowed per token of the script (a real one needs two or three).
    static let workPerToken = 64

    /// False when the script was too long (`JavaScriptTokenizer.maxTokens`) or too costly to
    /// read whole: what it holds past that point is not read.
    private(set) var isComplete: Bool

    /// The literals of a script, in source order (those nested in another one excluded).
    private(set) var literals: [JSONValue] = []
    /// Strings outside every literal, not part of a concatenation.
    private(set) var looseStrings: [String] = []
    /// Every string literal that is a whole value (not part of a concatenation).
    private(set) var strings: [String] = []

    private let tokens: [Token]
    /// Tokens that belong to a literal already read (its brackets, keys and values).
    private var covered: [Bool]

    /// Reads the tokens of one script (`isComplete`: whether they are all of it).
    init(tokens: [Token], isComplete: Bool = true) {
        self.tokens = tokens
        self.isComplete = isComplete
        covered = Array(repeating: false, count: tokens.count)
        var budget = (tokens.count + 1024) * Self.workPerToken
        var index = 0
        while index < tokens.count {
            if !covered[index], tokens[index] == .punctuator(UInt8(ascii: "{")) || tokens[index] == .punctuator(UInt8(ascii: "["))
            {
                var attempt = Attempt(limit: budget)
                let read = literal(at: index, depth: 0, attempt: &attempt)
                budget -= attempt.steps
                if attempt.isOverBudget {
                    self.isComplete = false
                    break
                }
                if let (value, _) = read {
                    if value.hasContent {
                        literals.append(value)
                        for position in attempt.used { covered[position] = true }
                    }
                } else if attempt.tooDeep {
                    // The brackets that follow nest as deep: trying each would cost as much again.
                    while index + 1 < tokens.count,
                        tokens[index + 1] == .punctuator(UInt8(ascii: "{")) || tokens[index + 1] == .punctuator(UInt8(ascii: "["))
                    {
                        index += 1
                    }
                }
            }
            index += 1
        }
        for (position, token) in tokens.enumerated() {
            guard case .string(let text) = token, !isConcatenated(position) else { continue }
            strings.append(text)
            if !covered[position] { looseStrings.append(text) }
        }
    }

    /// Reads tokens as text (a script's source), at most `JavaScriptTokenizer.maxTokens` of them.
    init(source: [UInt8]) {
        let (tokens, isComplete) = JavaScriptTokenizer.tokens(source, limit: JavaScriptTokenizer.maxTokens)
        self.init(tokens: tokens, isComplete: isComplete)
    }

    private func isConcatenated(_ position: Int) -> Bool {
        let plus = Token.punctuator(UInt8(ascii: "+"))
        return (position > 0 && tokens[position - 1] == plus) || (position + 1 < tokens.count && tokens[position + 1] == plus)
    }

    // MARK: - Literals

    /// What one attempt at reading a literal touched.
    private struct Attempt {
        /// The tokens that belong to the literal (brackets, keys, string values).
        var used: [Int] = []
        /// The attempt failed at the nesting limit (so skipping a value cannot save it).
        var tooDeep = false
        /// Tokens visited so far.
        var steps = 0
        /// Visits allowed: past them the attempt fails, and reading stops.
        var limit: Int

        var isOverBudget: Bool { steps > limit }

        /// Counts a visit; false once the budget is spent.
        mutating func step() -> Bool {
            steps += 1
            return steps <= limit
        }
    }

    /// The object or array literal starting at `start` and the index after it; nil when the
    /// tokens there are no literal (a block, a destructuring pattern gone wrong, the end).
    private func literal(at start: Int, depth: Int, attempt: inout Attempt) -> (JSONValue, Int)? {
        guard depth < Self.maxDepth else { return nil }
        if tokens[start] == .punctuator(UInt8(ascii: "{")) { return object(at: start, depth: depth, attempt: &attempt) }
        return array(at: start, depth: depth, attempt: &attempt)
    }

    private func object(at start: Int, depth: Int, attempt: inout Attempt) -> (JSONValue, Int)? {
        var members: [JSONValue.Member] = []
        var index = start + 1
        attempt.used.append(start)
        while index < tokens.count, attempt.step() {
            if tokens[index] == .punctuator(UInt8(ascii: "}")) {
                attempt.used.append(index)
                return (.object(members), index + 1)
            }
            // The key: a name, a string or a number; anything else (computed keys, spreads,
            // methods) is skipped with its value.
            var key: String?
            switch tokens[index] {
            case .name(let name): key = name
            case .string(let text): key = text
            case .number(let text): key = text
            default: break
            }
            if let found = key, index + 1 < tokens.count, tokens[index + 1] == .punctuator(UInt8(ascii: ":")) {
                attempt.used.append(index)
                guard let (value, next) = value(at: index + 2, depth: depth + 1, attempt: &attempt) else { return nil }
                members.append(.init(key: found, value: value))
                index = next
            } else if key != nil, index + 1 < tokens.count,
                [.punctuator(UInt8(ascii: ",")), .punctuator(UInt8(ascii: "}"))].contains(tokens[index + 1])
            {
                index += 1  // shorthand `{data}`
            } else if key == nil, case .punctuator(let character) = tokens[index],
                character != UInt8(ascii: "["), character != UInt8(ascii: ".")
            {
                return nil  // not an object literal (a block: `{ var x = 1; }`)
            } else {
                guard let next = skipValue(from: index, attempt: &attempt) else { return nil }
                if case .name = tokens[index], next < tokens.count, tokens[next] != .punctuator(UInt8(ascii: ",")),
                    tokens[next] != .punctuator(UInt8(ascii: "}"))
                {
                    return nil
                }
                index = next
            }
            guard index < tokens.count else { return nil }
            if tokens[index] == .punctuator(UInt8(ascii: ",")) {
                index += 1
            } else if tokens[index] != .punctuator(UInt8(ascii: "}")) {
                return nil
            }
        }
        return nil
    }

    private func array(at start: Int, depth: Int, attempt: inout Attempt) -> (JSONValue, Int)? {
        var elements: [JSONValue] = []
        var index = start + 1
        attempt.used.append(start)
        while index < tokens.count, attempt.step() {
            if tokens[index] == .punctuator(UInt8(ascii: "]")) {
                attempt.used.append(index)
                return (.array(elements), index + 1)
            }
            if tokens[index] == .punctuator(UInt8(ascii: ",")) {
                index += 1  // a hole
                continue
            }
            guard let (value, next) = value(at: index, depth: depth + 1, attempt: &attempt) else { return nil }
            elements.append(value)
            index = next
            guard index < tokens.count else { return nil }
            if tokens[index] == .punctuator(UInt8(ascii: ",")) {
                index += 1
            } else if tokens[index] != .punctuator(UInt8(ascii: "]")) {
                return nil
            }
        }
        return nil
    }

    /// The value starting at `start` and the index after it. A value that is not a literal is
    /// `.null`, its tokens skipped.
    private func value(at start: Int, depth: Int, attempt: inout Attempt) -> (JSONValue, Int)? {
        guard start < tokens.count else { return nil }
        guard depth < Self.maxDepth else {
            attempt.tooDeep = true
            return nil
        }
        let next = start + 1 < tokens.count ? tokens[start + 1] : nil
        let ends: [Token?] = [
            nil, .punctuator(UInt8(ascii: ",")), .punctuator(UInt8(ascii: "}")), .punctuator(UInt8(ascii: "]")),
        ]
        switch tokens[start] {
        case .punctuator(UInt8(ascii: "{")), .punctuator(UInt8(ascii: "[")):
            var inner = Attempt(steps: attempt.steps, limit: attempt.limit)
            let read = literal(at: start, depth: depth, attempt: &inner)
            attempt.steps = inner.steps
            if let (value, after) = read, after >= tokens.count || ends.contains(tokens[after]) {
                attempt.used += inner.used
                return (value, after)
            }
            if inner.tooDeep || attempt.isOverBudget {
                attempt.tooDeep = inner.tooDeep
                return nil
            }
        case .string(let text) where ends.contains(next):
            attempt.used.append(start)
            return (.string(text), start + 1)
        case .number(let text) where ends.contains(next):
            return (.number(text), start + 1)
        case .punctuator(UInt8(ascii: "-")):
            if start + 1 < tokens.count, case .number(let text) = tokens[start + 1],
                ends.contains(start + 2 < tokens.count ? tokens[start + 2] : nil)
            {
                return (.number("-" + text), start + 2)
            }
        case .name(let name) where ends.contains(next):
            switch name {
            case "true": return (.bool(true), start + 1)
            case "false": return (.bool(false), start + 1)
            default: return (.null, start + 1)
            }
        case .string where next == .punctuator(UInt8(ascii: "+")):
            if let (text, after) = concatenation(at: start, attempt: &attempt) { return (.string(text), after) }
        default:
            break
        }
        guard let after = skipValue(from: start, attempt: &attempt) else { return nil }
        return (.null, after)
    }

    /// `'a' + "b" + 'c'` as one string, when every part is a string literal and the whole is no
    /// longer than a string token may be (`JavaScriptTokenizer.maxStringBytes`).
    private func concatenation(at start: Int, attempt: inout Attempt) -> (String, Int)? {
        var text = ""
        var index = start
        while index < tokens.count, case .string(let part) = tokens[index], attempt.step() {
            guard text.utf8.count + part.utf8.count <= JavaScriptTokenizer.maxStringBytes else { return nil }
            text += part
            index += 1
            guard index < tokens.count, tokens[index] == .punctuator(UInt8(ascii: "+")) else { break }
            index += 1
        }
        let ends: [Token] = [.punctuator(UInt8(ascii: ",")), .punctuator(UInt8(ascii: "}")), .punctuator(UInt8(ascii: "]"))]
        guard index >= tokens.count || ends.contains(tokens[index]) else { return nil }
        return (text, index)
    }

    /// The index of the `,` or closing bracket that ends the value starting at `start` (its
    /// own brackets balanced); nil when the source ends first, a `;` ends the statement, or
    /// brackets nest deeper than `maxDepth` (which bounds the work a failed attempt costs).
    private func skipValue(from start: Int, attempt: inout Attempt) -> Int? {
        var depth = 0
        var index = start
        while index < tokens.count, attempt.step() {
            if case .punctuator(let character) = tokens[index] {
                switch character {
                case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "("):
                    depth += 1
                    if depth > Self.maxDepth { return nil }
                case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"):
                    if depth == 0 { return index }
                    depth -= 1
                case UInt8(ascii: ","):
                    if depth == 0 { return index }
                case UInt8(ascii: ";"):
                    if depth == 0 { return nil }
                default: break
                }
            }
            index += 1
        }
        return nil
    }
}

extension JSONValue {
    /// True for an object or array holding at least one string (what could name an image).
    var hasContent: Bool {
        switch self {
        case .string: true
        case .array(let elements): elements.contains { $0.hasContent }
        case .object(let members): members.contains { $0.value.hasContent }
        default: false
        }
    }
}
