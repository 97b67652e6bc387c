/// The perceptual signature of an image's pixels (manifest `fingerprint`): what the matcher
/// compares to tell renditions of one photo from different photos.
///
/// Two parts, as image-deduplication tools combine them (imagehash's difference hash, czkawka's
/// colour checks), since neither alone separates real photographs:
/// - a 256-bit **difference hash**: the image's luminance averaged over 17 × 16 cells, one bit
///   for each pair of horizontal neighbours (set when the right cell is brighter). It sees the
///   structure and ignores colour and exposure. A 64-bit (9 × 8) hash put a thumbnail of a dark
///   photo within 3 bits of a different photo; 256 bits separate them. Beside it, 256 bits that
///   say which neighbours differ by more than `flatStep` of luminance: in a flat area (a clear
///   sky, a studio backdrop, a drawn gradient) the hash's bits are the encoder's noise, and two
///   renditions of one photo would differ there at random. A bit counts only where both say it
///   is significant; where one does and the other does not, half.
/// - a **colour layout**: the mean R, G, B of a 4 × 4 grid (48 bytes). It sees what a hash
///   cannot: two crops of different photos with similar edges differ in colour.
///
/// As text (`hex`): the hash's 32 bytes, the significance's 32, then the grid's 48, in
/// lower-case hex (224 digits).
package struct PixelFingerprint: Sendable, Hashable {
    /// The difference hash, 4 words, row-major bits.
    package var hash: [UInt64]
    /// Which of the hash's bits are significant: the neighbours differ by more than `flatStep`.
    package var significant: [UInt64]
    /// Mean R, G, B of 4 × 4 cells, row-major.
    package var grid: [UInt8]

    package static let hashColumns = 17
    package static let hashRows = 16
    package static let gridSide = 4
    /// The smallest difference of mean luminance (0–255) between neighbouring cells that the
    /// hash takes as an edge: above what re-encoding and rescaling move a cell's mean.
    package static let flatStep = 2.0

    package init(hash: [UInt64], significant: [UInt64], grid: [UInt8]) {
        self.hash = hash
        self.significant = significant
        self.grid = grid
    }

    /// Reads the form `hex` writes; nil for anything else (a fingerprint of another version).
    package init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 224 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(112)
        var index = 0
        while index < digits.count {
            guard let high = Self.value(of: digits[index]), let low = Self.value(of: digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        hash = (0..<4).map { word in (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[word * 8 + $1]) } }
        significant = (4..<8).map { word in (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[word * 8 + $1]) } }
        grid = Array(bytes[64...])
    }

    /// 224 lower-case hex digits: the hash and its significance (big-endian words), then the grid.
    package var hex: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(112)
        for word in hash + significant {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        bytes += grid
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(224)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The share of the hash's 256 bits that differ: 0 for the same structure, about 0.5 for
    /// unrelated images. A bit significant in both counts when the directions differ; one
    /// significant in only one image counts half (an edge one rendition shows and the other
    /// has lost to flatness); one flat in both does not count.
    package func hashDistance(to other: PixelFingerprint) -> Double {
        var halves = 0
        for index in 0..<min(hash.count, other.hash.count) {
            let both = significant[index] & other.significant[index]
            halves += 2 * ((hash[index] ^ other.hash[index]) & both).nonzeroBitCount
            halves += (significant[index] ^ other.significant[index]).nonzeroBitCount
        }
        return Double(halves) / 2 / Double(Self.hashColumns - 1) / Double(Self.hashRows)
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
