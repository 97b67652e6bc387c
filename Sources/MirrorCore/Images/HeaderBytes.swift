import Foundation

/// The bytes an image header reader walks: the head a download keeps in memory, and bounded
/// reads of the file beyond it. Shared by `ImageHeader` (pixel size) and the embedded-metadata
/// reader (EXIF, IPTC, XMP blocks), which walk the same segments and chunks.
///
/// Past the head, the file is read a window at a time (`windowLength`, or the block asked
/// for when it is larger), and the byte-sized reads of a segment walk (a marker, a fill byte,
/// a length) are answered from that window: one `pread` per window, not one per byte.
package struct HeaderBytes {
    /// The file's first bytes.
    package let head: [UInt8]
    /// The file's length.
    package let length: Int64
    /// `read(offset, count)`: bytes further in (fewer at the end of the file).
    let read: (Int64, Int) -> [UInt8]
    /// The bytes last read past the head, and where in the file they start.
    private var window: [UInt8] = []
    private var windowStart: Int64 = 0

    /// Bytes read at once past the head: a JPEG's APPn segments before its frame header
    /// usually fit in one window.
    static let windowLength = 16 * 1024

    package init(head: [UInt8], length: Int64, read: @escaping (Int64, Int) -> [UInt8]) {
        (self.head, self.length, self.read) = (head, length, read)
    }

    /// `count` bytes at `offset`, or nil when the file is shorter.
    package mutating func slice(_ offset: Int64, _ count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0, offset <= length - Int64(count) else { return nil }
        let end = offset + Int64(count)
        if end <= Int64(head.count) { return Array(head[Int(offset)..<Int(end)]) }
        guard let start = windowed(offset, count) else { return nil }
        return start == 0 && count == window.count ? window : Array(window[start..<start + count])
    }

    /// The byte at `offset`, or nil past the end.
    package mutating func byte(_ offset: Int64) -> UInt8? {
        guard offset >= 0, offset < length else { return nil }
        if offset < Int64(head.count) { return head[Int(offset)] }
        return windowed(offset, 1).map { window[$0] }
    }

    /// The unsigned big-endian number in the `count` bytes at `offset`, or nil past the end.
    package mutating func bigEndian(at offset: Int64, _ count: Int) -> Int? {
        guard offset >= 0, count >= 0, offset <= length - Int64(count) else { return nil }
        if offset + Int64(count) <= Int64(head.count) { return Self.bigEndian(head, Int(offset), count) }
        return windowed(offset, count).map { Self.bigEndian(window, $0, count) }
    }

    /// The index in `window` of `count` bytes at `offset` past the head, reading a new window
    /// when the current one does not hold them; nil when the file is shorter.
    private mutating func windowed(_ offset: Int64, _ count: Int) -> Int? {
        if offset >= windowStart, offset + Int64(count) <= windowStart + Int64(window.count) {
            return Int(offset - windowStart)
        }
        let wanted = Int(min(Int64(max(count, Self.windowLength)), length - offset))
        window = read(offset, wanted)
        windowStart = offset
        return window.count >= count ? 0 : nil
    }

    /// The unsigned big-endian number in `count` bytes of `bytes` at `offset`.
    package static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        var value = 0
        for index in offset..<offset + count { value = value << 8 | Int(bytes[index]) }
        return value
    }

    /// The unsigned little-endian number in `count` bytes of `bytes` at `offset`.
    package static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        var value = 0
        for index in (offset..<offset + count).reversed() { value = value << 8 | Int(bytes[index]) }
        return value
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
            return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                initialized = max(0, pread(descriptor, buffer.baseAddress, count, off_t(offset)))
            }
        }
        return body(read(0, headLength), Int64(status.st_size), read)
    }
}
