import Foundation
import MirrorCore

/// Reads what a stored image says about itself (`EmbeddedMetadata`) from the blocks that carry
/// it, found by walking the file's structure only as far as its headers go, never its pixels:
/// - JPEG: the segments before the first scan (APP1 `Exif`, APP1 XMP, APP13 `Photoshop 3.0`);
/// - PNG: the chunks (`eXIf`, `iTXt` `XML:com.adobe.xmp`), the data of none but those read;
/// - WebP: the RIFF chunks (`EXIF`, `XMP `), which follow the image data in the file.
/// GIF and AVIF are not read: GIF has no EXIF, and an AVIF's metadata are items of its `meta`
/// box, found through its item tables (a reader of their own, for formats rarely published
/// with metadata).
///
/// The walk is written here because libexif reads only an EXIF block (its JPEG loader reads
/// the whole file) and libiptcdata's file reader likewise reads a JPEG until it finds its
/// block; neither walks PNG or WebP. The blocks are then read by libraries: `EXIFBlock`
/// (libexif), `IPTCBlock` (libiptcdata), `XMPFields` (libxml2, through `XMPPacket`).
///
/// Every read is bounded (`segmentLimit`, `chunkLimit`, `largestBlock`); a structure that
/// claims offsets past the end, or lengths that cannot be, ends the walk with a `problem`, and
/// what was found before is kept. Nothing here traps on any input (`FuzzMetadata`).
package enum EmbeddedMetadataReader {
    /// JPEG segments walked at most before the first scan.
    static let segmentLimit = 512
    /// PNG and WebP chunks walked at most.
    static let chunkLimit = 4096
    /// The largest block read whole (an EXIF, XMP or Photoshop block).
    static let largestBlock = 1 << 20

    /// The metadata of a file of `length` bytes whose first bytes are `head` (as the download
    /// keeps them: `ContentInspector.headLength`); `read(offset, count)` returns bytes further
    /// in (fewer at the end of the file).
    package static func read(head: [UInt8], length: Int64, read: (Int64, Int) -> [UInt8]) -> EmbeddedMetadata {
        withoutActuallyEscaping(read) { read in
            var file = HeaderBytes(head: head, length: length, read: read)
            var blocks = Blocks()
            if head.starts(with: [0xFF, 0xD8, 0xFF]) {
                jpeg(&file, into: &blocks)
            } else if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
                png(&file, into: &blocks)
            } else if head.count >= 12, head.starts(with: Array("RIFF".utf8)), head[8..<12].elementsEqual("WEBP".utf8) {
                webp(&file, into: &blocks)
            }
            return blocks.metadata()
        }
    }

    /// The metadata of the whole file `bytes` (the fuzzer's entry, and tests').
    package static func read(bytes: [UInt8]) -> EmbeddedMetadata {
        read(head: Array(bytes.prefix(4096)), length: Int64(bytes.count)) { offset, count in
            guard offset >= 0, offset < Int64(bytes.count), count > 0 else { return [] }
            let start = Int(offset)
            return Array(bytes[start..<min(bytes.count, start + count)])
        }
    }

    /// The metadata of the image file at `path`, read as a download is (its first 4 KB, then
    /// bounded reads); nil when the file cannot be opened.
    package static func read(fileAtPath path: String) -> EmbeddedMetadata? {
        HeaderBytes.withFile(atPath: path, headLength: 4096) { head, length, read in
            self.read(head: head, length: length, read: read)
        }
    }

    /// The blocks found, and what was wrong with the structure around them.
    private struct Blocks {
        var exif: ArraySlice<UInt8>?
        var xmp: ArraySlice<UInt8>?
        var photoshop: ArraySlice<UInt8>?
        var problem: String?

        /// Each block read by its reader; the fields merged as the Metadata Working Group's
        /// guidelines order them: what the camera recorded (date, camera, lens, exposure,
        /// position) from EXIF first, then XMP, then IPTC; what a person wrote (title, caption,
        /// keywords, creator, copyright) from XMP first, then IPTC, then EXIF.
        func metadata() -> EmbeddedMetadata {
            let fromEXIF = exif.map(EXIFBlock.read) ?? EmbeddedMetadata()
            let fromXMP = xmp.map(XMPFields.read) ?? EmbeddedMetadata()
            let fromIPTC = photoshop.map(IPTCBlock.read) ?? EmbeddedMetadata()
            var described = fromXMP
            described.fillGaps(from: fromIPTC)
            described.fillGaps(from: fromEXIF)
            var recorded = fromEXIF
            recorded.fillGaps(from: fromXMP)
            recorded.fillGaps(from: fromIPTC)
            described.taken = recorded.taken
            described.camera = recorded.camera
            described.lens = recorded.lens
            described.exposure = recorded.exposure
            described.location = recorded.location
            let problems = [problem, fromEXIF.problem, fromXMP.problem, fromIPTC.problem].compactMap { $0 }
            described.problem = problems.isEmpty ? nil : problems.joined(separator: "; ")
            return described
        }
    }

    private typealias Bytes = HeaderBytes

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        HeaderBytes.bigEndian(bytes, offset, count)
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        HeaderBytes.littleEndian(bytes, offset, count)
    }

    private static let exifHeader = Array("Exif".utf8) + [0, 0]
    private static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    private static let photoshopHeader = Array("Photoshop 3.0".utf8) + [0]

    // MARK: - JPEG

    /// The segments from the start to the first scan (or the end), as `ImageHeader.jpeg` walks
    /// them: fill bytes before a marker, markers without a length, a length that must hold
    /// itself.
    private static func jpeg(_ file: inout Bytes, into blocks: inout Blocks) {
        var offset: Int64 = 2
        for _ in 0..<segmentLimit {
            guard file.byte(offset) == 0xFF else {
                blocks.problem = "its JPEG segments are damaged"
                return
            }
            var marker: UInt8 = 0xFF
            var fill = 0
            while marker == 0xFF {
                offset += 1
                fill += 1
                guard fill < 64, let next = file.byte(offset) else {
                    blocks.problem = "its JPEG segments are damaged"
                    return
                }
                marker = next
            }
            offset += 1
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7: continue
            case 0xD9, 0xDA: return
            default: break
            }
            guard let length = file.bigEndian(at: offset, 2), length >= 2 else {
                blocks.problem = "its JPEG segments are damaged"
                return
            }
            let start = offset + 2
            let size = length - 2
            if marker == 0xE1 || marker == 0xED {
                guard let payload = file.slice(start, size) else {
                    blocks.problem = "a JPEG segment runs past the end of the file"
                    return
                }
                if marker == 0xE1, blocks.exif == nil, payload.starts(with: exifHeader) {
                    blocks.exif = payload[...]
                } else if marker == 0xE1, blocks.xmp == nil, payload.starts(with: xmpHeader) {
                    blocks.xmp = payload[xmpHeader.count...]
                } else if marker == 0xED, blocks.photoshop == nil, payload.starts(with: photoshopHeader) {
                    blocks.photoshop = payload[...]
                }
            }
            offset = start + Int64(size)
        }
    }

    // MARK: - PNG

    /// The chunks from the signature to `IEND`: only their 8-byte headers are read, and the
    /// data of `eXIf` and of an `iTXt` whose keyword is XMP's. A compressed XMP `iTXt` is not
    /// read (no writer this reader knows of compresses it).
    private static func png(_ file: inout Bytes, into blocks: inout Blocks) {
        var offset: Int64 = 8
        let xmpKeyword = Array("XML:com.adobe.xmp".utf8) + [0]
        for _ in 0..<chunkLimit {
            guard offset < file.length else { return }
            guard let header = file.slice(offset, 8) else {
                blocks.problem = "its PNG chunks are damaged"
                return
            }
            let length = bigEndian(header, 0, 4)
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard length < 1 << 31, offset + 12 + Int64(length) <= file.length else {
                blocks.problem = "a PNG chunk runs past the end of the file"
                return
            }
            let data = offset + 8
            switch type {
            case "IEND":
                return
            case "eXIf" where blocks.exif == nil:
                guard length <= largestBlock, let bytes = file.slice(data, length) else { break }
                blocks.exif = bytes[...]
            case "iTXt" where blocks.xmp == nil && length > xmpKeyword.count + 4 && length <= largestBlock:
                guard let start = file.slice(data, xmpKeyword.count + 2), start.starts(with: xmpKeyword),
                    start[xmpKeyword.count] == 0, let bytes = file.slice(data, length)
                else { break }
                // Keyword, NUL, compression flag and method, language tag, NUL, translated
                // keyword, NUL, then the text.
                var index = xmpKeyword.count + 2
                for _ in 0..<2 {
                    guard let end = bytes[index...].firstIndex(of: 0) else {
                        index = bytes.count
                        break
                    }
                    index = end + 1
                }
                if index < bytes.count { blocks.xmp = bytes[index...] }
            default:
                break
            }
            offset = data + Int64(length) + 4
        }
    }

    // MARK: - WebP

    /// The RIFF chunks after `WEBP`: each a four-character code, a little-endian size and the
    /// data, padded to an even length.
    private static func webp(_ file: inout Bytes, into blocks: inout Blocks) {
        var offset: Int64 = 12
        for _ in 0..<chunkLimit {
            guard offset + 8 <= file.length else { return }
            guard let header = file.slice(offset, 8) else {
                blocks.problem = "its WebP chunks are damaged"
                return
            }
            let type = String(decoding: header[0..<4], as: UTF8.self)
            let size = littleEndian(header, 4, 4)
            let data = offset + 8
            guard data + Int64(size) <= file.length else {
                blocks.problem = "a WebP chunk runs past the end of the file"
                return
            }
            if type == "EXIF", blocks.exif == nil, size <= largestBlock, let bytes = file.slice(data, size) {
                blocks.exif = bytes[...]
            } else if type == "XMP ", blocks.xmp == nil, size <= largestBlock, let bytes = file.slice(data, size) {
                blocks.xmp = bytes[...]
            }
            offset = data + Int64(size) + Int64(size & 1)
        }
    }
}

/// Text of a metadata block whose encoding is not declared: UTF-8 when the bytes are valid
/// UTF-8, else Latin-1 (each byte its code point), as exiftool reads such text.
enum EmbeddedText {
    static func decode(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var text = ""
        text.unicodeScalars.append(contentsOf: bytes.map { Unicode.Scalar($0) })
        return text
    }
}
