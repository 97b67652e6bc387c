import Foundation
import Testing

@testable import MirrorCore

@Suite("JSONStream: long lists written into the encoder's skeleton")
struct JSONStreamTests {
    struct Entry: Codable, Equatable {
        var name: String
        var later: [Int] = []
    }

    /// Two lists at the top, and before them an empty list named as the second one, one level
    /// down, which must not be taken for its place.
    struct Value: Codable, Equatable {
        var alpha = Entry(name: "first")
        var early: [Entry]
        var later: [Entry]
        var zeta = "after \"both\" lists\n"
    }

    /// One entry as the encoder writes it inside a top-level list.
    static func write(_ entry: Entry, into out: inout [UInt8]) {
        out.append(contentsOf: "    {\n      \"later\" : [\n\n      ],\n      \"name\" : ".utf8)
        JSONText.appendQuoted(entry.name, to: &out)
        out.append(contentsOf: "\n    }".utf8)
    }

    static func stream(_ value: Value, skeleton: Value) throws -> (bytes: Data, pieces: Int) {
        var bytes = Data()
        var pieces = 0
        try JSONStream.write(
            skeleton: JSONCoding.encode(skeleton),
            filling: [
                JSONStream.List("early", indent: 2, elements: value.early),
                JSONStream.List("later", indent: 2, elements: value.later),
            ],
            element: Self.write(_:into:),
            whole: { try JSONCoding.encode(value) },
            into: { piece in
                pieces += 1
                bytes.append(contentsOf: piece)
            })
        return (bytes, pieces)
    }

    @Test("the lists are written as one encoder pass writes them, byte for byte", arguments: [0, 1, 3, 2000])
    func matchesEncoder(count: Int) throws {
        let entries = (0..<count).map { Entry(name: "entry \($0) \"é\" \u{1}/") }
        let value = Value(early: entries, later: Array(entries.prefix(2)))
        let (bytes, pieces) = try Self.stream(value, skeleton: Value(early: [], later: []))
        #expect(bytes == (try JSONCoding.encode(value)))
        if count >= 2000 { #expect(pieces > 4, "written in pieces, not whole") }
    }

    @Test("a list whose place the skeleton lacks is not dropped: the value is written whole")
    func missingPlace() throws {
        let value = Value(early: [Entry(name: "a")], later: [Entry(name: "b")])
        // A skeleton that still holds its lists has no empty place for them.
        let (bytes, pieces) = try Self.stream(value, skeleton: value)
        #expect(bytes == (try JSONCoding.encode(value)))
        #expect(pieces == 1)
    }
}
