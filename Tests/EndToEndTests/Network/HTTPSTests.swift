import AsyncHTTPClient
import Foundation
import Hummingbird
import MirrorTestSupport
import NIOCore
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorFetch
@testable import SampleGallery

/// HTTPS against a real TLS server on 127.0.0.1 with certificates made in the test.
@Suite("HTTPS")
struct HTTPSTests {
    /// Serves the fixture gallery over TLS with `identity`, runs `body` with its start URL.
    func withGallery<T: Sendable>(
        _ identity: ServerIdentity, _ body: @Sendable (GalleryServer, String) async throws -> T
    ) async throws -> T {
        let server = GalleryServer(catalog: Fixture.catalog(), scheme: "https")
        return try await serveTLS(server.makeRouter(), identity: identity) { port in
            try await body(server, "https://127.0.0.1:\(port)/gallery/")
        }
    }

    @Test("a gallery on HTTPS signed by --ca-certificate is mirrored whole, over HTTP/2")
    func trustedAuthority() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let authority = try TestAuthority()
        let caFile = try authority.writePEM(into: directory.url)
        let output = directory.url.appendingPathComponent("m")
        try await withGallery(try authority.serverIdentity()) { _, source in
            var configuration = testConfiguration(source: source, output: output)
            configuration.fetch.tls = TLSOptions(caCertificateFile: caFile)
            let report = try await MirrorEngine(configuration: configuration).run()
            #expect(report.exitStatus == 1)  // the fixture's two broken images
            let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            #expect(manifest.items.count == 12)
            #expect(manifest.items.allSatisfy { $0.key.hasPrefix("https://127.0.0.1:") })

            // The client the engine uses negotiates HTTP/2 by ALPN.
            let version = try await HTTPClients.with(configuration.fetch) { clients in
                let url = try #require(CanonicalURL(source))
                let response = try await clients.client(for: url).execute(
                    HTTPClientRequest(url: source), timeout: .seconds(10))
                _ = try await response.body.collect(upTo: 1 << 20)
                return response.version
            }
            #expect(version == .http2)
        }
    }

    @Test(
        "a refused certificate ends the run with one line naming the host, what is wrong and the fix",
        arguments: ["untrusted", "expired", "wrong-host"])
    func refused(problem: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let authority = try TestAuthority()
        let caFile = try authority.writePEM(into: directory.url)
        let identity: ServerIdentity
        switch problem {
        case "expired":
            identity = try authority.serverIdentity(from: Date() - 20 * 86_400, until: Date() - 10 * 86_400)
        case "wrong-host":
            identity = try authority.serverIdentity(names: ["gallery.example.org"])
        default:
            identity = try authority.serverIdentity()
        }
        let output = directory.url.appendingPathComponent("m")
        let result = try await withGallery(identity) { _, source in
            var arguments = ["sync", source, "--out", output.path]
            if problem != "untrusted" { arguments += ["--ca-certificate", caFile] }
            return try await runBinary(arguments, in: directory.url)
        }
        #expect(result.status == 3)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result.stderr)")
        let line = try #require(lines.first)
        #expect(line.contains("127.0.0.1"))
        #expect(!line.contains("BoringSSL") && !line.contains("handshakeFailed"))
        switch problem {
        case "expired": #expect(line.contains("expired on"))
        case "wrong-host": #expect(line.contains("issued for gallery.example.org, not 127.0.0.1"))
        default: #expect(line.contains("not signed by an authority") && line.contains("--ca-certificate"))
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("--no-check-certificate mirrors from an untrusted server and warns on every run, the cron form too")
    func noCheck() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("m")
        let identity = try TestAuthority().serverIdentity()
        try await withGallery(identity) { _, source in
            let first = try await runBinary(["sync", source, "--out", output.path, "--no-check-certificate"], in: directory.url)
            #expect(first.status == 1, "\(first.stderr)")
            #expect(first.stderr.contains("warning: --no-check-certificate"))
            let cron = try await runBinary(["sync", "--out", output.path], in: directory.url)
            #expect(cron.status == 1, "\(cron.stderr)")
            #expect(cron.stderr.contains("warning: --no-check-certificate"))
        }
        let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
        #expect(manifest.items.count == 12)
    }

    @Test("a redirect from http to https on the same host is followed")
    func upgradeRedirect() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let authority = try TestAuthority()
        let caFile = try authority.writePEM(into: directory.url)
        let output = directory.url.appendingPathComponent("m")
        try await withGallery(try authority.serverIdentity()) { _, secure in
            let redirector = TestServer()
            try await redirector.run(routes: { router, _ in
                router.get("/gallery/") { _, _ in
                    Response(status: .movedPermanently, headers: [.location: secure])
                }
            }) { origin in
                var configuration = testConfiguration(source: origin + "/gallery/", output: output)
                configuration.fetch.tls = TLSOptions(caCertificateFile: caFile)
                _ = try await MirrorEngine(configuration: configuration).run()
            }
        }
        let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
        #expect(manifest.items.count == 12)
        #expect(manifest.items.allSatisfy { $0.key.hasPrefix("https://") })
    }

    @Test("a --ca-certificate file that is missing or not PEM is a usage error naming it")
    func badAuthorityFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let junk = directory.url.appendingPathComponent("junk.pem")
        try Data("not a certificate".utf8).write(to: junk)
        for path in [junk.path, directory.url.appendingPathComponent("missing.pem").path] {
            let result = try await runBinary(
                [
                    "sync", "https://127.0.0.1:9/", "--out", directory.url.appendingPathComponent("m").path, "--ca-certificate",
                    path,
                ],
                in: directory.url)
            #expect(result.status == 2)
            #expect(result.stderr.contains(path))
        }
    }
}
