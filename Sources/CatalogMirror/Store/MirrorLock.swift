import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One sync per mirror: an exclusive `flock` on `DIR/.catalog-mirror/lock`, held for the whole
/// run. The kernel drops it when the holder exits, however it exits (even `kill -9`), so a
/// stale lock never blocks the next run. The file holds the holder's PID for the message.
final class MirrorLock {
    /// Another process holds the lock.
    struct Held: Error {
        let path: String
        let pid: Int32?
    }

    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lock of `layout` without waiting. With `create` false (a dry run) a mirror
    /// without a state directory is not touched and nil is returned.
    static func acquire(_ layout: MirrorLayout, create: Bool) throws -> MirrorLock? {
        if create {
            try FileManager.default.createDirectory(at: layout.state, withIntermediateDirectories: true)
        } else if !FileManager.default.fileExists(atPath: layout.lock.path) {
            return nil
        }
        let descriptor = open(layout.lock.path, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError("cannot open \(layout.lock.path): \(String(cString: strerror(errno)))")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            let holder = (try? String(contentsOf: layout.lock, encoding: .utf8)).flatMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            close(descriptor)
            if reason == EWOULDBLOCK { throw Held(path: layout.root.path, pid: holder) }
            throw StoreError("cannot lock \(layout.lock.path): \(String(cString: strerror(reason)))")
        }
        if create {
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(descriptor, 0)
            _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        return MirrorLock(descriptor: descriptor)
    }
}
