import Foundation
import Testing

@testable import MirrorPixels

/// The matcher on real photographs (Fixtures/README.md says what each file is and how
/// Fixtures/make.py made it): resized, re-encoded, centre-, smart- and zoom-cropped renditions
/// of six photos, a flat and a very dark one among them, against each other and against
/// renditions of the other photos.
@Suite("A photo is its pixels: the matcher on real photographs")
struct PixelMatcherTests {
    struct Pairs: Decodable {
        struct Pair: Decodable {
            var small: String
            var large: String
            var kind: String?
        }
        var pairs: [Pair]
        var different: [Pair]
    }

    static let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)

    static func load() throws -> (Pairs, (String) throws -> WorkingCopy) {
        let folder = try #require(fixtures)
        let pairs = try JSONDecoder().decode(Pairs.self, from: Data(contentsOf: folder.appendingPathComponent("pairs.json")))
        return (pairs, { name in try WorkingCopy.decode(path: folder.appendingPathComponent(name).path) })
    }

    /// How close a comparison came to its limits: at most 1 when both parts are within them.
    static func closeness(_ comparison: PixelMatcher.Comparison) -> Double {
        max(comparison.hashDistance / PixelMatcher.hashLimit, comparison.colourDistance / PixelMatcher.colourLimit)
    }

    @Test("every true rendition matches, no different photo does, with a margin between them")
    func separatesRenditionsFromOtherPhotos() throws {
        let (pairs, decode) = try Self.load()
        #expect(pairs.pairs.count >= 30 && pairs.different.count >= 30)
        var farthestTrue = (closeness: 0.0, pair: "")
        for pair in pairs.pairs {
            let comparison = PixelMatcher.compare(try decode(pair.small), try decode(pair.large))
            #expect(comparison.isMatch, "\(pair.small) is a \(pair.kind ?? "") rendition of \(pair.large): \(comparison)")
            let closeness = Self.closeness(comparison)
            if closeness > farthestTrue.closeness { farthestTrue = (closeness, "\(pair.small) ~ \(pair.large)") }
        }
        var nearestFalse = (closeness: Double.infinity, pair: "")
        for pair in pairs.different {
            let comparison = PixelMatcher.compare(try decode(pair.small), try decode(pair.large))
            #expect(!comparison.isMatch, "\(pair.small) is not \(pair.large): \(comparison)")
            let closeness = Self.closeness(comparison)
            if closeness < nearestFalse.closeness { nearestFalse = (closeness, "\(pair.small) ~ \(pair.large)") }
        }
        // The limits sit in a gap, not on an edge: the farthest true pair is well inside them,
        // the nearest different photo well outside.
        #expect(
            farthestTrue.closeness < 0.75 && nearestFalse.closeness > 1.5,
            "farthest true \(farthestTrue), nearest false \(nearestFalse)")
        print("pixel matcher: farthest true pair \(farthestTrue), nearest different pair \(nearestFalse)")
    }

    @Test("a fingerprint survives its text, and two whole frames compare from their fingerprints alone")
    func fingerprints() throws {
        let (_, decode) = try Self.load()
        let photo = PixelMatcher.fingerprint(of: try decode("ladybird.jpg"))
        let resized = PixelMatcher.fingerprint(of: try decode("ladybird-resized.jpg"))
        let other = PixelMatcher.fingerprint(of: try decode("picos-resized.jpg"))
        #expect(photo.hex.count == 224)
        #expect(PixelFingerprint(hex: photo.hex) == photo)
        #expect(PixelFingerprint(hex: String(photo.hex.dropLast())) == nil)
        #expect(PixelFingerprint(hex: String(repeating: "g", count: 224)) == nil)
        #expect(PixelMatcher.matches(photo, resized))
        #expect(!PixelMatcher.matches(photo, other))
    }

    @Test("the decoder reads JPEG, WebP, PNG and GIF at reduced size, and says why it cannot read a file")
    func decoder() throws {
        let (_, decode) = try Self.load()
        let jpeg = try decode("picos.jpg")
        #expect((jpeg.fullWidth, jpeg.fullHeight) == (480, 360))
        // A JPEG is scaled in its DCT as far as half the working copy's side (480 → 240), a WebP
        // to the side itself.
        #expect((jpeg.width, jpeg.height) == (240, 180) && jpeg.rgb.count == jpeg.width * jpeg.height * 3)
        let webp = try decode("picos-reencoded.webp")
        #expect((webp.fullWidth, webp.fullHeight, webp.width, webp.height) == (480, 360, WorkingCopy.side, 192))
        let small = try decode("picos-resized.jpg")
        #expect((small.width, small.height) == (160, 120))
        // The same rendition as PNG and as a 256-colour GIF (convert picos-resized.jpg …).
        for name in ["picos-resized.png", "picos-resized.gif"] {
            let copy = try decode(name)
            #expect((copy.fullWidth, copy.fullHeight) == (160, 120), "\(name)")
            #expect(PixelMatcher.compare(copy, jpeg).isMatch, "\(name)")
            #expect(!PixelMatcher.compare(copy, try decode("wood.jpg")).isMatch, "\(name)")
        }
        // A file that is no image, and a truncated JPEG: one line each, no crash.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pixels-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let text = folder.appendingPathComponent("note.jpg")
        try Data("not an image".utf8).write(to: text)
        #expect(throws: WorkingCopy.DecodeError.self) { try WorkingCopy.decode(path: text.path) }
        let source = try #require(Self.fixtures).appendingPathComponent("picos.jpg")
        let truncated = folder.appendingPathComponent("cut.jpg")
        try Data(try Data(contentsOf: source).prefix(600)).write(to: truncated)
        do {
            _ = try WorkingCopy.decode(path: truncated.path)
        } catch {
            #expect(!error.isUnsupported && !error.description.isEmpty)
        }
        #expect(throws: WorkingCopy.DecodeError.self) { try WorkingCopy.decode(path: folder.appendingPathComponent("none").path) }
    }
}
