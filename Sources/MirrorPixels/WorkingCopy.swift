import CPixels
import MirrorCore

/// An image decoded into a small RGB copy (at most `WorkingCopy.side` pixels on its longer
/// side; a large JPEG from half that, as far as its DCT scales), the only form in which the
/// pixel matcher sees a photo.
///
/// Decoded by libjpeg-turbo, libpng, giflib or libwebp (`CPixels`), at reduced scale where the
/// format allows it: a JPEG through its DCT scaling (1/8 of each side at most), a WebP through
/// libwebp's scaled decode; a PNG or a GIF whole, then averaged down.
package struct WorkingCopy: Sendable {
    /// The image's own size in pixels.
    package let fullWidth: Int
    package let fullHeight: Int
    /// The copy's size.
    package let width: Int
    package let height: Int
    /// `width` × `height` pixels of R, G, B.
    package let rgb: [UInt8]

    /// The longer side of a working copy: enough for a 17×16 difference hash of a crop that
    /// covers half of the photo, and small enough that a copy is 192 KB at most.
    package static let side = 256
    /// The largest image decoded whole (PNG, GIF): 100 megapixels, 300 MB of RGB for a moment.
    package static let maxPixelsDecodedWhole: Int64 = 100_000_000

    /// Its summed-area tables, made once: every region the matcher tries reads them.
    let sums: AreaSums

    package init(fullWidth: Int, fullHeight: Int, width: Int, height: Int, rgb: [UInt8]) {
        (self.fullWidth, self.fullHeight, self.width, self.height, self.rgb) = (fullWidth, fullHeight, width, height, rgb)
        sums = AreaSums(width: width, height: height, rgb: rgb)
    }

    /// Why a file could not be decoded, in one line.
    package struct DecodeError: Error, Sendable, CustomStringConvertible {
        /// The file is of a format the matcher does not read (SVG, AVIF, TIFF...), not a broken one.
        package let isUnsupported: Bool
        package let description: String
    }

    /// Decodes the file at `path`. Blocks its thread: call it through `BlockingWork`.
    package static func decode(path: String) throws(DecodeError) -> WorkingCopy {
        var pixels = cm_pixels()
        var message = [CChar](repeating: 0, count: 200)
        let status = cm_decode_file(path, Int32(side), maxPixelsDecodedWhole, &pixels, &message, message.count)
        guard status == 0, let rgb = pixels.rgb else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw DecodeError(isUnsupported: status == -1, description: text.isEmpty ? "cannot be decoded" : text)
        }
        defer { cm_pixels_free(&pixels) }
        let (width, height) = (Int(pixels.width), Int(pixels.height))
        return WorkingCopy(
            fullWidth: Int(pixels.full_width), fullHeight: Int(pixels.full_height), width: width, height: height,
            rgb: Array(UnsafeBufferPointer(start: rgb, count: width * height * 3)))
    }
}
