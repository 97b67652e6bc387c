import Foundation
import MirrorCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One sync per mirror: an exclusive `flock` on `DIR/.catalog-mirror/lock`, held for the whole
/// run. The kernel drops it when the holder exits, however it exits (even `kill -9`), so a
/// stale lock never blocks the next run. The file holds the holder's PID for the message.
///
/// Its errors are one line each, as `MirrorError`'s: what happened, the path, what to do. None
/// of them says to delete the lock file: a lock whose holder is gone is already free, and
/// deleting it under a live holder would let a second sync in beside it.
package final class MirrorLock {
    /// Another process holds the lock (the engine turns it into `MirrorError.locked`, exit 75).
    package struct Held: Error, CustomStringConvertible {
        /// The mirror directory.
        package let path: String
        /// The lock file, `DIR/.catalog-mirror/lock`.
        let lockFile: String
        /// The holder's process ID, when the lock file names one.
        package let pid: Int32?

        /// One line: who holds which lock, and what to do.
        package var description: String {
            "another sync" + (pid.map { " (PID \($0))" } ?? "") + " holds the lock \(lockFile) on \(path)"
                + "; wait for it to finish, then run sync again (the lock goes when that process exits)"
        }
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
    /// Throws `Held` when another process has it, else a one-line `StoreError` naming the path.
    package static func acquire(_ layout: MirrorLayout, create: Bool) throws -> MirrorLock? {
        if create {
            do {
                try FileManager.default.createDirectory(at: layout.state, withIntermediateDirectories: true)
            } catch {
                throw StoreError(
                    .fileSystem,
                    "cannot create the state directory \(layout.state.path) for the lock: \(error.localizedDescription) (check the permissions of \(layout.root.path), or choose another --out)"
                )
            }
        } else if !FileManager.default.fileExists(atPath: layout.lock.path) {
            return nil
        }
        let descriptor = open(layout.lock.path, (create ? O_RDWR | O_CREAT : O_RDONLY) | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError(
                .fileSystem,
                "cannot open the lock file \(layout.lock.path): \(String(cString: strerror(errno))) (it must be a file this user may write; check its type and permissions)"
            )
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let reason = errno
            let holder = (try? String(contentsOf: layout.lock, encoding: .utf8)).flatMap {
                Int32($0.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            close(descriptor)
            if reason == EWOULDBLOCK { throw Held(path: layout.root.path, lockFile: layout.lock.path, pid: holder) }
            throw StoreError(
                .fileSystem,
                "cannot lock \(layout.lock.path): \(String(cString: strerror(reason))) (its file system may not support flock, as some network mounts; put --out on a local disk)"
            )
        }
        if create {
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(descriptor, 0)
            _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        return MirrorLock(descriptor: descriptor)
    }
}
