import Testing

@testable import MirrorCore

@Suite("Byte-wise text search")
struct TextSearchTests {
    @Test("includes finds a needle anywhere, at either end, in a substring, and not across its end")
    func includes() {
        #expect("Image 900".includes(" "))
        #expect("a/b".includes("/"))
        #expect("fern.jpg".includes(".jpg"))
        #expect("fern.jpg".includes("fern.jpg"))
        #expect(!"fern.jp".includes(".jpg"))
        #expect(!"fern".includes("ferns"))
        #expect("anything".includes(""))
        #expect(!"".includes("x"))
        #expect("ab ab abc".includes("abc"))
        #expect("Été à Paris".includes("à P"))
        // A substring is searched within its own bounds only.
        let text = "one two three"
        let middle = text.dropFirst(4).prefix(3)
        #expect(middle.includes("two"))
        #expect(!middle.includes("three"))
        #expect(!middle.includes("one"))
    }
}
