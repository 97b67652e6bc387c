import Foundation
import Hummingbird
import Logging
import MirrorTestSupport
import Synchronization

/// A static web server for one directory, as nginx would serve a generated gallery: files under
/// `mount` (directories serve their `index.html`, a directory without the slash is redirected),
/// Content-Type by extension, ETag and Last-Modified with 304 answers to conditional requests.
/// Hummingbird's `FileMiddleware` does all of that; this adds the log of every request.
final class StaticSiteServer: Sendable {
    /// One request as the server saw it, and its status.
    struct Exchange: Sendable {
        var method: String
        var path: String
        var ifNoneMatch: String?
        var ifModifiedSince: String?
        var status: Int

        /// Whether the request was conditional (a client revalidating what it has).
        var isConditional: Bool { ifNoneMatch != nil || ifModifiedSince != nil }
    }

    let directory: URL
    let mount: String
    private let exchanges = Mutex<[Exchange]>([])

    /// A server for `directory` under the URL path `mount` (which starts and ends with "/").
    init(directory: URL, mount: String) {
        self.directory = directory
        self.mount = mount
    }

    /// Every request so far, in the order they were answered.
    var log: [Exchange] { exchanges.withLock { $0 } }

    /// Runs the server on 127.0.0.1 and an ephemeral port while `body` runs with the site's root URL
    /// (`http://127.0.0.1:PORT/mount/`).
    func run<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        router.middlewares.add(ExchangeRecorder { [self] exchange in exchanges.withLock { $0.append(exchange) } })
        router.middlewares.add(
            FileMiddleware(directory.path, urlBasePath: mount == "/" ? nil : String(mount.dropLast()), searchForIndexHtml: true))
        return try await withServer(label: "static-site-server") { onServerRunning, logger in
            Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: onServerRunning, logger: logger)
        } _: { port in
            try await body("http://127.0.0.1:\(port)\(mount)")
        }
    }
}

/// Records each request with its conditional headers and the status answered (404 for a file
/// that is not there, which `FileMiddleware` reports by throwing).
struct ExchangeRecorder<Context: RequestContext>: RouterMiddleware {
    let record: @Sendable (StaticSiteServer.Exchange) -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        var exchange = StaticSiteServer.Exchange(
            method: request.method.rawValue, path: request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""),
            ifNoneMatch: request.headers[.ifNoneMatch], ifModifiedSince: request.headers[.ifModifiedSince], status: 0)
        do {
            let response = try await next(request, context)
            exchange.status = response.status.code
            record(exchange)
            return response
        } catch let error as any HTTPResponseError {
            exchange.status = error.status.code
            record(exchange)
            throw error
        } catch {
            exchange.status = 500
            record(exchange)
            throw error
        }
    }
}
