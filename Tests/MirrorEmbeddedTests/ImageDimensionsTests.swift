import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorEmbedded
@testable import SampleGallery

/// Issue 26: the pixel size of every stored image, read from its header (the grid's `width` and
/// `height`, the `srcset`'s `w`), hostile headers included.
@Suite("Image dimensions")
struct ImageDimensionsTests {
    /// The size `ImageHeader` reads from `bytes`, with only the first `head` bytes in memory
    /// (as while streaming) and the rest read on demand.
    func size(_ bytes: [UInt8], head: Int = ContentInspector.headLength) -> ImageDimensions? {
        guard let format = ContentInspector.detect(Array(bytes.prefix(head))) else { return nil }
        return ImageHeader.dimensions(format, head: Array(bytes.prefix(head)), length: Int64(bytes.count)) { offset, count in
            let start = Int(min(max(offset, 0), Int64(bytes.count)))
            return Array(bytes[start..<min(start + count, bytes.count)])
        }
    }

    func big16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    func big32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(value >> $0 & 0xFF) } }
    func little16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }

    /// A JPEG segment: marker, length, payload.
    func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] { [0xFF, marker] + big16(payload.count + 2) + payload }

    /// A frame header of `marker` for `width` × `height`, 3 components.
    func frame(_ marker: UInt8, width: Int, height: Int) -> [UInt8] {
        segment(marker, [8] + big16(height) + big16(width) + [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
    }

    /// An APP1 EXIF segment whose IFD0 holds an orientation, in either byte order.
    func exif(orientation: Int, littleEndian: Bool) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] { littleEndian ? little16(value) : big16(value) }
        func u32(_ value: Int) -> [UInt8] { littleEndian ? Array(big32(value).reversed()) : big32(value) }
        let tiff = (littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(8)
        let ifd =
            u16(2) + u16(0x010F) + u16(2) + u32(4) + u32(0)  // Make, to walk past
            + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0] + u32(0)
        return segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff + ifd)
    }

    func jpeg(_ segments: [UInt8]...) -> [UInt8] {
        [0xFF, 0xD8] + segments.flatMap { $0 } + segment(0xDA, [1, 1, 0, 0, 0x3F, 0]) + [1, 2, 3] + [0xFF, 0xD9]
    }

    let jfif: [UInt8] = [0xFF, 0xE0, 0, 16] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]

    @Test("the bundled sample PNG, JPEG and GIF files have the sizes they were made with")
    func samples() throws {
        for image in SampleImage.bundled {
            let measured = try #require(size(image.bytes), "\(image.format)")
            #expect(measured.width > 0 && measured.height > 0)
        }
        let png = try #require(SampleImage.bundled.first { $0.format == "png" })
        #expect(size(png.bytes) == size(png.bytes, head: 40))
    }

    @Test("PNG: the IHDR chunk, and nothing from a header that is not one")
    func png() {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let ihdr = big32(13) + Array("IHDR".utf8) + big32(640) + big32(480) + [8, 2, 0, 0, 0] + [0, 0, 0, 0]
        #expect(size(signature + ihdr) == ImageDimensions(width: 640, height: 480))
        let wrongChunk = big32(13) + Array("tEXt".utf8) + big32(640) + big32(480) + [8, 2, 0, 0, 0]
        #expect(size(signature + wrongChunk) == nil)
        #expect(size(signature + big32(13) + Array("IHDR".utf8) + big32(0) + big32(480)) == nil)
        #expect(size(signature + big32(13) + Array("IHDR".utf8) + big32(0x7FFF_FFFF) + big32(480)) == nil)
        #expect(size(signature + big32(13) + Array("IHDR".utf8) + [0, 0]) == nil)
    }

    @Test(
        "JPEG: every frame header kind, after the other segments",
        arguments: [
            0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF,
        ] as [UInt8])
    func jpegFrames(marker: UInt8) {
        let bytes = jpeg(jfif, segment(0xDB, [UInt8](repeating: 1, count: 65)), frame(marker, width: 1024, height: 683))
        #expect(size(bytes) == ImageDimensions(width: 1024, height: 683))
    }

    @Test("JPEG: a DHT, DAC or JPG marker is not a frame header")
    func jpegNotFrames() {
        for marker: UInt8 in [0xC4, 0xC8, 0xCC] {
            #expect(!ImageHeader.isFrameHeader(marker))
            let bytes = jpeg(jfif, segment(marker, [UInt8](repeating: 0, count: 20)), frame(0xC0, width: 300, height: 200))
            #expect(size(bytes) == ImageDimensions(width: 300, height: 200), "after \(marker)")
        }
    }

    @Test("JPEG: a frame header beyond the first 4 KB (a large EXIF block) is read from the file")
    func jpegFarFrame() {
        let thumbnail = segment(0xE1, Array("Exif".utf8) + [0, 0] + [UInt8](repeating: 0x55, count: 30_000))
        let bytes = jpeg(
            jfif, thumbnail, segment(0xE2, [UInt8](repeating: 7, count: 9000)), frame(0xC2, width: 6000, height: 4000))
        #expect(bytes.count > 4 * ContentInspector.headLength)
        #expect(size(bytes) == ImageDimensions(width: 6000, height: 4000))
    }

    @Test("JPEG: segments past the head are read a window at a time, not a read per marker byte")
    func jpegReadsInWindows() {
        // Thirty small segments after the 4 KB head, then the frame header: each marker, fill
        // byte and length would otherwise be a read of its own (an open and a pread of the file).
        let small = (0..<30).map { _ in segment(0xE2, [UInt8](repeating: 7, count: 100)) }.joined()
        let bytes = jpeg(
            jfif, segment(0xE1, [UInt8](repeating: 0x55, count: 5000)), Array(small), frame(0xC0, width: 640, height: 480))
        let head = Array(bytes.prefix(ContentInspector.headLength))
        var reads = 0
        let read = { (offset: Int64, count: Int) -> [UInt8] in
            reads += 1
            let start = Int(min(max(offset, 0), Int64(bytes.count)))
            return Array(bytes[start..<min(start + count, bytes.count)])
        }
        #expect(
            ImageHeader.dimensions(.jpeg, head: head, length: Int64(bytes.count), read: read)
                == ImageDimensions(width: 640, height: 480))
        #expect(reads == 1)
        reads = 0
        _ = EmbeddedMetadataReader.read(head: head, length: Int64(bytes.count), read: read)
        #expect(reads == 1)
    }

    @Test("JPEG: an EXIF orientation of a quarter turn (5-8) swaps width and height, in both byte orders")
    func jpegOrientation() {
        for littleEndian in [true, false] {
            for orientation in 1...8 {
                let bytes = jpeg(exif(orientation: orientation, littleEndian: littleEndian), frame(0xC0, width: 400, height: 300))
                let expected =
                    orientation >= 5 ? ImageDimensions(width: 300, height: 400) : ImageDimensions(width: 400, height: 300)
                #expect(size(bytes) == expected, "orientation \(orientation), little-endian \(littleEndian)")
            }
        }
    }

    @Test("JPEG: fill bytes before a marker are skipped")
    func jpegFill() {
        var bytes = jpeg(jfif, frame(0xC0, width: 10, height: 20))
        bytes.insert(contentsOf: [0xFF, 0xFF, 0xFF], at: 2 + jfif.count)
        #expect(size(bytes) == ImageDimensions(width: 10, height: 20))
    }

    @Test("JPEG: hostile headers give no size, never a crash or an endless walk")
    func jpegHostile() {
        let start: [UInt8] = [0xFF, 0xD8]
        // Scan data before any frame header.
        #expect(size(jpeg(jfif)) == nil)
        // A length of 0 and of 1 (would not advance).
        #expect(size(start + [0xFF, 0xE0, 0, 0] + frame(0xC0, width: 1, height: 1)) == nil)
        #expect(size(start + [0xFF, 0xE0, 0, 1] + frame(0xC0, width: 1, height: 1)) == nil)
        // A segment reaching past the end of the file.
        #expect(size(start + [0xFF, 0xE1, 0xFF, 0xFF, 1, 2, 3]) == nil)
        // A frame header cut short, and one of zero size.
        #expect(size(start + [0xFF, 0xC0, 0, 17, 8, 1]) == nil)
        #expect(size(jpeg(frame(0xC0, width: 0, height: 100))) == nil)
        // No marker where one must be, and a file of nothing but fill bytes.
        #expect(size(start + [0x12, 0x34] + frame(0xC0, width: 5, height: 5)) == nil)
        #expect(size(start + [UInt8](repeating: 0xFF, count: 10_000)) == nil)
        // More segments than the walk allows: it stops.
        let many = (0..<(ImageHeader.segmentLimit + 10)).flatMap { _ in segment(0xFE, [0]) }
        #expect(size(start + many + frame(0xC0, width: 5, height: 5)) == nil)
        // An EXIF block whose IFD offset and entry count point past its end.
        let broken = segment(0xE1, Array("Exif".utf8) + [0, 0] + [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0, 0])
        #expect(size(jpeg(broken, frame(0xC0, width: 8, height: 6))) == ImageDimensions(width: 8, height: 6))
        let lying = segment(0xE1, Array("Exif".utf8) + [0, 0] + [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0xFF, 0xFF])
        #expect(size(jpeg(lying, frame(0xC0, width: 8, height: 6))) == ImageDimensions(width: 8, height: 6))
    }

    @Test("GIF: the logical screen size")
    func gif() {
        #expect(size(Array("GIF89a".utf8) + little16(500) + little16(375) + [0, 0, 0, 0x3B]) == .init(width: 500, height: 375))
        #expect(size(Array("GIF87a".utf8) + little16(0) + little16(375)) == nil)
        #expect(size(Array("GIF89a".utf8) + [1]) == nil)
    }

    @Test("WebP: lossy, lossless and extended headers")
    func webp() {
        func riff(_ chunk: String, _ body: [UInt8]) -> [UInt8] {
            let payload = Array("WEBP".utf8) + Array(chunk.utf8) + [UInt8(body.count), 0, 0, 0] + body
            return Array("RIFF".utf8) + [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), 0, 0] + payload
        }
        let lossy = riff("VP8 ", [0x30, 0x01, 0x00, 0x9D, 0x01, 0x2A] + little16(800) + little16(600) + [0, 0])
        #expect(size(lossy) == ImageDimensions(width: 800, height: 600))
        // 14 bits each, minus one: 1200 × 900.
        let bits = (1200 - 1) | (900 - 1) << 14
        let lossless = riff(
            "VP8L",
            [
                0x2F, UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24 & 0xFF), 0, 0, 0, 0,
                0,
            ])
        #expect(size(lossless) == ImageDimensions(width: 1200, height: 900))
        let extended = riff("VP8X", [0x10, 0, 0, 0] + [0x7F, 0x07, 0x00] + [0x37, 0x04, 0x00])
        #expect(size(extended) == ImageDimensions(width: 1920, height: 1080))
        // A lossy frame without its start code, an unknown chunk, and a file cut inside the header.
        #expect(size(riff("VP8 ", [0x30, 0x01, 0x00, 0x00, 0x00, 0x00] + little16(800) + little16(600))) == nil)
        #expect(size(riff("ABCD", [UInt8](repeating: 0, count: 10))) == nil)
        #expect(size(Array(lossy.prefix(24))) == nil)
    }

    @Test("a file's size is read from its header without reading it whole")
    func fromFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.url.appendingPathComponent("far.jpg").path
        let bytes = jpeg(jfif, segment(0xE1, [UInt8](repeating: 0x55, count: 50_000)), frame(0xC0, width: 321, height: 123))
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        #expect(ImageHeader.dimensions(ofFileAtPath: path) == ImageDimensions(width: 321, height: 123))
        #expect(ImageHeader.dimensions(ofFileAtPath: directory.url.appendingPathComponent("missing.jpg").path) == nil)
        FileManager.default.createFile(atPath: path, contents: Data("not an image".utf8))
        #expect(ImageHeader.dimensions(ofFileAtPath: path) == nil)
    }
}
