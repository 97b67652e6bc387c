import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A new file in the state directory written through a raw descriptor, so response buffers are
/// written without being copied into `Data`. Writes block briefly; image files are small and
/// the page cache absorbs them, which costs less than hopping to a thread pool per buffer.
package final class TemporaryFileWriter {
    package struct WriteError: Error, CustomStringConvertible {
        let errno: Int32
        package var description: String { String(cString: strerror(errno)) }
    }

    /// The file's path. Kept as text: a `URL` made for every download allocated again for
    /// each use of the image's path through the store (`Benchmarks/results/per-item-cpu.md`).
    package let path: String
    /// The file, as a URL.
    package var url: URL { URL(fileURLWithPath: path, isDirectory: false) }
    private var descriptor: Int32

    /// Names are this process's random prefix and a counter: unique within the process, and
    /// `O_EXCL` refuses any name already on disk. (`UUID()` opened and read `/dev/urandom` once
    /// per file.) Both in base 36 and without a separator, so up to 1.6 million files a name
    /// fits in 15 bytes, which Swift keeps inside the string value: the store holds each staged
    /// name until the run publishes, and a heap copy of each would add to a first run's peak.
    private static let prefix = String(UInt32.random(in: 0..<2_176_782_336), radix: 36)
    private static let counter = Atomic<Int>(0)

    /// Creates `directory/<prefix><n>.part` exclusively (never follows or reuses an existing
    /// file; on the rare clash with a file left by another process, the next number is tried).
    package convenience init(in directory: URL) throws {
        try self.init(inPath: directory.path)
    }

    /// `init(in:)` for a directory given by its path.
    package init(inPath directory: String) throws {
        var path: String
        var result: Int32
        repeat {
            let number = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue
            // Joined by hand: `appendingPathComponent` would stat the new path first.
            path = directory + "/" + Self.prefix + String(number, radix: 36) + ".part"
            result = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        } while result < 0 && errno == EEXIST
        self.path = path
        descriptor = result
        if descriptor < 0 { throw WriteError(errno: errno) }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        try Self.writeAll(bytes, to: descriptor)
    }

    /// Writes all of `bytes` to `descriptor`, resuming after short writes and signals.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw WriteError(errno: errno)
            }
            offset += written
        }
    }

    /// Closes the file. With `flush` (the default) the bytes are first flushed to stable storage,
    /// so a rename after this publishes complete bytes; the store passes false for downloads and
    /// flushes them all at once before publishing.
    package func finish(flush: Bool = true) throws {
        guard descriptor >= 0 else { return }
        if flush, fsync(descriptor) != 0 { throw WriteError(errno: errno) }
        let result = close(descriptor)
        descriptor = -1
        if result != 0 { throw WriteError(errno: errno) }
    }

    /// Reads `count` bytes at `offset` from the written file (for structure checks), through the
    /// open descriptor while there is one.
    package func read(at offset: Int64, count: Int) -> [UInt8] {
        guard count > 0, offset >= 0 else { return [] }
        let reader = descriptor >= 0 ? descriptor : Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard reader >= 0 else { return [] }
        defer { if reader != descriptor { close(reader) } }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = max(0, pread(reader, buffer.baseAddress, count, off_t(offset)))
        }
    }

    /// Closes and removes the file.
    package func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(path)
    }
}
