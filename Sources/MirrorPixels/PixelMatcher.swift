/// Decides whether a smaller image is a rendition of a larger one: the same photo, scaled,
/// re-encoded, or cut from it (a square thumbnail, a "smart" crop, a feed's zoomed crop).
///
/// The smaller image's whole frame is compared with regions of the larger that have its aspect
/// ratio: the largest such region (the whole frame when the aspect ratios agree, else a centred
/// or anchored crop), then smaller ones, down to 70 % of it (a crop that is also zoomed), each
/// at positions on a grid and then refined around the best. A pair matches when the best region
/// is close in both parts of the fingerprint (`PixelFingerprint`): the difference hash alone
/// lets a crop of one photo come as close to a different photo as true renditions come to each
/// other, and the colour layout alone is blind to structure.
package enum PixelMatcher {
    /// The largest share of differing hash bits between renditions of one photo. True
    /// renditions of real photographs came within 0.09 (re-encoded and rescaled) to 0.12 (a
    /// zoomed crop found on the search grid); different photos at least 0.19 apart whole, and
    /// crops of different photos as close as 0.09 (there the colour layout tells them apart).
    package static let hashLimit = 0.16
    /// The largest colour-layout distance between renditions: true pairs measured at most
    /// 0.012, the nearest different photos 0.06 and more (Tests/.../PixelMatcherTests).
    package static let colourLimit = 0.035

    /// How far apart two aspect ratios may be and still be one frame: a thumbnail's sides are
    /// rounded to whole pixels (150 × 113 of 4:3 is 1.3274, not 1.3333).
    package static let aspectTolerance = 0.02

    /// Whether two whole-frame fingerprints are of one photo.
    package static func matches(_ a: PixelFingerprint, _ b: PixelFingerprint) -> Bool {
        verdict(a, b, isCrop: false).isMatch
    }

    /// The verdict on one pair, with how close its best region came.
    package struct Comparison: Sendable, Equatable {
        package var isMatch: Bool
        /// Hash distance of the best region.
        package var hashDistance: Double
        /// Colour distance of the best region.
        package var colourDistance: Double
        /// Whether the best region was a crop of the larger image, not its whole frame.
        package var isCrop: Bool
    }

    /// Compares the two images: the smaller (by pixel area at full size) searched for in the
    /// larger, then, when that finds no match, the larger in the smaller (a square crop can
    /// have more pixels than a small thumbnail of the whole frame).
    package static func compare(_ first: WorkingCopy, _ second: WorkingCopy) -> Comparison {
        let (smaller, larger) =
            first.fullWidth * first.fullHeight <= second.fullWidth * second.fullHeight ? (first, second) : (second, first)
        let found = search(for: smaller, in: larger)
        guard !found.isMatch, !(smaller.width == larger.width && smaller.height == larger.height) else { return found }
        let reverse = search(for: larger, in: smaller)
        return reverse.isMatch || score(reverse) < score(found) ? reverse : found
    }

    /// Searches `image` for a region whose fingerprint matches `target`'s whole frame.
    private static func search(for target: WorkingCopy, in image: WorkingCopy) -> Comparison {
        let fingerprint = target.sums.fingerprint(x: 0, y: 0, width: Double(target.width), height: Double(target.height))
        return search(for: fingerprint, aspect: Double(target.fullWidth) / Double(max(target.fullHeight, 1)), in: image)
    }

    /// Compares a fingerprint known from an earlier run with an image's whole frame only (no
    /// crop search: that needs the smaller image's pixels, which a fingerprint does not hold).
    package static func compareWhole(_ fingerprint: PixelFingerprint, with image: WorkingCopy) -> Comparison {
        let whole = image.sums.fingerprint(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
        return verdict(fingerprint, whole, isCrop: false)
    }

    /// The fingerprint of `image`'s whole frame.
    package static func fingerprint(of image: WorkingCopy) -> PixelFingerprint {
        image.sums.fingerprint(x: 0, y: 0, width: Double(image.width), height: Double(image.height))
    }

    private static func verdict(_ a: PixelFingerprint, _ b: PixelFingerprint, isCrop: Bool) -> Comparison {
        let hash = a.hashDistance(to: b)
        let colour = a.colourDistance(to: b)
        return Comparison(
            isMatch: hash <= hashLimit && colour <= colourLimit, hashDistance: hash, colourDistance: colour, isCrop: isCrop)
    }

    /// How far a region is from the target: both distances, each against its own limit.
    private static func score(_ comparison: Comparison) -> Double {
        comparison.hashDistance / hashLimit + comparison.colourDistance / colourLimit
    }

    private static func search(for target: PixelFingerprint, aspect: Double, in image: WorkingCopy) -> Comparison {
        let sums = image.sums
        let (width, height) = (Double(image.width), Double(image.height))
        // The largest region of the target's aspect ratio that fits.
        let (baseWidth, baseHeight) = aspect > width / height ? (width, width / aspect) : (height * aspect, height)
        struct Region {
            var x: Double
            var y: Double
            var scale: Double
        }
        func clamped(_ region: Region) -> (x: Double, y: Double, width: Double, height: Double)? {
            let (regionWidth, regionHeight) = (baseWidth * region.scale, baseHeight * region.scale)
            guard regionWidth >= 4, regionHeight >= 4 else { return nil }
            return (
                min(max(region.x, 0), width - regionWidth), min(max(region.y, 0), height - regionHeight), regionWidth,
                regionHeight
            )
        }
        var best: (comparison: Comparison, region: Region)?
        func consider(_ region: Region) {
            guard let box = clamped(region) else { return }
            let isWhole = box.width >= width - 1 && box.height >= height - 1
            let comparison = verdict(
                target, sums.fingerprint(x: box.x, y: box.y, width: box.width, height: box.height), isCrop: !isWhole)
            if best.map({ score(comparison) < score($0.comparison) }) ?? true {
                best = (comparison, Region(x: box.x, y: box.y, scale: region.scale))
            }
        }
        // The whole region of the target's shape first: a rendition of the whole frame.
        consider(Region(x: (width - baseWidth) / 2, y: (height - baseHeight) / 2, scale: 1))
        if let best, best.comparison.isMatch, !best.comparison.isCrop { return best.comparison }
        // Coarse: 7 scales, each at up to 9 × 9 positions over the room it leaves, ranked by the
        // colour layout alone (a sixth of a fingerprint's reads); the few nearest in colour are
        // then compared whole.
        let steps = 8.0
        var ranked: [(distance: Double, region: Region)] = []
        for scale in stride(from: 1.0, through: 0.699, by: -0.05) {
            let (roomX, roomY) = (width - baseWidth * scale, height - baseHeight * scale)
            let columns = roomX < 1 ? 0 : Int(min(steps, roomX))
            let rows = roomY < 1 ? 0 : Int(min(steps, roomY))
            for row in 0...rows {
                for column in 0...columns {
                    let region = Region(
                        x: columns == 0 ? 0 : roomX * Double(column) / Double(columns),
                        y: rows == 0 ? 0 : roomY * Double(row) / Double(rows), scale: scale)
                    guard let box = clamped(region) else { continue }
                    let distance = sums.colourDistance(to: target.grid, x: box.x, y: box.y, width: box.width, height: box.height)
                    ranked.append((distance, region))
                }
            }
        }
        ranked.sort { $0.distance < $1.distance }
        for candidate in ranked.prefix(Self.coarseCandidates) { consider(candidate.region) }
        guard var current = best else {
            return Comparison(isMatch: false, hashDistance: 1, colourDistance: 1, isCrop: false)
        }
        // A best region far outside the limits is another photo: no refining brings it in.
        guard score(current.comparison) < Self.refinedScore else { return current.comparison }
        // Fine: around the best region, halving the step each round.
        var stepX = max(width - baseWidth * current.region.scale, 1) / steps
        var stepY = max(height - baseHeight * current.region.scale, 1) / steps
        var stepScale = 0.025
        for _ in 0..<3 {
            for dy in [-stepY, 0, stepY] {
                for dx in [-stepX, 0, stepX] {
                    for ds in [-stepScale, 0, stepScale] {
                        let scale = min(1, max(0.65, current.region.scale + ds))
                        consider(Region(x: current.region.x + dx, y: current.region.y + dy, scale: scale))
                    }
                }
            }
            if let found = best { current = found }
            stepX /= 2
            stepY /= 2
            stepScale /= 2
        }
        return current.comparison
    }

    /// How many of the coarse regions nearest in colour are compared whole.
    static let coarseCandidates = 8
    /// The score (`score`) past which the best coarse region is not refined: at four times
    /// the limits' sum, no true rendition measured came near it.
    static let refinedScore = 4.0
}

/// Summed-area tables of a working copy (luminance, R, G, B): the mean of any rectangle in four
/// reads, so the matcher's hundreds of candidate regions cost little more than one.
struct AreaSums: Sendable {
    let width: Int
    let height: Int
    /// (width + 1) × (height + 1) running sums, channels interleaved: luminance, R, G, B.
    private var sums: [Double]

    init(width: Int, height: Int, rgb pixels: [UInt8]) {
        self.width = width
        self.height = height
        let stride = width + 1
        sums = Array(repeating: 0, count: stride * (height + 1) * 4)
        pixels.withUnsafeBufferPointer { rgb in
            sums.withUnsafeMutableBufferPointer { table in
                for y in 0..<height {
                    var row: (Double, Double, Double, Double) = (0, 0, 0, 0)
                    for x in 0..<width {
                        let pixel = (y * width + x) * 3
                        let (r, g, b) = (Double(rgb[pixel]), Double(rgb[pixel + 1]), Double(rgb[pixel + 2]))
                        row.0 += 0.299 * r + 0.587 * g + 0.114 * b
                        row.1 += r
                        row.2 += g
                        row.3 += b
                        let above = (y * stride + x + 1) * 4
                        let here = ((y + 1) * stride + x + 1) * 4
                        table[here] = table[above] + row.0
                        table[here + 1] = table[above + 1] + row.1
                        table[here + 2] = table[above + 2] + row.2
                        table[here + 3] = table[above + 3] + row.3
                    }
                }
            }
        }
    }

    /// The mean of `channel` (0 luminance, 1–3 R, G, B) over the pixels a rectangle covers,
    /// rounded out to whole pixels, at least one.
    func mean(_ channel: Int, x0: Double, y0: Double, x1: Double, y1: Double) -> Double {
        var left = min(max(Int(x0.rounded()), 0), width - 1)
        var top = min(max(Int(y0.rounded()), 0), height - 1)
        let right = min(max(Int(x1.rounded()), left + 1), width)
        let bottom = min(max(Int(y1.rounded()), top + 1), height)
        left = min(left, right - 1)
        top = min(top, bottom - 1)
        let stride = width + 1
        let total =
            sums[(bottom * stride + right) * 4 + channel] - sums[(top * stride + right) * 4 + channel]
            - sums[(bottom * stride + left) * 4 + channel] + sums[(top * stride + left) * 4 + channel]
        return total / Double((right - left) * (bottom - top))
    }

    /// The mean absolute difference (0–1) between one region's 4 × 4 colour layout and `grid`,
    /// read without making the region's fingerprint.
    func colourDistance(to grid: [UInt8], x: Double, y: Double, width regionWidth: Double, height regionHeight: Double)
        -> Double
    {
        let side = PixelFingerprint.gridSide
        var total = 0.0
        var index = 0
        for row in 0..<side {
            let y0 = y + regionHeight * Double(row) / Double(side)
            let y1 = y + regionHeight * Double(row + 1) / Double(side)
            for column in 0..<side {
                let x0 = x + regionWidth * Double(column) / Double(side)
                let x1 = x + regionWidth * Double(column + 1) / Double(side)
                for channel in 1...3 {
                    guard index < grid.count else { break }
                    total += abs(mean(channel, x0: x0, y0: y0, x1: x1, y1: y1).rounded() - Double(grid[index]))
                    index += 1
                }
            }
        }
        return total / 255 / Double(max(grid.count, 1))
    }

    /// The fingerprint of one region.
    func fingerprint(x: Double, y: Double, width regionWidth: Double, height regionHeight: Double) -> PixelFingerprint {
        let columns = PixelFingerprint.hashColumns
        let rows = PixelFingerprint.hashRows
        var hash = [UInt64](repeating: 0, count: 4)
        var significant = [UInt64](repeating: 0, count: 4)
        var bit = 0
        var cells = [Double](repeating: 0, count: columns)
        for row in 0..<rows {
            let y0 = y + regionHeight * Double(row) / Double(rows)
            let y1 = y + regionHeight * Double(row + 1) / Double(rows)
            for column in 0..<columns {
                cells[column] = mean(
                    0, x0: x + regionWidth * Double(column) / Double(columns), y0: y0,
                    x1: x + regionWidth * Double(column + 1) / Double(columns), y1: y1)
            }
            for column in 0..<(columns - 1) {
                let mask = UInt64(1) << UInt64(63 - bit % 64)
                if cells[column + 1] > cells[column] { hash[bit / 64] |= mask }
                if abs(cells[column + 1] - cells[column]) > PixelFingerprint.flatStep { significant[bit / 64] |= mask }
                bit += 1
            }
        }
        let side = PixelFingerprint.gridSide
        var grid: [UInt8] = []
        grid.reserveCapacity(side * side * 3)
        for row in 0..<side {
            for column in 0..<side {
                let x0 = x + regionWidth * Double(column) / Double(side)
                let x1 = x + regionWidth * Double(column + 1) / Double(side)
                let y0 = y + regionHeight * Double(row) / Double(side)
                let y1 = y + regionHeight * Double(row + 1) / Double(side)
                for channel in 1...3 {
                    grid.append(UInt8(clamping: Int(mean(channel, x0: x0, y0: y0, x1: x1, y1: y1).rounded())))
                }
            }
        }
        return PixelFingerprint(hash: hash, significant: significant, grid: grid)
    }
}
