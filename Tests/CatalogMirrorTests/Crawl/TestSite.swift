import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A small site on 127.0.0.1 and an ephemeral port (a real Hummingbird server): each target
/// (`path`, or `path?query`) answers with the document a test gives it, every other target
/// with 404. Records every request's target, in arrival order.
final class TestSite: Sendable {
    /// One document of the site.
    struct Document: Sendable {
        var status: HTTPResponse.Status = .ok
        var type = "text/html; charset=utf-8"
        var body: String
    }

    private let documents: [String: Document]
    private let requests = Mutex<[String]>([])

    /// A site of `documents`, by target.
    init(_ documents: [String: Document]) {
        self.documents = documents
    }

    /// A site of HTML pages, by target.
    convenience init(pages: [String: String]) {
        self.init(pages.mapValues { Document(body: $0) })
    }

    /// Every request's target so far (`path` or `path?query`).
    var log: [String] { requests.withLock { $0 } }

    /// Serves the site while `body` runs with its origin (`http://127.0.0.1:port`).
    func run<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        router.middlewares.add(Responder(site: self))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "test-site")
        logger.logLevel = .critical
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await app.runService(gracefulShutdownSignals: [])
                return nil
            }
            defer { group.cancelAll() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0 else { throw CancellationError() }
            return try await body("http://127.0.0.1:\(port)")
        }
    }

    /// The answer to `target`: its document, or 404.
    fileprivate func answer(_ target: String) -> Response {
        requests.withLock { $0.append(target) }
        let document = documents[target] ?? Document(status: .notFound, type: "text/plain", body: "not here")
        return Response(
            status: document.status, headers: [.contentType: document.type],
            body: .init(byteBuffer: ByteBuffer(string: document.body)))
    }

    /// Answers every request from the site's documents (there are no routes).
    private struct Responder: RouterMiddleware {
        let site: TestSite

        func handle(
            _ request: Request, context: BasicRequestContext, next: (Request, BasicRequestContext) async throws -> Response
        ) async throws -> Response {
            site.answer(request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""))
        }
    }
}
