import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few file-system calls the store makes once per image, made directly.
///
/// Written by hand because Foundation's conveniences cost far more than the system call here:
/// `FileManager.attributesOfItem` also reads `/etc/passwd` and `/etc/group` and lists extended
/// attributes for every file, and `URL.appendingPathComponent` stats the path to learn whether it
/// is a directory. At 10,000 images a re-sync spent more time in those than in its requests.
package enum FileSystem {
    package struct Failure: Error, CustomStringConvertible {
        package let operation: String
        package let path: String
        package let errno: Int32
        package var description: String { "cannot \(operation) \(path): \(String(cString: strerror(errno)))" }
    }

    /// Calls `body` with the name of each entry of the directory at `path` but `.` and `..`, as
    /// its bytes, one at a time: a listing as `[String]` grows with the folder. Nothing
    /// when the directory cannot be read.
    package static func forEachName(inDirectory path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard let directory = opendir(path) else { return }
        defer { closedir(directory) }
        guard let offset = MemoryLayout<dirent>.offset(of: \.d_name) else { return }
        while let entry = readdir(directory) {
            let name = UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: UInt8.self)
            let bytes = UnsafeBufferPointer(start: name, count: strlen(name))
            if bytes.elementsEqual([0x2E]) || bytes.elementsEqual([0x2E, 0x2E]) { continue }
            body(bytes)
        }
    }

    /// The size of the regular file at `path`, or nil when there is none (or it is not a regular file).
    package static func size(atPath path: String) -> Int64? {
        status(atPath: path)?.size
    }

    /// What `stat` says of a regular file: enough to tell that its bytes were changed since.
    package struct Status: Equatable {
        /// Its size in bytes.
        package var size: Int64
        /// When its content last changed, in nanoseconds since 1970 (`st_mtim`): a rename keeps
        /// it, a write (an editor, `truncate`, a copy over it) changes it.
        package var modified: Int64
    }

    /// The status of the regular file at `path`, or nil when there is none (or it is not a
    /// regular file).
    package static func status(atPath path: String) -> Status? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Status(
            size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// The lower-case hex SHA-256 of the file at `path`, or nil when it cannot be read.
    package static func sha256(atPath path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0.prefix(got))) }
        }
        return hasher.finalize().hexString
    }

    /// Renames `source` to `destination` (atomic within one file system).
    package static func move(_ source: String, to destination: String) throws(Failure) {
        if rename(source, destination) != 0 { throw Failure(operation: "move \(source) to", path: destination, errno: errno) }
    }

    /// Creates the directory at `path` (mode 0755 before the umask), unless one is there.
    package static func makeDirectory(_ path: String) throws(Failure) {
        if mkdir(path, 0o755) != 0, errno != EEXIST { throw Failure(operation: "create", path: path, errno: errno) }
    }

    /// Flushes every file of the file system holding `path` to stable storage: one call instead
    /// of one `fsync` per downloaded file.
    package static func flushFileSystem(containing path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(operation: "open", path: path, errno: errno) }
        defer { close(descriptor) }
        if let syncfs = Self.syncfs {
            if syncfs(descriptor) != 0 { throw Failure(operation: "flush the file system of", path: path, errno: errno) }
        } else {
            sync()
        }
    }

    /// Linux's `syncfs(2)`, which Glibc declares only under `_GNU_SOURCE` (so Swift's Glibc
    /// module does not export it); looked up at run time, with `sync(2)` where it is missing.
    private static let syncfs: (@convention(c) (Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()

    /// Flushes the entries of the directory at `path` (so renames into it survive a power loss).
    package static func flushDirectory(_ path: String) throws(Failure) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(operation: "open", path: path, errno: errno) }
        defer { close(descriptor) }
        if fsync(descriptor) != 0 { throw Failure(operation: "flush", path: path, errno: errno) }
    }
}
