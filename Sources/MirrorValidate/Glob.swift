/// A path glob for `--include` / `--exclude`: `*` and `?` stay within one path segment, `**`
/// crosses segments (`/a/**/b` also matches `/a/b`). A pattern without a leading `/` may match
/// at any depth (`*.png` is `**/*.png`), as rclone and .gitignore users expect.
///
/// Hand-written because fnmatch(3) has no `**` and no maintained Swift package provides one.
struct Glob: Sendable, Equatable {
    /// The pattern as given.
    let pattern: String
    private let tokens: [Token]

    // Patterns and paths are compared scalar by scalar: as Characters, a "/" followed by a
    // combining mark would be one grapheme and "*" could cross the segment boundary.
    enum Token: Equatable {
        case literal(Unicode.Scalar)
        case anyInSegment  // *
        case anyOne  // ?
        case anyAcross  // **
        case anyDirectories  // **/ : zero or more whole segments
    }

    init(_ pattern: String) {
        self.pattern = pattern
        let anchored = pattern.hasPrefix("/") ? pattern : "/**/" + pattern
        var tokens: [Token] = []
        let chars = Array(anchored.unicodeScalars)
        var index = 0
        while index < chars.count {
            let char = chars[index]
            if char == "*" {
                if index + 1 < chars.count, chars[index + 1] == "*" {
                    var end = index + 2
                    while end < chars.count, chars[end] == "*" { end += 1 }  // *** is **
                    if end < chars.count, chars[end] == "/" {
                        tokens.append(.anyDirectories)
                        index = end + 1
                    } else {
                        tokens.append(.anyAcross)
                        index = end
                    }
                    continue
                }
                tokens.append(.anyInSegment)
            } else if char == "?" {
                tokens.append(.anyOne)
            } else {
                tokens.append(.literal(char))
            }
            index += 1
        }
        self.tokens = tokens
    }

    /// True when the whole `path` matches.
    func matches(_ path: String) -> Bool {
        let text = Array(path.unicodeScalars)
        let width = text.count + 1
        // memo[t * width + p]: 0 unknown, 1 false, 2 true; dynamic programming keeps hostile
        // patterns linear-ish. One flat table: a table of rows was an allocation a row per key.
        var memo = [UInt8](repeating: 0, count: (tokens.count + 1) * width)
        func match(_ t: Int, _ p: Int) -> Bool {
            let known = memo[t * width + p]
            if known != 0 { return known == 2 }
            let result: Bool
            if t == tokens.count {
                result = p == text.count
            } else {
                switch tokens[t] {
                case .literal(let char):
                    result = p < text.count && text[p] == char && match(t + 1, p + 1)
                case .anyOne:
                    result = p < text.count && text[p] != "/" && match(t + 1, p + 1)
                case .anyInSegment:
                    result = match(t + 1, p) || (p < text.count && text[p] != "/" && match(t, p + 1))
                case .anyAcross:
                    // `**` at the end matches whatever is left.
                    result = t + 1 == tokens.count || match(t + 1, p) || (p < text.count && match(t, p + 1))
                case .anyDirectories:
                    // Zero segments, or one segment plus its slash, repeated.
                    if match(t + 1, p) {
                        result = true
                    } else if let slash = text[p...].firstIndex(of: "/") {
                        result = match(t, slash + 1)
                    } else {
                        result = false
                    }
                }
            }
            memo[t * width + p] = result ? 2 : 1
            return result
        }
        return match(0, 0)
    }
}
