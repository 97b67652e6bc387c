/// Checks downloaded bytes before anything is published: is it an image (magic bytes), and is
/// it complete (the format's end marker or declared sizes)?
///
/// Works from the head and tail of the file captured while streaming, plus random reads for
/// formats whose completeness needs their box structure (AVIF), so no image is read twice whole.
package enum ContentInspector {
    /// Bytes of the file kept from the start while streaming.
    package static let headLength = 4096
    /// Bytes of the file kept from the end while streaming.
    package static let tailLength = 64

    /// The verdict on a file of `length` bytes whose first and last bytes are `head` and `tail`.
    /// `read(offset, count)` returns bytes from the file for structure walks.
    package static func inspect(
        head: [UInt8], tail: [UInt8], length: Int64, read: (Int64, Int) -> [UInt8]
    ) -> Result<ImageFormat, FetchFailure> {
        guard length > 0 else { return .failure(FetchFailure(.empty, "the body is empty")) }
        guard let format = detect(head) else {
            return .failure(FetchFailure(.notAnImage, "the body is not an image (starts with \(preview(head)))"))
        }
        guard format.isPublished else {
            return .failure(FetchFailure(.unsupportedType, "\(format.mediaType) is not published (it can carry scripts)"))
        }
        if let problem = incompleteness(format, head: head, tail: tail, length: length, read: read) {
            return .failure(FetchFailure(.truncated, problem))
        }
        return .success(format)
    }

    /// The format whose signature `head` starts with, if any.
    static func detect(_ head: [UInt8]) -> ImageFormat? {
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return .gif }
        if head.count >= 12, head.starts(with: Array("RIFF".utf8)), Array(head[8..<12]) == Array("WEBP".utf8) {
            return .webp
        }
        if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            let boxSize = Int(readUInt32(head, at: 0))
            let end = min(max(boxSize, 16), head.count)
            var brands: [String] = []
            var offset = 8
            while offset + 4 <= end {
                if offset != 12 { brands.append(String(decoding: head[offset..<offset + 4], as: UTF8.self)) }
                offset += 4
            }
            if brands.contains("avif") || brands.contains("avis") { return .avif }
            return nil
        }
        if looksLikeSVG(head) { return .svg }
        return nil
    }

    private static func looksLikeSVG(_ head: [UInt8]) -> Bool {
        var text = String(decoding: head.prefix(1024), as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        let trimmed = text.drop { $0.isWhitespace }.lowercased()
        guard
            trimmed.hasPrefix("<?xml") || trimmed.hasPrefix("<svg") || trimmed.hasPrefix("<!--")
                || trimmed.hasPrefix("<!doctype svg")
        else { return false }
        return trimmed.contains("<svg")
    }

    private static func incompleteness(
        _ format: ImageFormat, head: [UInt8], tail: [UInt8], length: Int64, read: (Int64, Int) -> [UInt8]
    ) -> String? {
        switch format {
        case .png:
            let iend: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
            return tail.suffix(12).elementsEqual(iend) ? nil : "the PNG has no IEND chunk at its end"
        case .jpeg:
            // Encoders and editors sometimes leave a few padding bytes after EOI; accept those.
            let window = Array(tail.suffix(tailLength))
            for index in stride(from: window.count - 2, through: 0, by: -1)
            where window[index] == 0xFF && window[index + 1] == 0xD9 {
                return nil
            }
            return "the JPEG has no end-of-image marker"
        case .gif:
            return tail.last == 0x3B ? nil : "the GIF has no trailer byte"
        case .webp:
            let declared = Int64(readUInt32LE(head, at: 4)) + 8
            return declared == length || declared + 1 == length
                ? nil : "the WebP declares \(declared) bytes but has \(length)"
        case .avif:
            // Top-level ISO-BMFF boxes must tile the file exactly.
            var offset: Int64 = 0
            var boxes = 0
            while offset < length {
                let header = read(offset, 16)
                guard header.count >= 8 else { return "the AVIF ends inside a box header" }
                var size = Int64(readUInt32(header, at: 0))
                if size == 1 {
                    guard header.count >= 16 else { return "the AVIF ends inside a box header" }
                    size = Int64(bitPattern: UInt64(readUInt32(header, at: 8)) << 32 | UInt64(readUInt32(header, at: 12)))
                } else if size == 0 {
                    size = length - offset
                }
                guard size >= 8 else { return "the AVIF has a malformed box" }
                offset += size
                boxes += 1
                if boxes > 10_000 { return "the AVIF has too many boxes" }
            }
            return offset == length ? nil : "the AVIF's boxes declare \(offset) bytes but it has \(length)"
        case .svg:
            return nil
        }
    }

    private static func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        guard offset + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    private static func readUInt32LE(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        guard offset + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    private static func preview(_ head: [UInt8]) -> String {
        let text = String(decoding: head.prefix(24), as: UTF8.self)
            .map { $0.isASCII && !$0.isNewline && ($0.asciiValue ?? 0) >= 0x20 ? $0 : "." }
        return "\"" + String(text) + "\""
    }
}
