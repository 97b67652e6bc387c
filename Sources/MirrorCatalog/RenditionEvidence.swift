import MirrorCore

/// What the pixels said of the pairs of images the structure proposed as renditions of one
/// photo (`PhotoGroups`): the structure proposes, the pixels decide.
///
/// The engine fills it: it decodes the images of each proposed pair and compares them
/// (`MirrorPixels.PixelMatcher`). A pair whose pixels match joins; a pair whose pixels differ
/// is two photos, whatever the URLs and the layout say; a pair that could not be compared (an
/// image that failed, a format the matcher does not read) joins as the structure proposes, and
/// `--variants largest` keeps both.
package struct RenditionEvidence: Sendable {
    /// One pair, its keys in byte order.
    package struct Pair: Hashable, Sendable {
        package let first: CanonicalURL
        package let second: CanonicalURL

        package init(_ a: CanonicalURL, _ b: CanonicalURL) {
            (first, second) = a.string.utf8.lexicographicallyPrecedes(b.string.utf8) ? (a, b) : (b, a)
        }
    }

    /// The pixels' answer on a pair.
    package enum Answer: Sendable, Equatable {
        case match
        case differ
        /// Not compared: an image could not be decoded (a format the matcher does not read,
        /// a broken file).
        case unknown
        /// Not compared: an image is not in the store (rejected before it was loaded, failed,
        /// or a dry run). Joins as `unknown` does, and is not counted.
        case absent
    }

    private var answers: [Pair: Answer] = [:]
    /// The pixel size of each image decoded for a comparison.
    private var sizes: [CanonicalURL: Int] = [:]

    package init() {}

    /// Records the answer on the pair `a`, `b`.
    package mutating func record(_ answer: Answer, for a: CanonicalURL, _ b: CanonicalURL) {
        answers[Pair(a, b)] = answer
    }

    /// Records the size in pixels of an image decoded for a comparison.
    package mutating func record(width: Int, height: Int, of key: CanonicalURL) { sizes[key] = width * height }

    /// The area in pixels of `key`'s image, when it was decoded.
    package func pixelArea(of key: CanonicalURL) -> Int? { sizes[key] }

    /// The answer on `a`, `b`; nil when the pair was never put to the pixels.
    package func answer(_ a: CanonicalURL, _ b: CanonicalURL) -> Answer? { answers[Pair(a, b)] }

    /// The pairs given `answer`, in key order.
    package func pairs(answered answer: Answer) -> [Pair] {
        answers.filter { $0.value == answer }.keys.sorted {
            $0.first.string.utf8.lexicographicallyPrecedes($1.first.string.utf8)
                || ($0.first == $1.first && $0.second.string.utf8.lexicographicallyPrecedes($1.second.string.utf8))
        }
    }

    /// How many pairs matched, differed, and could not be compared.
    package var counts: (matched: Int, differed: Int, unknown: Int) { counts(leavingOut: []) }

    /// `counts`, leaving out the pairs of `left` that differ (an album cover compared with
    /// its album's photos is none of them, as expected).
    package func counts(leavingOut left: Set<Pair>) -> (matched: Int, differed: Int, unknown: Int) {
        var counts = (matched: 0, differed: 0, unknown: 0)
        for (pair, answer) in answers where !(answer == .differ && left.contains(pair)) {
            switch answer {
            case .match: counts.matched += 1
            case .differ: counts.differed += 1
            case .unknown: counts.unknown += 1
            case .absent: break
            }
        }
        return counts
    }
}
