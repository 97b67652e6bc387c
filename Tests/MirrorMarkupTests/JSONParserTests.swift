import Foundation
import Testing

@testable import MirrorMarkup

@Suite("JSON parser")
struct JSONParserTests {
    /// What Foundation's decoder makes of `text`, or nil when it refuses it.
    private func decoded(_ text: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text))
    }

    private func parsed(_ text: [UInt8]) -> JSONValue? {
        try? JSONParser().parse(text)
    }

    static let documents = [
        #"{"title": "A", "url": "img/a.jpg", "price": 12.50, "n": 3, "big": 12345678901234, "neg": -7, "e": 1e3, "f": -2.5E-3}"#,
        #"[{"b": 1, "a": 2, "a": 3}, [], {}, [[]], "x", true, false, null, 0, -0, 0.0, 1.0]"#,
        #"[1, 2,]"#, #"{"a": [1,], "b": {"c": 1,},}"#,
        #"{"esc": "quote \" backslash \\ slash \/ \b\f\n\r\t", "u": "\u00e9\u4e2d\uD83D\uDE00", "ascii": "\u0041"}"#,
        #"  {"nested": {"deeper": {"deepest": [1, [2, [3, {"k": "v"}]]]}}}  "#,
        #""just a string""#, "42", "-1.5", "true", "null", #"{"Z": 1, "a": 2, "É": 3, "b": 4, "": 5}"#,
        #"{"huge": 1e308, "tiny": 5e-324, "over": 123456789012345678901234567890, "frac": 0.1}"#,
        "\u{FEFF}{\"bom\": true}",
    ]

    @Test("gives the values Foundation's decoder gives", arguments: documents)
    func agreesWithDecoder(document: String) throws {
        let bytes = Array(document.utf8)
        let expected = try #require(decoded(bytes), "the decoder refuses \(document)")
        #expect(parsed(bytes) == expected)
    }

    @Test("gives the decoder's values for every JSON file of the test corpus and for generated documents")
    func agreesOnCorpus() throws {
        let fixtures = try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil))
        let files = (FileManager.default.enumerator(at: fixtures, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
            .filter { $0.pathExtension == "json" }
        #expect(!files.isEmpty)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            #expect(parsed(bytes) == decoded(bytes), "\(file.lastPathComponent)")
        }
        var generator = SeededGenerator(seed: 20_261_126)
        for _ in 0..<300 {
            let text = Array(Self.randomValue(depth: 0, using: &generator).utf8)
            let expected = decoded(text)
            #expect(expected != nil, "\(String(decoding: text, as: UTF8.self))")
            #expect(parsed(text) == expected, "\(String(decoding: text, as: UTF8.self))")
        }
    }

    @Test(
        "refuses what the decoder refuses",
        arguments: [
            "", " ", "[,]", "[1,,]", #"{,}"#, #"{"a":1,,}"#, "01", ".5", "1.", "+1", "1e", "-", "{a: 1}", "{'a': 1}", "[1 2]",
            #"{"a" 1}"#,
            "\"tab\there\"", #""\x41""#, #""\u12G4""#, #""open"#, "[1] x", "NaN", "Infinity", "tru", "nul", "[", "{", "]",
        ])
    func refusesWhatDecoderRefuses(text: String) {
        let bytes = Array(text.utf8)
        #expect(decoded(bytes) == nil, "the decoder reads \(text)")
        #expect(throws: JSONParser.Failure.self) { try JSONParser().parse(bytes) }
    }

    @Test("nesting: as deep as allowed is read, one level more is refused at once")
    func nesting() throws {
        let deep = { (levels: Int) in Array((String(repeating: "[", count: levels) + String(repeating: "]", count: levels)).utf8)
        }
        #expect(throws: Never.self) { try JSONParser(maxDepth: 256).parse(deep(256)) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser(maxDepth: 256).parse(deep(257)) }
        // Unclosed and a million levels deep: refused at level 257, not followed further.
        #expect(throws: JSONParser.Failure.self) { try JSONParser().parse(Array(repeating: UInt8(ascii: "["), count: 1_000_000)) }
    }

    @Test("forgives bytes that are not UTF-8 and lone surrogates: U+FFFD, not a refused document")
    func forgiving() throws {
        #expect(try JSONParser().parse([0x22, 0x61, 0xFF, 0x62, 0x22]) == .string("a\u{FFFD}b"))
        #expect(try JSONParser().parse(Array(#""\uD800x""#.utf8)) == .string("\u{FFFD}x"))
        #expect(try JSONParser().parse(Array(#""\uDC00\uD83D\uDE00""#.utf8)) == .string("\u{FFFD}😀"))
    }

    @Test("says where the text goes wrong, in one line")
    func failureNamesOffset() {
        do {
            _ = try JSONParser().parse(Array(#"{"a": [1, 2,, 3]}"#.utf8))
            Issue.record("a bad document was read")
        } catch {
            #expect(error.description == "an unexpected character at byte 12")
        }
    }

    // MARK: - Generated documents

    private static func randomValue(depth: Int, using generator: inout SeededGenerator) -> String {
        let choice = depth > 4 ? Int.random(in: 0..<5, using: &generator) : Int.random(in: 0..<7, using: &generator)
        switch choice {
        case 0: return randomString(using: &generator)
        case 1:
            let numbers = [
                "0", "-0", "7", "-12", "3.25", "1e5", "2E-2", "-0.5e+3", "9007199254740993", "18446744073709551616", "0.1",
            ]
            return numbers[Int.random(in: 0..<numbers.count, using: &generator)]
        case 2: return Bool.random(using: &generator) ? "true" : "false"
        case 3: return "null"
        case 4: return randomString(using: &generator)
        case 5:
            let count = Int.random(in: 0..<5, using: &generator)
            return "[" + (0..<count).map { _ in randomValue(depth: depth + 1, using: &generator) }.joined(separator: ", ") + "]"
        default:
            let count = Int.random(in: 0..<5, using: &generator)
            let members = (0..<count).map { _ in
                randomString(using: &generator) + ": " + randomValue(depth: depth + 1, using: &generator)
            }
            return "{" + members.joined(separator: ",\n ") + "}"
        }
    }

    private static func randomString(using generator: inout SeededGenerator) -> String {
        let pieces = [
            "a", "url", "img/p.jpg", " ", "é", "中", "😀", #"\""#, #"\\"#, #"\n"#, #"\u00e9"#, #"\uD83D\uDE00"#, #"\/"#, "title",
        ]
        let count = Int.random(in: 0..<5, using: &generator)
        return "\"" + (0..<count).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] }.joined() + "\""
    }
}

/// A deterministic random number generator (SplitMix64), so generated cases are the same every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
