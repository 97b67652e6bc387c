import Foundation

/// The size in pixels an image is shown at, read from its header: what the generated site puts
/// in each `<img>`'s `width` and `height` (so the page does not move as images arrive) and in a
/// `srcset`'s `w` descriptors.
///
/// Read where the bytes are checked (`ContentInspector`, from the head kept while streaming and
/// a few small reads of the file), so a 304 never needs the bytes again: the store keeps it.
package struct ImageDimensions: Sendable, Equatable, Hashable {
    /// Pixels across, as shown (a JPEG's EXIF orientation applied).
    package var width: Int
    /// Pixels down, as shown.
    package var height: Int

    /// A size of `width` × `height` pixels.
    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The largest side a header may claim: anything above is taken as a broken or hostile
    /// header, not a size (the largest JPEG is 65,535 pixels a side; PNG's limit of 2^31 − 1
    /// is never met by an image a browser shows).
    static let largestSide = 1 << 20

    /// A size whose sides are both 1...`largestSide`; nil otherwise.
    package static func checked(width: Int, height: Int) -> ImageDimensions? {
        guard (1...largestSide).contains(width), (1...largestSide).contains(height) else { return nil }
        return ImageDimensions(width: width, height: height)
    }
}

/// Reads an image's pixel size from its header, for every format `ContentInspector` publishes.
///
/// Every read is bounded: a header that claims offsets past the end, loops, or sizes of zero
/// gives nil, never a crash or an endless walk.
package enum ImageHeader {
    /// How many JPEG segments are walked at most before the frame header.
    static let segmentLimit = 512
    /// The size of an image of `format`, `length` bytes long, whose first bytes are `head`;
    /// `read(offset, count)` returns bytes further in (a JPEG's frame header can follow a large
    /// EXIF block).
    package static func dimensions(
        _ format: ImageFormat, head: [UInt8], length: Int64, read: (Int64, Int) -> [UInt8]
    ) -> ImageDimensions? {
        withoutActuallyEscaping(read) { read in
            var bytes = HeaderBytes(head: head, length: length, read: read)
            switch format {
            case .png: return png(&bytes)
            case .jpeg: return jpeg(&bytes)
            case .gif: return gif(&bytes)
            case .webp: return webp(&bytes)
            case .avif: return avif(head)
            case .svg: return nil
            }
        }
    }

    /// The format and size of the image file at `path`, from its first 4 KB and a few more
    /// reads: what a row stored before sizes were kept gets on its next confirmation, without
    /// reading the whole file.
    package static func dimensions(ofFileAtPath path: String) -> ImageDimensions? {
        HeaderBytes.withFile(atPath: path, headLength: ContentInspector.headLength) { head, length, read in
            ContentInspector.detect(head).flatMap { dimensions($0, head: head, length: length, read: read) }
        } ?? nil
    }

    private typealias Bytes = HeaderBytes

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        HeaderBytes.bigEndian(bytes, offset, count)
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        HeaderBytes.littleEndian(bytes, offset, count)
    }

    // MARK: - PNG, GIF, WebP

    /// PNG: the IHDR chunk, which must come first (width and height, 4 bytes each, big-endian).
    private static func png(_ bytes: inout Bytes) -> ImageDimensions? {
        guard let header = bytes.slice(8, 16), header[4..<8].elementsEqual("IHDR".utf8) else { return nil }
        return .checked(width: bigEndian(header, 8, 4), height: bigEndian(header, 12, 4))
    }

    /// GIF: the logical screen's width and height (2 bytes each, little-endian) after the signature.
    private static func gif(_ bytes: inout Bytes) -> ImageDimensions? {
        guard let screen = bytes.slice(6, 4) else { return nil }
        return .checked(width: littleEndian(screen, 0, 2), height: littleEndian(screen, 2, 2))
    }

    /// WebP: the first chunk says which kind: `VP8 ` (lossy: the key frame's 14-bit sizes),
    /// `VP8L` (lossless: 14 bits each, minus one) or `VP8X` (extended: the canvas, 24 bits each,
    /// minus one).
    private static func webp(_ bytes: inout Bytes) -> ImageDimensions? {
        guard let chunk = bytes.slice(12, 4), let body = bytes.slice(20, 10) else { return nil }
        switch String(decoding: chunk, as: UTF8.self) {
        case "VP8 ":
            // A 3-byte frame tag, then the key frame's start code 9d 01 2a.
            guard body[3] == 0x9D, body[4] == 0x01, body[5] == 0x2A else { return nil }
            return .checked(width: littleEndian(body, 6, 2) & 0x3FFF, height: littleEndian(body, 8, 2) & 0x3FFF)
        case "VP8L":
            guard body[0] == 0x2F else { return nil }
            let bits = littleEndian(body, 1, 4)
            return .checked(width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1)
        case "VP8X":
            return .checked(width: littleEndian(body, 4, 3) + 1, height: littleEndian(body, 7, 3) + 1)
        default:
            return nil
        }
    }

    /// AVIF: the first image spatial extents (`ispe`) property in the head, the primary image's
    /// in the files encoders write (its `meta` box comes first and is small).
    private static func avif(_ head: [UInt8]) -> ImageDimensions? {
        let marker = Array("ispe".utf8)
        guard head.count >= 20 else { return nil }
        for start in 4..<(head.count - 15) where head[start..<start + 4].elementsEqual(marker) {
            return .checked(width: bigEndian(head, start + 8, 4), height: bigEndian(head, start + 12, 4))
        }
        return nil
    }

    // MARK: - JPEG

    /// JPEG: the segments are walked from the start to the first frame header (any SOF marker:
    /// baseline, extended, progressive, lossless, arithmetic), which holds the height and width;
    /// an EXIF orientation of 5 to 8 (a quarter turn) on the way swaps them, as browsers show
    /// the image turned.
    private static func jpeg(_ bytes: inout Bytes) -> ImageDimensions? {
        var offset: Int64 = 2
        var quarterTurn = false
        for _ in 0..<segmentLimit {
            // Markers may be preceded by any number of fill bytes (0xFF); a bounded run of them.
            guard bytes.byte(offset) == 0xFF else { return nil }
            var marker: UInt8 = 0xFF
            var fill = 0
            while marker == 0xFF {
                offset += 1
                fill += 1
                guard fill < 64, let next = bytes.byte(offset) else { return nil }
                marker = next
            }
            offset += 1
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7:
                continue  // no length: start of image, TEM, restart markers
            case 0xD9, 0xDA:
                return nil  // the end, or scan data, before any frame header
            default:
                break
            }
            guard let length = bytes.bigEndian(at: offset, 2) else { return nil }
            guard length >= 2 else { return nil }
            if isFrameHeader(marker) {
                guard length >= 7, let frame = bytes.slice(offset + 2, 5) else { return nil }
                let (height, width) = (bigEndian(frame, 1, 2), bigEndian(frame, 3, 2))
                return quarterTurn ? .checked(width: height, height: width) : .checked(width: width, height: height)
            }
            if marker == 0xE1, length >= 16, let segment = bytes.slice(offset + 2, min(length - 2, 64 * 1024)) {
                if let orientation = exifOrientation(segment) { quarterTurn = (5...8).contains(orientation) }
            }
            offset += Int64(length)
        }
        return nil
    }

    /// SOF0-SOF3, SOF5-SOF7, SOF9-SOF11, SOF13-SOF15 (not DHT C4, JPG C8 or DAC CC).
    static func isFrameHeader(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// The orientation tag (0x0112) of IFD0 of an APP1 segment's EXIF block (`Exif\0\0`, then a
    /// TIFF header in either byte order), or nil.
    static func exifOrientation(_ segment: [UInt8]) -> Int? {
        guard segment.count >= 14, segment[0..<6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) else { return nil }
        let tiff = Array(segment[6...])
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func number(_ offset: Int, _ count: Int) -> Int? {
            guard offset >= 0, offset + count <= tiff.count else { return nil }
            return little ? littleEndian(tiff, offset, count) : bigEndian(tiff, offset, count)
        }
        guard number(2, 2) == 42, let ifd = number(4, 4), let entries = number(ifd, 2) else { return nil }
        for entry in 0..<min(entries, 256) {
            let start = ifd + 2 + entry * 12
            guard let tag = number(start, 2) else { return nil }
            // SHORT (type 3), one value, held in the entry's first two value bytes.
            if tag == 0x0112, number(start + 2, 2) == 3, let value = number(start + 8, 2) { return value }
        }
        return nil
    }
}
