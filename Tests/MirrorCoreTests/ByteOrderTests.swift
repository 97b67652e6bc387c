import Foundation
import Testing

@testable import MirrorCore

/// The byte order keys are sorted and compared in, the key filter, and trimming.
@Suite("Byte order, packed texts, the key filter")
struct ByteOrderTests {
    @Test("the key filter never forgets a key, and seldom claims one it was not given")
    func keyFilter() {
        var filter = KeyFilter()
        #expect(!filter.mayContain("http://h/0.png"))
        let inserted = (0..<10_000).map { "http://h/\($0).png" }
        for key in inserted { filter.insert(key) }
        #expect(inserted.allSatisfy { filter.mayContain($0) })
        // Three bits in 2^20 for 10,000 keys: about one in 30,000 (allowing thirty times that).
        let claimed = (0..<100_000).count { filter.mayContain("http://other/\($0).png") }
        #expect(claimed < 100)
    }

    @Test("byte order agrees with comparing the UTF-8 a byte at a time, for texts and byte slices alike")
    func byteOrder() {
        let texts = [
            "", "a", "ab", "abc", "b", "B", "a/b", "a%2F", "é", "e\u{301}", "z", "\u{1F600}", "ab\u{0}", "http://h/1.png",
        ]
        for a in texts {
            for b in texts {
                let (x, y) = (Array(a.utf8), Array(b.utf8))
                let slower = x.lexicographicallyPrecedes(y) ? -1 : (x == y ? 0 : 1)
                #expect(ByteOrder.compare(a.utf8, b.utf8).signum() == slower, "\(a) against \(b)")
                #expect(ByteOrder.compare(x[...], b.utf8).signum() == slower, "\(a) against \(b)")
                #expect(ByteOrder.precedes(x.dropFirst(0), y) == (slower < 0))
                #expect(ByteOrder.equal(a.utf8, y[...]) == (slower == 0))
            }
        }
        // Collections without contiguous storage take the slow path, with the same answers.
        #expect(ByteOrder.compare(Data([1, 2]).reversed(), [2, 1]) == 0)
        #expect(ByteOrder.compare(Data([1, 2]).reversed(), [2, 2]) < 0)
    }

    @Test("packed texts sort in byte order, equal ones by number")
    func packedByteOrder() {
        let texts = [
            "b", "", "a", "ab", "é", "a", "e\u{301}", "\u{1F600}", "ab\u{0}", "B", "http://h/2.png", "http://h/1.png", "a",
        ]
        var packed = PackedBytes()
        for text in texts { packed.append(text.utf8) }
        let expected = texts.indices.sorted { a, b in
            let (x, y) = (Array(texts[a].utf8), Array(texts[b].utf8))
            return x == y ? a < b : x.lexicographicallyPrecedes(y)
        }
        #expect(packed.byteOrder() == expected)
        #expect(PackedBytes().byteOrder().isEmpty)
    }

    @Test("white space is trimmed by Unicode scalars, inside text left alone")
    func trimming() {
        #expect(" \t\r\n a b \n".trimmingSpaces == "a b")
        #expect("\u{00A0}\u{2003}caf\u{00E9}\u{3000}".trimmingSpaces == "caf\u{00E9}")
        #expect("plain".trimmingSpaces == "plain")
        #expect(" \u{2028} ".trimmingSpaces == "")
        #expect("".trimmingSpaces == "")
        #expect("x; charset=utf-8".split(separator: ";")[1].trimmingSpaces == "charset=utf-8")
    }
}
