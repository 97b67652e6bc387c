import Foundation
import Hummingbird
import Logging
import MirrorTestSupport
import NIOCore
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorFetch
@testable import SampleGallery

/// Answers 401 to every request whose `header` is not `value` (so a gallery needs a cookie or a
/// login), and records what credential headers each request carried.
struct RequireHeader<Context: RequestContext>: RouterMiddleware {
    let header: HTTPFields.Element.Name
    let accepts: @Sendable (String?) -> Bool
    let seen: @Sendable (String, String?, String?) -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response
    {
        seen(request.uri.path, request.headers[.authorization], request.headers[.cookie])
        guard accepts(request.headers[header]) else {
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Basic realm=\"gallery\""])
        }
        return try await next(request, context)
    }
}

/// The gallery's routes behind a gate: a request whose `header` `accepts` refuses is answered
/// 401 (middleware added to a router after its routes would not apply to them).
func gated(
    _ router: Router<BasicRequestContext>, header: HTTPFields.Element.Name, accepts: @escaping @Sendable (String?) -> Bool
) -> CallbackResponder<BasicRequestContext> {
    let inner = router.buildResponder()
    return CallbackResponder { request, context in
        guard accepts(request.headers[header]) else {
            return Response(status: .unauthorized, headers: [.wwwAuthenticate: "Basic realm=\"gallery\""])
        }
        return try await inner.respond(to: request, context: context)
    }
}

/// Serves `router` on `host` (plain HTTP) and runs `body` with its origin.
func servePlain<T: Sendable>(
    _ router: Router<BasicRequestContext>, host: String = "127.0.0.1", _ body: @Sendable (String) async throws -> T
) async throws -> T {
    try await servePlain(responder: router.buildResponder(), host: host, body)
}

/// Serves `responder` on `host` (plain HTTP) and runs `body` with its origin.
func servePlain<T: Sendable, R: HTTPResponder>(
    responder: R, host: String = "127.0.0.1", _ body: @Sendable (String) async throws -> T
) async throws -> T where R.Context == BasicRequestContext {
    try await withServer(label: "sign-in-test") { onServerRunning, logger in
        Application(
            responder: responder, configuration: .init(address: .hostname(host, port: 0)), onServerRunning: onServerRunning,
            logger: logger)
    } _: { port in
        try await body("http://\(host):\(port)")
    }
}

@Suite("Sign-in and headers")
struct SignInTests {
    @Test(
        "a cookie-gated gallery is mirrored with --cookies and --header @FILE, then synced in the cron form; no secret under DIR")
    func cookieGallery() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("m")
        let report = directory.url.appendingPathComponent("report.json")
        let headerFile = directory.url.appendingPathComponent("headers.txt")
        try Data("# sent to the gallery\nX-Api-Token: t0ken-s3cret\nX-Client: test\n".utf8).write(to: headerFile)
        let server = GalleryServer(catalog: Fixture.catalog())
        let responder = gated(server.makeRouter(), header: .cookie) { $0?.contains("session=c00kie-s3cret") ?? false }
        try await servePlain(responder: responder) { origin in
            let cookies = directory.url.appendingPathComponent("cookies.txt")
            try Data(
                """
                # Netscape HTTP Cookie File
                #HttpOnly_127.0.0.1\tFALSE\t/gallery\tFALSE\t0\tsession\tc00kie-s3cret
                127.0.0.1\tFALSE\t/\tFALSE\t1\told\texpired-value
                127.0.0.1\tFALSE\t/\tTRUE\t0\tsecure\thttps-only

                """.utf8
            ).write(to: cookies)
            let first = try await runBinary(
                [
                    "sync", origin + "/gallery/", "--out", output.path, "--cookies", cookies.path, "--header",
                    "@" + headerFile.path, "--report", report.path,
                ], in: directory.url)
            #expect(first.status == 1, "\(first.stderr)")
            let cron = try await runBinary(["sync", "--out", output.path, "--report", report.path], in: directory.url)
            #expect(cron.status == 1, "\(cron.stderr)")
            // Without the cookie the gallery cannot be read at all.
            let without = try await runBinary(
                ["sync", origin + "/gallery/", "--out", directory.url.appendingPathComponent("n").path], in: directory.url)
            #expect(without.status == 3)
        }
        let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
        #expect(manifest.items.count == 12)
        for secret in ["c00kie-s3cret", "t0ken-s3cret"] {
            #expect(filesContaining(secret, under: output).isEmpty)
            #expect(
                filesContaining(secret, under: directory.url).sorted() == [secret.hasPrefix("c") ? "cookies.txt" : "headers.txt"])
        }
        let settings = try String(contentsOf: output.appendingPathComponent(".catalog-mirror/settings.json"), encoding: .utf8)
        #expect(settings.contains(headerFile.path) && settings.contains("cookies.txt"))
    }

    @Test("a basic-auth gallery is mirrored with --netrc, then synced in the cron form; the password is never written")
    func netrcGallery() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("m")
        let netrc = directory.url.appendingPathComponent("netrc")
        try Data("machine other.example login x password y\nmachine 127.0.0.1\n  login mirror\n  password n3trc-s3cret\n".utf8)
            .write(to: netrc)
        let expected = "Basic " + Data("mirror:n3trc-s3cret".utf8).base64EncodedString()
        let server = GalleryServer(catalog: Fixture.catalog())
        let responder = gated(server.makeRouter(), header: .authorization) { $0 == expected }
        try await servePlain(responder: responder) { origin in
            let environment = ["NETRC": netrc.path]
            let first = try await runBinary(
                ["sync", origin + "/gallery/", "--out", output.path, "--netrc"], in: directory.url, environment: environment)
            #expect(first.status == 1, "\(first.stderr)")
            let cron = try await runBinary(["sync", "--out", output.path], in: directory.url, environment: environment)
            #expect(cron.status == 1, "\(cron.stderr)")
            let without = try await runBinary(
                ["sync", origin + "/gallery/", "--out", directory.url.appendingPathComponent("n").path], in: directory.url,
                environment: environment)
            #expect(without.status == 3)
        }
        #expect(try Manifest.read(from: output.appendingPathComponent("manifest.json")).items.count == 12)
        #expect(filesContaining("n3trc-s3cret", under: output).isEmpty)
        #expect(filesContaining(expected, under: output).isEmpty)
    }

    @Test(
        "credentials go to the source's host only: a redirect to another host carries none; an inline one warns and is not saved")
    func credentialsStayHome() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("m")
        let cookies = directory.url.appendingPathComponent("cookies.txt")
        // Seen on the other host: path, Authorization, Cookie, X-Client.
        let elsewhere = Mutex<[String]>([])
        let otherRouter = Router()
        otherRouter.middlewares.add(
            RequireHeader(
                header: .accept, accepts: { _ in true },
                seen: { path, authorization, cookie in
                    elsewhere.withLock { $0.append("\(path) \(authorization ?? "-") \(cookie ?? "-")") }
                }))
        otherRouter.get("/img/{name}") { _, _ in bytes(Fixture.png) }
        let result = try await servePlain(otherRouter, host: "localhost") { other in
            let router = Router()
            router.middlewares.add(
                RequireHeader(header: .authorization, accepts: { $0 == "Bearer inl1ne-s3cret" }, seen: { _, _, _ in }))
            router.get("/gallery/") { _, _ in
                html(
                    #"<html><head><title>Home</title></head><body><img src="/away.png" alt="Away"><img src="/here.png" alt="Here"></body></html>"#
                )
            }
            router.get("/away.png") { _, _ in Response(status: .found, headers: [.location: other + "/img/away.png"]) }
            router.get("/here.png") { _, _ in bytes(Fixture.png) }
            return try await servePlain(router) { origin in
                try Data("127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tc00kie-s3cret\n".utf8).write(to: cookies)
                return try await runBinary(
                    [
                        "sync", origin + "/gallery/", "--out", output.path, "--allow-host", "localhost", "--header",
                        "Authorization: Bearer inl1ne-s3cret", "--cookies", cookies.path,
                    ], in: directory.url)
            }
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: --header Authorization given inline is used for this run only"))
        #expect(elsewhere.withLock { $0 }.filter { !$0.hasPrefix("/robots.txt") } == ["/img/away.png - -"])
        #expect(try Manifest.read(from: output.appendingPathComponent("manifest.json")).items.count == 2)
        #expect(filesContaining("inl1ne-s3cret", under: output).isEmpty)
    }

    @Test("cookies.txt: domain, subdomains, path, secure and expiry decide which cookies a URL gets")
    func cookieMatching() throws {
        let jar = CookieJar(
            parsing: """
                # comment
                .example.com\tTRUE\t/\tFALSE\t0\tsite\t1
                example.com\tFALSE\t/shop\tFALSE\t0\tshop\t2
                #HttpOnly_img.example.com\tFALSE\t/\tTRUE\t4102444800\tsecure\t3
                example.com\tFALSE\t/\tFALSE\t946684800\told\t4
                broken line
                """)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func header(_ url: String) -> String? { jar.header(for: CanonicalURL(url)!, now: now) }
        #expect(header("http://example.com/") == "site=1")
        #expect(header("http://example.com/shop/cart") == "shop=2; site=1")
        #expect(header("http://example.com/shopping") == "site=1")
        #expect(header("http://img.example.com/a.png") == "site=1")
        #expect(header("https://img.example.com/a.png") == "site=1; secure=3")
        #expect(header("http://other.com/") == nil)
        #expect(jar.cookies.count == 4)
        #expect(jar.cookies[2].httpOnly)
    }

    @Test("netrc: the host's machine entry, else default; macdef skipped")
    func netrcParsing() {
        let text = """
            macdef init
            machine evil.example login bad password bad

            machine gallery.example login alice password s3cret
            default login anon password guest
            """
        #expect(NetrcLogin.parse(text, host: "GALLERY.example") == NetrcLogin(login: "alice", password: "s3cret"))
        #expect(NetrcLogin.parse(text, host: "other.example") == NetrcLogin(login: "anon", password: "guest"))
        #expect(NetrcLogin.parse(text, host: "evil.example") == NetrcLogin(login: "anon", password: "guest"))
    }
}

@Suite("Headers everywhere")
struct PlainHeaderTests {
    @Test("--user-agent and a plain --header go to every host and are saved for the cron form")
    func plainHeaders() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("m")
        // What each request carried: path, User-Agent, X-Client.
        let seen = Mutex<[String]>([])
        let router = Router()
        router.get("/gallery/") { request, _ in
            seen.withLock {
                $0.append(
                    "page \(request.headers[.userAgent] ?? "-") \(request.headers[HTTPFields.Element.Name("X-Client")!] ?? "-")")
            }
            return html(#"<html><body><img src="/img/a.png" alt="A"></body></html>"#)
        }
        router.get("/img/{name}") { request, _ in
            seen.withLock {
                $0.append(
                    "image \(request.headers[.userAgent] ?? "-") \(request.headers[HTTPFields.Element.Name("X-Client")!] ?? "-")")
            }
            return bytes(Fixture.png)
        }
        try await servePlain(router) { origin in
            let first = try await runBinary(
                [
                    "sync", origin + "/gallery/", "--out", output.path, "--user-agent", "GalleryBot/2.0", "--header",
                    "X-Client: nightly",
                ],
                in: directory.url)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(!first.stderr.contains("warning"))
            let cron = try await runBinary(["sync", "--out", output.path], in: directory.url)
            #expect(cron.status == 0, "\(cron.stderr)")
        }
        let log = seen.withLock { $0 }
        #expect(log.count >= 3)
        #expect(log.allSatisfy { $0.hasSuffix(" GalleryBot/2.0 nightly") }, "\(log)")
    }
}
