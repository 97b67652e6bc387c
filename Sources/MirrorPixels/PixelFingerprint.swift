/// The perceptual signature of an image's pixels (manifest `fingerprint`): what the matcher
/// compares to tell renditions of one photo from different photos.
///
/// Two parts, as image-deduplication tools combine them (imagehash's difference hash, czkawka's
/// colour checks), since neither alone separates real photographs:
/// - a 256-bit **difference hash**: the image's luminance averaged over 17 × 16 cells, one bit
///   for each pair of horizontal neighbours (set when the right cell is brighter). It sees the
///   structure and ignores colour and exposure. A 64-bit (9 × 8) hash put a thumbnail of a dark
///   photo within 3 bits of a different photo; 256 bits separate them.
/// - a **colour layout**: the mean R, G, B of a 4 × 4 grid (48 bytes). It sees what a hash
///   cannot: two crops of different photos with similar edges differ in colour.
///
/// As text (`hex`): the hash's 32 bytes, then the grid's 48, in lower-case hex (160 digits).
package struct PixelFingerprint: Sendable, Hashable {
    /// The difference hash, 4 words, row-major bits.
    package var hash: [UInt64]
    /// Mean R, G, B of 4 × 4 cells, row-major.
    package var grid: [UInt8]

    package static let hashColumns = 17
    package static let hashRows = 16
    package static let gridSide = 4

    package init(hash: [UInt64], grid: [UInt8]) {
        self.hash = hash
        self.grid = grid
    }

    /// Reads the form `hex` writes; nil for anything else (a fingerprint of another version).
    package init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 160 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(80)
        var index = 0
        while index < digits.count {
            guard let high = Self.value(of: digits[index]), let low = Self.value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        hash = (0..<4).map { word in (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[word * 8 + $1]) } }
        grid = Array(bytes[32...])
    }

    /// 160 lower-case hex digits: the hash (big-endian words), then the grid.
    package var hex: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(80)
        for word in hash { for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) } }
        bytes += grid
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(160)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The share of the hash's 256 bits that differ: 0 for the same structure, about 0.5 for
    /// unrelated images.
    package func hashDistance(to other: PixelFingerprint) -> Double {
        var bits = 0
        for index in 0..<min(hash.count, other.hash.count) { bits += (hash[index] ^ other.hash[index]).nonzeroBitCount }
        return Double(bits) / Double(Self.hashColumns - 1) / Double(Self.hashRows)
    }

    /// The mean absolute difference of the colour layouts, from 0 (the same) to 1.
    package func colourDistance(to other: PixelFingerprint) -> Double {
        var total = 0
        for index in 0..<min(grid.count, other.grid.count) { total += abs(Int(grid[index]) - Int(other.grid[index])) }
        return Double(total) / 255 / Double(max(grid.count, 1))
    }

    private static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
