import NIOPosix

/// The one way the library runs work that blocks its thread (a file-system flush that waits
/// for the disk, a large file written beside other work): on NIO's thread pool, awaited from
/// async code. Never on the threads of Swift's cooperative pool, which every task of a run
/// shares (two of them on a two-core machine), and never waited for with a semaphore.
package enum BlockingWork {
    /// Runs `body` on `NIOThreadPool.singleton` and returns what it returns or throws. Should
    /// the pool be shut down (only at process exit), `body` runs on the caller's thread.
    package static func run<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure>
        do {
            result = try await NIOThreadPool.singleton.runIfActive { Result { () throws(Failure) -> Value in try body() } }
        } catch {
            result = Result { () throws(Failure) -> Value in try body() }
        }
        return try result.get()
    }
}
