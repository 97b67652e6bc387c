import Testing

@testable import MirrorPublish

/// `--max-delete`: the limit on what a publish may remove.
@Suite("Delete limits")
struct DeleteLimitTests {
    @Test(
        "delete limits parse and compare",
        arguments: [
            ("50%", 6, 12, true), ("50%", 7, 12, false), ("0", 0, 5, true), ("0", 1, 5, false), ("100%", 9, 9, true),
        ])
    func deleteLimit(text: String, deletions: Int, total: Int, allowed: Bool) throws {
        #expect(try #require(DeleteLimit(text)).allows(deletions, of: total) == allowed)
    }

    @Test("bad delete limits are refused")
    func badLimits() {
        for text in ["banana", "-1", "101%", "%", "", "5.5"] { #expect(DeleteLimit(text) == nil, "\(text)") }
    }
}
