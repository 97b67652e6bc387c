import Foundation

/// The bytes an image header reader walks: the head a download keeps in memory, and bounded
/// reads of the file beyond it. Shared by `ImageHeader` (pixel size) and the embedded-metadata
/// reader (EXIF, IPTC, XMP blocks), which walk the same segments and chunks.
package struct HeaderBytes {
    /// The file's first bytes.
    package let head: [UInt8]
    /// The file's length.
    package let length: Int64
    /// `read(offset, count)`: bytes further in (fewer at the end of the file).
    let read: (Int64, Int) -> [UInt8]

    package init(head: [UInt8], length: Int64, read: @escaping (Int64, Int) -> [UInt8]) {
        (self.head, self.length, self.read) = (head, length, read)
    }

    /// `count` bytes at `offset`, or nil when the file is shorter.
    package func slice(_ offset: Int64, _ count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= length - Int64(count) else { return nil }
        if offset + Int64(count) <= Int64(head.count) { return Array(head[Int(offset)..<Int(offset) + count]) }
        let got = read(offset, count)
        return got.count >= count ? Array(got.prefix(count)) : nil
    }

    /// The byte at `offset`, or nil past the end.
    package func byte(_ offset: Int64) -> UInt8? { slice(offset, 1)?.first }

    /// The unsigned big-endian number in `count` bytes of `bytes` at `offset`.
    package static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The unsigned little-endian number in `count` bytes of `bytes` at `offset`.
    package static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        bytes[offset..<offset + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// Calls `body` with the first `headLength` bytes of the file at `path`, its length and a
    /// reader of the rest (`pread`: the file is never read whole); nil when it cannot be opened.
    package static func withFile<T>(
        atPath path: String, headLength: Int, _ body: ([UInt8], Int64, (Int64, Int) -> [UInt8]) -> T
    ) -> T? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        func read(_ offset: Int64, _ count: Int) -> [UInt8] {
            guard count > 0, offset >= 0 else { return [] }
            var buffer = [UInt8](repeating: 0, count: count)
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got > 0 ? Array(buffer.prefix(got)) : []
        }
        return body(read(0, headLength), Int64(status.st_size), read)
    }
}
