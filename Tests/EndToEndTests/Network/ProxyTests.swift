import Foundation
import MirrorTestSupport
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorFetch
@testable import SampleGallery

/// Proxies: `--proxy`, the environment as curl reads it, `no_proxy`, and proxy credentials,
/// through a real CONNECT proxy on loopback.
@Suite("Proxies")
struct ProxyTests {
    @Test("the environment is read as curl reads it: scheme-specific, then all_proxy; no_proxy by domain")
    func environment() throws {
        let routes = try ProxyRoutes.resolve(
            option: nil,
            environment: [
                "HTTPS_PROXY": "http://secure.proxy:3128", "all_proxy": "proxy.example:8080",
                "no_proxy": "internal.example, .corp.example,10.1.2.3",
            ])
        #expect(routes.https?.host == "secure.proxy" && routes.https?.port == 3128)
        #expect(routes.http?.host == "proxy.example" && routes.http?.port == 8080)
        let url = { (text: String) in CanonicalURL(text)! }
        #expect(routes.proxy(for: url("https://gallery.example/"))?.host == "secure.proxy")
        #expect(routes.proxy(for: url("http://gallery.example/"))?.host == "proxy.example")
        #expect(routes.proxy(for: url("http://internal.example/a")) == nil)
        #expect(routes.proxy(for: url("http://img.internal.example/a")) == nil)
        #expect(routes.proxy(for: url("http://x.corp.example/")) == nil)
        #expect(routes.proxy(for: url("http://10.1.2.3/")) == nil)
        #expect(routes.proxy(for: url("http://notinternal.example/"))?.host == "proxy.example")
        // Lower case wins over upper case; --proxy wins over both; --proxy "" means none.
        let both = try ProxyRoutes.resolve(
            option: nil, environment: ["http_proxy": "http://lower:1", "HTTP_PROXY": "http://upper:2"])
        #expect(both.http?.host == "lower")
        let given = try ProxyRoutes.resolve(option: "http://u:p%40ss@given:9", environment: ["http_proxy": "http://lower:1"])
        #expect(given.http?.host == "given" && given.https?.host == "given" && given.http?.password == "p@ss")
        #expect("\(given.http!)" == "http://given:9")
        #expect(try ProxyRoutes.resolve(option: "", environment: ["http_proxy": "http://lower:1"]).http == nil)
        #expect(throws: ProxyRoutes.Error.self) { try ProxyRoutes.resolve(option: "ftp://x:1", environment: [:]) }
    }

    @Test("--proxy carries every request; no_proxy hosts go direct")
    func throughProxy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let proxy = ConnectProxy()
        let server = GalleryServer(catalog: Fixture.catalog())
        try await proxy.run { proxyPort in
            try await server.run { url in
                let origin = "127.0.0.1:\(url.port ?? 0)"
                var configuration = testConfiguration(
                    source: url.absoluteString, output: directory.url.appendingPathComponent("proxied"))
                configuration.fetch.proxy = try ProxyRoutes.resolve(option: "http://127.0.0.1:\(proxyPort)", environment: [:])
                _ = try await MirrorEngine(configuration: configuration).run()
                #expect(!proxy.log.isEmpty)
                #expect(proxy.log.allSatisfy { $0 == origin })

                let before = proxy.log.count
                var direct = testConfiguration(source: url.absoluteString, output: directory.url.appendingPathComponent("direct"))
                direct.fetch.proxy = try ProxyRoutes.resolve(
                    option: "http://127.0.0.1:\(proxyPort)", environment: ["no_proxy": "localhost,127.0.0.1"])
                _ = try await MirrorEngine(configuration: direct).run()
                #expect(proxy.log.count == before)
            }
        }
        for name in ["proxied", "direct"] {
            let manifest = try Manifest.read(
                from: directory.url.appendingPathComponent(name).appendingPathComponent("manifest.json"))
            #expect(manifest.items.count == 12)
        }
    }

    @Test("https_proxy from the environment with credentials: used, tunnelled, never saved")
    func environmentWithCredentials() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let authority = try TestAuthority()
        let caFile = try authority.writePEM(into: directory.url)
        let output = directory.url.appendingPathComponent("m")
        let token = "Basic " + Data("mirror:pr0xy-s3cret".utf8).base64EncodedString()
        let proxy = ConnectProxy(requiredAuthorization: token)
        let server = GalleryServer(catalog: Fixture.catalog(), scheme: "https")
        try await proxy.run { proxyPort in
            try await serveTLS(server.makeRouter(), identity: try authority.serverIdentity()) { port in
                let source = "https://127.0.0.1:\(port)/gallery/"
                let environment = ["https_proxy": "http://mirror:pr0xy-s3cret@127.0.0.1:\(proxyPort)"]
                let first = try await runBinary(
                    ["sync", source, "--out", output.path, "--ca-certificate", caFile, "--report", output.path + "-report.json"],
                    in: directory.url, environment: environment)
                #expect(first.status == 1, "\(first.stderr)")
                #expect(proxy.log.contains("127.0.0.1:\(port)"))
                // A wrong password: the proxy refuses, and the message says what to do.
                let refused = try await runBinary(
                    ["sync", "--out", output.path], in: directory.url,
                    environment: ["https_proxy": "http://mirror:wrong@127.0.0.1:\(proxyPort)"])
                #expect(refused.status == 3)
                #expect(refused.stderr.contains("proxy"))
                #expect(!refused.stderr.contains("wrong"))
            }
        }
        #expect(filesContaining("pr0xy-s3cret", under: output).isEmpty)
        #expect(filesContaining("pr0xy-s3cret", under: directory.url).isEmpty)
    }
}
