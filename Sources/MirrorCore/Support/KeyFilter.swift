/// A Bloom filter of texts: `mayContain` is false only for a text never inserted. The store uses
/// it to know, without a query, that a key has no row yet or that a file name is free
/// (`RowIndex.rows(ofLookedUp:)`, `FileNames.freeName`).
///
/// Written here because it is twenty lines over a bit array; the Swift packages this project
/// may use have none. 2^20 bits (128 KB) and three bits a text: at 100,000 texts about one
/// text in sixty not inserted is answered "maybe" (and then looked up), at 10,000 one in
/// 30,000. Hashed with the standard library's per-process seed: never stored.
package struct KeyFilter: Sendable {
    private static let bitCount = 1 << 20
    private static let bitsPerText = 3
    private var words: [UInt64] = []

    package init() {}

    package mutating func insert(_ text: String) {
        if words.isEmpty { words = [UInt64](repeating: 0, count: Self.bitCount / 64) }
        let (first, step) = Self.hashes(text)
        for index in 0..<Self.bitsPerText {
            let bit = (first &+ index &* step) & (Self.bitCount - 1)
            words[bit >> 6] |= 1 << UInt64(bit & 63)
        }
    }

    package func mayContain(_ text: String) -> Bool {
        guard !words.isEmpty else { return false }
        let (first, step) = Self.hashes(text)
        for index in 0..<Self.bitsPerText {
            let bit = (first &+ index &* step) & (Self.bitCount - 1)
            if words[bit >> 6] & (1 << UInt64(bit & 63)) == 0 { return false }
        }
        return true
    }

    /// The text's bits are `first + i·step` (double hashing), both halves of one 64-bit hash.
    private static func hashes(_ text: String) -> (first: Int, step: Int) {
        var hasher = Hasher()
        hasher.combine(text)
        let hash = UInt64(bitPattern: Int64(hasher.finalize()))
        return (Int(truncatingIfNeeded: hash & 0xFFFF_FFFF), Int(truncatingIfNeeded: hash >> 32) | 1)
    }
}
