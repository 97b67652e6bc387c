import Foundation
import Hummingbird
import NIOCore
import Synchronization

/// A small site on 127.0.0.1 and an ephemeral port (a real Hummingbird server): each target
/// (`path`, or `path?query`) answers with the document a test gives it, every other target
/// with 404. Records every request's target, in arrival order.
package final class TestSite: Sendable {
    /// One document of the site.
    package struct Document: Sendable {
        package var status: HTTPResponse.Status = .ok
        package var type = "text/html; charset=utf-8"
        package var body: String

        package init(status: HTTPResponse.Status = .ok, type: String = "text/html; charset=utf-8", body: String) {
            (self.status, self.type, self.body) = (status, type, body)
        }
    }

    private let documents: [String: Document]
    private let requests = Mutex<[String]>([])

    /// A site of `documents`, by target.
    package init(_ documents: [String: Document]) {
        self.documents = documents
    }

    /// A site of HTML pages, by target.
    package convenience init(pages: [String: String]) {
        self.init(pages.mapValues { Document(body: $0) })
    }

    /// Every request's target so far (`path` or `path?query`).
    package var log: [String] { requests.withLock { $0 } }

    /// Serves the site while `body` runs with its origin (`http://127.0.0.1:port`).
    package func run<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        router.middlewares.add(Responder(site: self))
        return try await withServer(label: "test-site") { onServerRunning, logger in
            Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: onServerRunning, logger: logger)
        } _: { port in
            guard port > 0 else { throw CancellationError() }
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
