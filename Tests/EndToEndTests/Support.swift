import Foundation
import Hummingbird
import MirrorTestSupport
import NIOCore
import Synchronization

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorFetch
@testable import SampleGallery

/// Sample images by format, for fixtures.
/// Renditions of one photo for tests: the same pixels in different bytes. A JPEG comment
/// segment (`FF FE`) after the file's start marker changes its bytes and leaves what it decodes
/// to as it was, as a site's re-encoded copy of a photo would (the pixel matcher confirms it as
/// a rendition; two different sample images are two photos).
enum Rendition {
    /// `jpeg` with the comment "rendition `number`"; `number` 0 is `jpeg` itself.
    static func of(_ jpeg: [UInt8], _ number: Int) -> [UInt8] {
        guard number > 0, jpeg.starts(with: [0xFF, 0xD8]) else { return jpeg }
        let text = Array("rendition \(number)".utf8)
        let length = text.count + 2
        return [0xFF, 0xD8, 0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + text + jpeg.dropFirst(2)
    }

    /// The bundled sample JPEGs, each a photo of its own.
    static let photos = SampleImage.bundled.filter { $0.format == "jpeg" }.map(\.bytes)
}

enum Fixture {
    static let png = SampleImage.bundled.first { $0.format == "png" }!.bytes
    static let jpeg = SampleImage.bundled.first { $0.format == "jpeg" }!.bytes

    /// A gallery for end-to-end tests: 12 good images, one 200-with-JSON-error, one 404;
    /// 5 per page, so 3 pages.
    static func catalog() -> GalleryCatalog {
        var entries = SampleImage.bundled.prefix(12).enumerated().map { index, image in
            GalleryCatalog.Entry(id: index + 1, name: image.name, price: image.price, bytes: image.bytes)
        }
        entries.append(.init(id: 13, name: "Broken <Frame>", price: "1.00", bytes: [], behavior: .jsonError))
        entries.append(.init(id: 14, name: "Gone", price: "2.00", bytes: [], behavior: .notFound))
        return GalleryCatalog(title: "Test Gallery", entries: entries, perPage: 5)
    }
}

/// Engine settings for tests: quick retries, short deadlines.
func testConfiguration(source: String, output: URL) -> MirrorConfiguration {
    var configuration = MirrorConfiguration(source: CanonicalURL(source)!, output: output)
    configuration.fetch.retry = RetryPolicy(
        maxAttempts: 3, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50), maxRetryAfter: .seconds(5))
    configuration.fetch.documentDeadline = .seconds(20)
    configuration.fetch.imageDeadline = .seconds(20)
    configuration.publish.itemsPerPage = 4
    return configuration
}

/// Every `href`, `src`, `srcset` candidate and `data-*` link (the search index, the pages a
/// photo view goes on to) of the mirror's generated pages, and every image the search index
/// names, checked to resolve to a file inside the mirror. Returns the problems.
func unresolvedReferences(in root: URL) throws -> [String] {
    var problems: [String] = []
    var pages = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasSuffix(".html") }
    let albums = root.appendingPathComponent("albums")
    pages += ((try? FileManager.default.contentsOfDirectory(atPath: albums.path)) ?? []).filter { $0.hasSuffix(".html") }
        .map { "albums/" + $0 }
    guard !pages.isEmpty else { return ["no pages"] }
    for page in pages {
        let html = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
        let folder = root.appendingPathComponent(page).deletingLastPathComponent()
        var references = html.matches(of: /(?:href|src|data-index|data-previous|data-next)="([^"]*)"/).map { String($0.1) }
        for match in html.matches(of: /srcset="([^"]*)"/) {
            references += match.1.split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) }
        }
        // A fragment names a place in a page (`#content`, a photo's card): the file is what must exist.
        for reference in references.map({ String($0.prefix { $0 != "#" }) }) where !reference.isEmpty {
            let target = folder.appendingPathComponent(reference).standardizedFileURL
            if reference.contains(":") || reference.hasPrefix("/") || !target.path.hasPrefix(root.standardizedFileURL.path + "/")
            {
                problems.append("\(page): \(reference) is not a relative link inside the mirror")
                continue
            }
            if !FileManager.default.fileExists(atPath: target.path) {
                problems.append("\(page): \(reference) does not exist")
            }
        }
    }
    // The search index's tiles: `images/` and each photo's second value.
    let index = root.appendingPathComponent("assets/search-index.js")
    if let script = try? String(contentsOf: index, encoding: .utf8) {
        for match in script.matches(of: /\n(?:0|"[^"]*"),"([^"]+)",/) {
            let file = root.appendingPathComponent("images").appendingPathComponent(String(match.1))
            if !FileManager.default.fileExists(atPath: file.path) {
                problems.append("assets/search-index.js: images/\(match.1) does not exist")
            }
        }
    } else if pages.contains(where: { page in
        (try? String(contentsOf: root.appendingPathComponent(page), encoding: .utf8))?.contains("search-index.js") ?? false
    }) {
        problems.append("assets/search-index.js is named by a page and missing")
    }
    return problems
}

/// A small Hummingbird server with routes chosen by the test, on `host` and an ephemeral port.
/// Records every request's path.
final class TestServer: Sendable {
    let requests = Mutex<[String]>([])

    func run<T: Sendable>(
        host: String = "127.0.0.1",
        routes: @Sendable (Router<BasicRequestContext>, _ origin: @escaping @Sendable () -> String) -> Void,
        _ body: @Sendable (String) async throws -> T
    ) async throws -> T {
        let origin = Mutex("")
        let router = Router()
        router.middlewares.add(Recorder(record: { [self] line in self.requests.withLock { $0.append(line) } }))
        routes(router) { origin.withLock { $0 } }
        return try await withServer(label: "test-server") { onServerRunning, logger in
            Application(
                router: router, configuration: .init(address: .hostname(host, port: 0)), onServerRunning: onServerRunning,
                logger: logger)
        } _: { port in
            origin.withLock { $0 = "http://\(host):\(port)" }
            return try await body("http://\(host):\(port)")
        }
    }

    var log: [String] { requests.withLock { $0 } }
}

struct Recorder<Context: RequestContext>: RouterMiddleware {
    let record: @Sendable (String) -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        record(request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""))
        return try await next(request, context)
    }
}

func html(_ text: String, charset: String = "utf-8") -> Response {
    Response(
        status: .ok, headers: [.contentType: "text/html; charset=\(charset)"], body: .init(byteBuffer: ByteBuffer(string: text)))
}

func bytes(_ bytes: [UInt8], type: String = "image/png", headers extra: HTTPFields = [:]) -> Response {
    var headers: HTTPFields = [.contentType: type]
    headers.append(contentsOf: extra)
    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
}
