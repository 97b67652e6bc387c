import Hummingbird
import Logging
import NIOCore

/// Runs the Hummingbird application `makeApplication` builds (given the `onServerRunning` hook
/// and a quiet logger) on an ephemeral port while `body` runs with that port; stops it after.
package func withServer<T: Sendable, App: ApplicationProtocol>(
    label: String,
    _ makeApplication: (_ onServerRunning: @escaping @Sendable (any Channel) async -> Void, _ logger: Logger) throws -> App,
    _ body: (Int) async throws -> T
) async throws -> T {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    var logger = Logger(label: label)
    logger.logLevel = .critical
    let app = try makeApplication(
        { channel in
            continuation.yield(channel.localAddress?.port ?? 0)
            continuation.finish()
        }, logger)
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            try await app.runService(gracefulShutdownSignals: [])
            return nil
        }
        var iterator = ports.makeAsyncIterator()
        let port = await iterator.next() ?? 0
        defer { group.cancelAll() }
        return try await body(port)
    }
}
