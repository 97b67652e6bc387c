import Foundation
import MirrorBlocking
import MirrorCatalog
import MirrorCore
import MirrorPixels
import MirrorStore

/// Puts the pairs of images the structure proposed as renditions of one photo to their pixels
/// (`PhotoGroups.unjudged` → `RenditionEvidence`): only those pairs are decoded, never every
/// image of the run, so a catalog of photos with one rendition each decodes nothing.
///
/// Pairs are taken as stars (a key and every partner it has, most partners first): the
/// original a thumbnail, a display size and a crop are all compared with is decoded once. Stars
/// are decoded and compared on NIO's thread pool, as many at once as there are cores; only the
/// stars in flight hold working copies (192 KB each at most).
struct PixelJudge {
    let storage: DiskStorage
    /// What an earlier run's pixels said of pairs, with the bytes they said it of.
    let kept: [RenditionEvidence.Pair: PixelAnswer]
    /// Fetches an image the mirror's bucket holds and this disk does not (a worker that keeps
    /// no disk confirmed it without downloading it) into a file, checked against its SHA-256:
    /// how such an image is decoded when a pair asks for its pixels. Nil: no bucket.
    let fetchHeld: (@Sendable (_ path: String, _ sha256: String, _ file: URL) async -> Bool)?

    /// A judge with the answers the store kept from the last run.
    init(
        storage: DiskStorage, fetchHeld: (@Sendable (_ path: String, _ sha256: String, _ file: URL) async -> Bool)? = nil
    ) async {
        self.storage = storage
        self.fetchHeld = fetchHeld
        var kept: [RenditionEvidence.Pair: PixelAnswer] = [:]
        for answer in await storage.previousPixelAnswers() {
            guard let first = CanonicalURL(answer.first), let second = CanonicalURL(answer.second) else { continue }
            kept[RenditionEvidence.Pair(first, second)] = answer
        }
        self.kept = kept
    }

    /// Compares every pair of `pairs`, records the answers in `evidence`, and keeps each decoded
    /// image's fingerprint in the store (`StoredImage.fingerprint`), from which the next run
    /// compares whole frames without decoding. Returns the answers to keep for the next run
    /// (`DiskStorage.keepPixelAnswers`, once every round is judged).
    func judge(_ pairs: [RenditionEvidence.Pair], into evidence: inout RenditionEvidence) async -> [PixelAnswer] {
        let keys = Array(Set(pairs.flatMap { [$0.first, $0.second] }))
        var images: [CanonicalURL: Image] = [:]
        for start in stride(from: 0, to: keys.count, by: 512) {
            let batch = Array(keys[start..<min(start + 512, keys.count)])
            guard let rows = try? await storage.records(batch) else { continue }
            for (key, row) in zip(batch, rows) {
                guard let row else { continue }
                let file =
                    row.stagedName.map { storage.layout.staged.appendingPathComponent($0) }
                    ?? storage.layout.file(atRelativePath: row.path)
                images[key] = Image(
                    file: file, sha256: row.sha256, fingerprint: row.fingerprint.flatMap(PixelFingerprint.init(hex:)),
                    dimensions: row.dimensions,
                    held: row.stagedName == nil && storage.copies.holds(row) ? row.path : nil)
            }
        }
        // What an earlier run's pixels said of a pair whose bytes have not changed since
        // (`kept`) answers it; every answer given is kept for the next run.
        var answers: [PixelAnswer] = []
        func keep(_ pair: RenditionEvidence.Pair, matches: Bool) {
            guard let first = images[pair.first], let second = images[pair.second] else { return }
            answers.append(
                PixelAnswer(
                    first: pair.first.string, second: pair.second.string, firstSHA256: first.sha256,
                    secondSHA256: second.sha256, matches: matches))
        }
        // Whole frames whose fingerprints an earlier run kept: compared without decoding.
        var open: [RenditionEvidence.Pair] = []
        for pair in pairs {
            // An image the store does not hold (rejected before it was loaded, failed, a dry
            // run) is compared with nothing.
            guard images[pair.first] != nil, images[pair.second] != nil else {
                evidence.record(.absent, for: pair.first, pair.second)
                continue
            }
            if let answer = kept[pair], answer.firstSHA256 == images[pair.first]?.sha256,
                answer.secondSHA256 == images[pair.second]?.sha256
            {
                evidence.record(answer.matches ? .match : .differ, for: pair.first, pair.second)
                keep(pair, matches: answer.matches)
                for key in [pair.first, pair.second] {
                    if let size = images[key]?.dimensions { evidence.record(width: size.width, height: size.height, of: key) }
                }
            } else if let first = images[pair.first], let second = images[pair.second], Self.matchWhole(first, second) {
                evidence.record(.match, for: pair.first, pair.second)
                keep(pair, matches: true)
                for key in [pair.first, pair.second] {
                    if let size = images[key]?.dimensions { evidence.record(width: size.width, height: size.height, of: key) }
                }
            } else {
                open.append(pair)
            }
        }
        let stars = Self.stars(of: open)
        let fetched = await fetchHeldImages(in: stars, images: &images)
        defer { for file in fetched { try? FileManager.default.removeItem(at: file) } }
        let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var computed: [(key: CanonicalURL, sha256: String, fingerprint: String)] = []
        await withTaskGroup(of: StarResult.self) { group in
            var next = 0
            func start() {
                guard next < stars.count else { return }
                let star = stars[next]
                next += 1
                let center = images[star.center]?.file
                let partners = star.partners.map { ($0, images[$0]?.file) }
                group.addTask { await Self.judge(center: star.center, file: center, partners: partners) }
            }
            for _ in 0..<width { start() }
            for await result in group {
                for (partner, answer) in result.answers {
                    evidence.record(answer, for: result.center, partner)
                    if answer == .match || answer == .differ {
                        keep(RenditionEvidence.Pair(result.center, partner), matches: answer == .match)
                    }
                }
                for (key, size) in result.sizes { evidence.record(width: size.width, height: size.height, of: key) }
                for (key, fingerprint) in result.fingerprints {
                    guard let image = images[key], image.fingerprint != fingerprint else { continue }
                    computed.append((key, image.sha256, fingerprint.hex))
                }
                start()
            }
        }
        // A signature or an answer that cannot be kept is worked out again next time.
        try? await storage.keepFingerprints(computed)
        return answers
    }

    /// Brings the images of `stars` that only the bucket holds into `tmp/` (`fetchHeld`), and
    /// points their `file` there; returns the files, to be removed once the stars are judged.
    /// An image that cannot be fetched is compared as one that cannot be decoded (`unknown`).
    private func fetchHeldImages(in stars: [Star], images: inout [CanonicalURL: Image]) async -> [URL] {
        guard let fetchHeld else { return [] }
        var fetched: [URL] = []
        for key in Set(stars.flatMap { [$0.center] + $0.partners }) {
            guard let image = images[key], let path = image.held, let file = image.file,
                !FileManager.default.fileExists(atPath: file.path)
            else { continue }
            let copy = storage.layout.temporary.appendingPathComponent("held-" + image.sha256)
            guard await fetchHeld(path, image.sha256, copy) else { continue }
            images[key]?.file = copy
            fetched.append(copy)
        }
        return fetched
    }

    /// What the store says of one image of a pair.
    struct Image {
        var file: URL?
        var sha256: String
        var fingerprint: PixelFingerprint?
        var dimensions: ImageDimensions?
        /// The image's path in the mirror's bucket, when the bucket holds it (its file may not
        /// be on this disk: `fetchHeldImages`).
        var held: String? = nil
    }

    /// Whether two images' kept fingerprints match as whole frames, their aspect ratios agreeing.
    private static func matchWhole(_ a: Image, _ b: Image) -> Bool {
        guard let fingerprintA = a.fingerprint, let fingerprintB = b.fingerprint, let sizeA = a.dimensions,
            let sizeB = b.dimensions, sizeA.width > 0, sizeA.height > 0, sizeB.width > 0, sizeB.height > 0
        else { return false }
        let ratio = Double(sizeA.width * sizeB.height) / Double(sizeB.width * sizeA.height)
        guard abs(ratio - 1) < PixelMatcher.aspectTolerance else { return false }
        return PixelMatcher.matches(fingerprintA, fingerprintB)
    }

    /// One key and the keys it is to be compared with.
    struct Star: Sendable {
        var center: CanonicalURL
        var partners: [CanonicalURL]
    }

    struct StarResult: Sendable {
        var center: CanonicalURL
        var answers: [(CanonicalURL, RenditionEvidence.Answer)] = []
        var fingerprints: [CanonicalURL: PixelFingerprint] = [:]
        var sizes: [CanonicalURL: (width: Int, height: Int)] = [:]
    }

    /// `pairs` as stars: the key with the most partners takes all of its pairs, then the next.
    static func stars(of pairs: [RenditionEvidence.Pair]) -> [Star] {
        var partners: [CanonicalURL: [CanonicalURL]] = [:]
        for pair in pairs {
            partners[pair.first, default: []].append(pair.second)
            partners[pair.second, default: []].append(pair.first)
        }
        let order = partners.keys.sorted { a, b in
            let (countA, countB) = (partners[a]?.count ?? 0, partners[b]?.count ?? 0)
            return countA != countB ? countA > countB : a.string.utf8.lexicographicallyPrecedes(b.string.utf8)
        }
        var taken: Set<RenditionEvidence.Pair> = []
        var stars: [Star] = []
        for center in order {
            let open = (partners[center] ?? []).filter { taken.insert(RenditionEvidence.Pair(center, $0)).inserted }
            if !open.isEmpty { stars.append(Star(center: center, partners: open)) }
        }
        return stars
    }

    /// Decodes `center` once and each partner, and compares them, on the thread pool.
    private static func judge(center: CanonicalURL, file: URL?, partners: [(CanonicalURL, URL?)]) async -> StarResult {
        await BlockingWork.run { () -> StarResult in
            var result = StarResult(center: center)
            func decode(_ key: CanonicalURL, _ file: URL?) -> WorkingCopy? {
                guard let file, let copy = try? WorkingCopy.decode(path: file.path) else { return nil }
                result.fingerprints[key] = PixelMatcher.fingerprint(of: copy)
                result.sizes[key] = (copy.fullWidth, copy.fullHeight)
                return copy
            }
            let centerCopy = decode(center, file)
            for (partner, partnerFile) in partners {
                guard let centerCopy, let copy = decode(partner, partnerFile) else {
                    result.answers.append((partner, .unknown))
                    continue
                }
                result.answers.append((partner, PixelMatcher.compare(centerCopy, copy).isMatch ? .match : .differ))
            }
            return result
        }
    }
}
