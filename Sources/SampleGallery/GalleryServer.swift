import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A real HTTP gallery on a loopback port (Hummingbird): paginated HTML pages under `/gallery/`,
/// an RSS feed (`/gallery/feed.rss`), a JSON listing (`/gallery/images`, every image listed three
/// times, shuffled, as the EmojiArt catalog server does), images at `/gallery/image?N` served as
/// `application/octet-stream`, and `/robots.txt`. Used by `catalog-mirror demo` and by tests.
public final class GalleryServer: Sendable {
    private let catalog: Mutex<GalleryCatalog>
    private let requests = Mutex<[String]>([])
    private let exchanges = Mutex<[Exchange]>([])

    /// One request and the status it got.
    struct Exchange: Sendable, Equatable {
        /// `path?query`.
        var target: String
        var status: Int
        /// Whether the request carried `If-None-Match` or `If-Modified-Since`.
        var conditional: Bool
        /// Body bytes sent.
        var bodyBytes: Int
    }

    /// The scheme of the absolute URLs the pages and feeds give (tests serve the router over TLS).
    let scheme: String

    /// A server showing `catalog`; `scheme` is the scheme its absolute URLs use. Default: `http`.
    public init(catalog: GalleryCatalog, scheme: String = "http") {
        self.catalog = Mutex(catalog)
        self.scheme = scheme
    }

    /// Replaces the catalog the server shows (tests change it between runs).
    func update(_ change: (inout GalleryCatalog) -> Void) {
        catalog.withLock { change(&$0) }
    }

    /// Every request served so far, as `path?query`, in arrival order.
    var requestLog: [String] { requests.withLock { $0 } }

    /// Every request served so far with its answer, in completion order.
    var exchangeLog: [Exchange] { exchanges.withLock { $0 } }

    /// Starts the server on `host` with an ephemeral port, runs `body` with the gallery's start
    /// URL (`http://host:port/gallery/`), then stops the server.
    ///
    /// - Parameters:
    ///   - host: The address to listen on. Default: `127.0.0.1` (loopback only).
    ///   - body: What to do while the gallery serves; its result is returned.
    /// - Throws: An error whose description names `host` when no port can be bound, or what
    ///   `body` throws.
    public func run<T: Sendable>(host: String = "127.0.0.1", _ body: @Sendable (URL) async throws -> T) async throws -> T {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "sample-gallery")
        logger.logLevel = .critical
        let app = Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(host, port: 0), serverName: "sample-gallery"),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await app.runService(gracefulShutdownSignals: [])
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next(), port > 0,
                let url = URL(string: "http://\(host):\(port)/gallery/")
            else {
                group.cancelAll()
                throw GalleryServerError(message: "the sample gallery could not bind a port on \(host)")
            }
            do {
                let result = try await body(url)
                group.cancelAll()
                return result
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }

    /// The gallery's routes (internal so tests can serve them over TLS).
    func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(
            RequestLogger(
                log: { [weak self] line in self?.requests.withLock { $0.append(line) } },
                answered: { [weak self] exchange in self?.exchanges.withLock { $0.append(exchange) } }))
        router.get("/robots.txt") { _, _ in
            let rules = self.catalog.withLock { $0.disallowed }.map { "Disallow: \($0)" }.joined(separator: "\n")
            return Self.response("User-agent: *\n\(rules)\n", type: "text/plain; charset=utf-8")
        }
        router.get("/gallery/") { request, _ in
            let page = request.uri.queryParameters.get("page").flatMap { Int($0) } ?? 1
            let catalog = self.catalog.withLock { $0 }
            guard (1...catalog.pageCount).contains(page) || catalog.outage else {
                return Self.response("no such page", type: "text/plain", status: .notFound)
            }
            return self.document(
                GalleryPages.page(page, of: catalog, origin: self.origin(request)), type: "text/html; charset=utf-8",
                request: request)
        }
        router.get("/gallery/feed.rss") { request, _ in
            self.document(
                GalleryPages.rss(self.catalog.withLock { $0 }, origin: self.origin(request)),
                type: "application/rss+xml; charset=utf-8", request: request)
        }
        router.get("/gallery/images") { request, _ in
            self.document(
                GalleryPages.listing(self.catalog.withLock { $0 }, origin: self.origin(request)), type: "application/json",
                request: request)
        }
        router.get("/gallery/image") { request, _ in
            let delay = self.catalog.withLock { $0.imageDelay }
            if delay > .zero { try await Task.sleep(for: delay) }
            return self.image(request, head: false)
        }
        router.head("/gallery/image") { request, _ in
            let response = self.image(request, head: true)
            return Response(status: response.status, headers: response.headers, body: .init())
        }
        return router
    }

    /// The image endpoint: bytes as `application/octet-stream` (as the EmojiArt server serves
    /// them), with validators; a matching conditional request gets 304. HEAD sends the headers only.
    private func image(_ request: Request, head: Bool) -> Response {
        let id = (request.uri.query ?? "").split(separator: "&").first.flatMap { Int($0) }
        guard let id, let entry = catalog.withLock({ $0.entry(id: id) }) else {
            return Self.response("{\"error\": \"no such image\"}", type: "application/json", status: .notFound)
        }
        switch entry.behavior {
        case .image:
            let lastModified = GalleryPages.httpDate(entry.modified)
            var headers: HTTPFields = [.eTag: entry.etag, .lastModified: lastModified]
            if Self.isFresh(request, etag: entry.etag, lastModified: lastModified) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = "application/octet-stream"
            if head {
                headers[.contentLength] = "\(entry.bytes.count)"
                return Response(status: .ok, headers: headers, body: .init())
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: entry.bytes)))
        case .jsonError:
            return Self.response("{\"error\": \"image \(id) is not available\"}", type: "application/octet-stream")
        case .notFound:
            return Self.response("{\"error\": \"not found\"}", type: "application/json", status: .notFound)
        }
    }

    /// Whether a conditional request's validators match (RFC 9110 section 13.1).
    private static func isFresh(_ request: Request, etag: String, lastModified: String?) -> Bool {
        if let match = request.headers[.ifNoneMatch] {
            return match.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == etag || $0 == "*" }
        }
        if let since = request.headers[.ifModifiedSince], let lastModified { return since == lastModified }
        return false
    }

    /// A page, feed or listing with a strong ETag of its body; 304 when it still matches.
    private func document(_ text: String, type: String, request: Request) -> Response {
        if catalog.withLock({ $0.outage }) { return Self.response("outage", type: "text/plain", status: .internalServerError) }
        return Self.document(text, type: type, request: request)
    }

    private static func document(_ text: String, type: String, request: Request) -> Response {
        let bytes = Array(text.utf8)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let etag = "\"d" + String(hash, radix: 16) + "\""
        if isFresh(request, etag: etag, lastModified: nil) {
            return Response(status: .notModified, headers: [.eTag: etag])
        }
        return Response(
            status: .ok, headers: [.contentType: type, .eTag: etag], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private func origin(_ request: Request) -> String {
        scheme + "://" + (request.head.authority ?? "127.0.0.1")
    }

    private static func response(_ text: String, type: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Records each request's path and query, and how it was answered.
struct RequestLogger<Context: RequestContext>: RouterMiddleware {
    let log: @Sendable (String) -> Void
    let answered: @Sendable (GalleryServer.Exchange) -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
        log(target)
        let response = try await next(request, context)
        let conditional = request.headers[.ifNoneMatch] != nil || request.headers[.ifModifiedSince] != nil
        answered(
            GalleryServer.Exchange(
                target: target, status: Int(response.status.code), conditional: conditional,
                bodyBytes: response.body.contentLength ?? 0))
        return response
    }
}

/// The sample gallery could not start.
struct GalleryServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
