import Foundation
import Hummingbird
import MirrorTestSupport
import NIOCore
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorOperate

@Suite("Fetching from servers that misbehave")
struct ServerBehaviourTests {
    /// Runs one mirror of `page` (served at /) with extra `routes`, returns the manifest.
    func mirror(
        page: String, server: TestServer = TestServer(), configure: @Sendable (inout MirrorConfiguration) -> Void = { _ in },
        routes: @escaping @Sendable (Router<BasicRequestContext>, @escaping @Sendable () -> String) -> Void
    ) async throws -> (Manifest, RunReport) {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("m")
        return try await server.run(routes: { router, origin in
            router.get("/") { _, _ in html(page.replacingOccurrences(of: "ORIGIN", with: origin())) }
            routes(router, origin)
        }) { origin in
            var configuration = testConfiguration(source: origin + "/", output: output)
            configure(&configuration)
            let report = try await MirrorEngine(configuration: configuration).run()
            return (try Manifest.read(from: output.appendingPathComponent("manifest.json")), report)
        }
    }

    func reasons(_ manifest: Manifest) -> [String: String] {
        Dictionary(uniqueKeysWithValues: manifest.rejected.map { (String($0.key.split(separator: "/").last!), $0.reason) })
    }

    @Test("redirects are followed in scope; out of scope, looping or endless ones are named and not followed")
    func redirects() async throws {
        let elsewhere = TestServer()
        try await elsewhere.run(
            host: "127.0.0.2",
            routes: { router, _ in
                router.get("/x.png") { _, _ in bytes(Fixture.png) }
            }
        ) { otherOrigin in
            let (manifest, report) = try await mirror(
                page: """
                    <img src="/moved.png"><img src="/away.png"><img src="/loop-a.png"><img src="/hop/0.png">
                    """
            ) { router, _ in
                router.get("/moved.png") { _, _ in Response(status: .found, headers: [.location: "/final.png"]) }
                router.get("/final.png") { _, _ in bytes(Fixture.png) }
                router.get("/away.png") { _, _ in
                    Response(status: .movedPermanently, headers: [.location: otherOrigin + "/x.png"])
                }
                router.get("/loop-a.png") { _, _ in Response(status: .found, headers: [.location: "/loop-b.png"]) }
                router.get("/loop-b.png") { _, _ in Response(status: .temporaryRedirect, headers: [.location: "/loop-a.png"]) }
                router.get("/hop/{n}") { _, context in
                    let n = Int(context.parameters.get("n")!.split(separator: ".")[0])!
                    return Response(status: .found, headers: [.location: "/hop/\(n + 1).png"])
                }
            }
            // The redirected image is keyed by the URL the page lists.
            #expect(manifest.items.map { $0.key.split(separator: "/").last! } == ["moved.png"])
            #expect(
                reasons(manifest) == ["away.png": "out-of-scope", "loop-a.png": "redirect-loop", "0.png": "too-many-redirects"])
            #expect(elsewhere.log.isEmpty, "a request left scope: \(elsewhere.log)")
            #expect(report.failed == ["redirect-loop": 1, "too-many-redirects": 1])
        }
    }

    @Test("under the default scope another host gets no request at all: no robots.txt, page, image or redirect")
    func nothingLeavesScope() async throws {
        let elsewhere = TestServer()
        try await elsewhere.run(
            host: "127.0.0.2",
            routes: { router, _ in
                router.get("/robots.txt") { _, _ in html("User-agent: *\nDisallow:\n") }
                router.get("/x.png") { _, _ in bytes(Fixture.png) }
                router.get("/page.html") { _, _ in html("<img src=\"/x.png\">") }
            }
        ) { otherOrigin in
            // Robots honoured (the default): every key the page names on the other host is one
            // whose origin's robots.txt would be asked for, were scope not checked first.
            let (manifest, report) = try await mirror(
                page: """
                    <a href="\(otherOrigin)/page.html">elsewhere</a><img src="\(otherOrigin)/x.png">
                    <a href="\(otherOrigin)/big.png"><img src="/here.png"></a>
                    <img src="/away.png"><a href="/leave.html">a page that leaves</a>
                    """,
                configure: { #expect($0.validation.honourRobots) }
            ) { router, _ in
                router.get("/here.png") { _, _ in bytes(Fixture.png) }
                router.get("/away.png") { _, _ in
                    Response(status: .movedPermanently, headers: [.location: otherOrigin + "/x.png"])
                }
                router.get("/leave.html") { _, _ in
                    Response(status: .found, headers: [.location: otherOrigin + "/page.html"])
                }
            }
            #expect(elsewhere.log.isEmpty, "a request left scope: \(elsewhere.log)")
            #expect(manifest.items.map { $0.key.split(separator: "/").last! } == ["here.png"])
            #expect(reasons(manifest)["x.png"] == "out-of-scope")
            #expect(reasons(manifest)["away.png"] == "out-of-scope")
            #expect(report.exitStatus == 0, "\(report.warnings)")
        }
    }

    @Test("--allow-host lets another host in; 127.0.0.1 and localhost stay different hosts")
    func allowHost() async throws {
        let elsewhere = TestServer()
        try await elsewhere.run(
            host: "127.0.0.2",
            routes: { router, _ in
                router.get("/x.png") { _, _ in bytes(Fixture.png) }
            }
        ) { otherOrigin in
            let localhost = otherOrigin.replacingOccurrences(of: "127.0.0.2", with: "localhost")
            let (manifest, _) = try await mirror(
                page: "<img src=\"\(otherOrigin)/x.png\"><img src=\"\(localhost)/y.png\">",
                configure: { $0.validation.allowedHosts = ["127.0.0.2"] }
            ) { _, _ in }
            #expect(manifest.items.map(\.key) == [otherOrigin + "/x.png"])
            #expect(manifest.rejected.map(\.reason) == ["out-of-scope"])
        }
    }

    @Test("5xx and 429 are retried, honouring Retry-After; a lasting failure is named and exits 1")
    func retries() async throws {
        let attempts = Mutex<[String: Int]>([:])
        let (manifest, report) = try await mirror(
            page: "<img src=\"/flaky.png\"><img src=\"/busy.png\"><img src=\"/down.png\"><img src=\"/patient.png\">"
        ) { router, _ in
            @Sendable func count(_ name: String) -> Int {
                attempts.withLock {
                    $0[name, default: 0] += 1; return $0[name]!
                }
            }
            router.get("/flaky.png") { _, _ in count("flaky") < 3 ? Response(status: .internalServerError) : bytes(Fixture.png) }
            router.get("/busy.png") { _, _ in
                count("busy") < 2
                    ? Response(status: .tooManyRequests, headers: [.retryAfter: "1"]) : bytes(Fixture.jpeg, type: "image/jpeg")
            }
            router.get("/down.png") { _, _ in
                _ = count("down")
                return Response(status: .serviceUnavailable)
            }
            router.get("/patient.png") { _, _ in
                _ = count("patient")
                return Response(status: .serviceUnavailable, headers: [.retryAfter: "3600"])
            }
        }
        #expect(Set(manifest.items.map { String($0.key.split(separator: "/").last!) }) == ["flaky.png", "busy.png"])
        #expect(reasons(manifest) == ["down.png": "http-503", "patient.png": "http-503"])
        #expect(attempts.withLock { $0 } == ["flaky": 3, "busy": 2, "down": 3, "patient": 1])
        #expect(report.exitStatus == 1)
    }

    @Test("a slow image still arrives; a body shorter than Content-Length is truncated; too-large is enforced")
    func bodies() async throws {
        let (manifest, _) = try await mirror(
            page:
                "<img src=\"/slow.png\"><img src=\"/short.png\"><img src=\"/big.png\"><img src=\"/empty.png\"><img src=\"/cut.png\">"
                + "<img src=\"/long.png\"><img src=\"/endless.png\">",
            configure: { $0.validation.maxSize = 100_000 }
        ) { router, _ in
            router.get("/slow.png") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "image/png", .contentLength: "\(Fixture.png.count)"],
                    body: ResponseBody { writer in
                        try await writer.write(ByteBuffer(bytes: Fixture.png.prefix(1000)))
                        try await Task.sleep(for: .seconds(2))
                        try await writer.write(ByteBuffer(bytes: Fixture.png.dropFirst(1000)))
                        try await writer.finish(nil)
                    })
            }
            router.get("/short.png") { _, _ in
                // Declares the whole file, sends half, then drops the connection.
                Response(
                    status: .ok, headers: [.contentType: "image/png", .contentLength: "\(Fixture.png.count)"],
                    body: ResponseBody { writer in
                        try await writer.write(ByteBuffer(bytes: Fixture.png.prefix(Fixture.png.count / 2)))
                        throw CancellationError()
                    })
            }
            router.get("/cut.png") { _, _ in bytes(Array(Fixture.png.dropLast(40))) }
            router.get("/long.png") { _, _ in
                // Declares less than it sends: the declared bytes are not a whole image.
                Response(
                    status: .ok, headers: [.contentType: "image/png", .contentLength: "\(Fixture.png.count - 100)"],
                    body: ResponseBody { writer in
                        try await writer.write(ByteBuffer(bytes: Fixture.png))
                        try await writer.finish(nil)
                    })
            }
            router.get("/endless.png") { _, _ in
                // No declared length: --max-size must stop it while streaming.
                Response(
                    status: .ok, headers: [.contentType: "image/png"],
                    body: ResponseBody { writer in
                        try await writer.write(ByteBuffer(bytes: Fixture.png.prefix(16)))
                        for _ in 0..<1_000 { try await writer.write(ByteBuffer(bytes: [UInt8](repeating: 0, count: 64 * 1024))) }
                        try await writer.finish(nil)
                    })
            }

            router.get("/big.png") { _, _ in bytes([UInt8](repeating: 0x89, count: 200_000)) }
            router.get("/empty.png") { _, _ in bytes([]) }
        }
        #expect(manifest.items.map { String($0.key.split(separator: "/").last!) }.contains("slow.png"))
        let reasons = reasons(manifest)
        #expect(reasons["big.png"] == "too-large")
        #expect(reasons["empty.png"] == "empty")
        #expect(reasons["short.png"] == "truncated")
        #expect(reasons["cut.png"] == "truncated")
        #expect(reasons["long.png"] == "truncated")
        #expect(reasons["endless.png"] == "too-large")
    }

    @Test("a server that goes silent is a timeout, after the retries")
    func silent() async throws {
        let (manifest, report) = try await mirror(
            page: "<img src=\"/silent.png\"><img src=\"/fine.png\">",
            configure: { $0.fetch.readTimeout = .seconds(2) }
        ) { router, _ in
            router.get("/fine.png") { _, _ in bytes(Fixture.png) }
            router.get("/silent.png") { _, _ in
                try await Task.sleep(for: .seconds(30))
                return bytes(Fixture.png)
            }
        }
        #expect(reasons(manifest) == ["silent.png": "timeout"])
        #expect(manifest.items.count == 1)
        #expect(report.exitStatus == 1)
    }

    @Test("gzip pages are decoded and an ISO-8859-1 page gives correct titles")
    func encodings() async throws {
        // gzip of: <html><body><img src="/img/ok.png" alt="Zipped"></body></html>
        let gzipped: [UInt8] = [
            31, 139, 8, 0, 0, 0, 0, 0, 2, 3, 179, 201, 40, 201, 205, 177, 179, 73, 202, 79, 169, 180, 179, 201, 204, 77, 87, 40,
            46, 74, 182, 85, 210, 7, 178, 244, 243, 179, 245, 10, 242, 210, 149, 20, 18, 115, 74, 108, 149, 162, 50, 11, 10, 82,
            83, 148, 236, 108, 244, 33, 74, 245, 193, 250, 0, 20, 74, 22, 78, 62, 0, 0, 0,
        ]
        let latin1: [UInt8] =
            Array("<html><body><img src=\"/img/cafe.png\" alt=\"Caf".utf8) + [0xE9, 0x20, 0x6E, 0xB0, 0x31]
            + Array("\"><a href=\"zipped\">1</a></body></html>".utf8)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("m")
        let manifest = try await TestServer().run(routes: { router, _ in
            router.get("/") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/html; charset=ISO-8859-1"],
                    body: .init(byteBuffer: ByteBuffer(bytes: latin1)))
            }
            router.get("/zipped") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/html", .contentEncoding: "gzip"],
                    body: .init(byteBuffer: ByteBuffer(bytes: gzipped)))
            }
            router.get("/img/{name}") { _, _ in bytes(Fixture.png) }
        }) { origin in
            _ = try await MirrorEngine(configuration: testConfiguration(source: origin + "/", output: output)).run()
            return try Manifest.read(from: output.appendingPathComponent("manifest.json"))
        }
        #expect(Set(manifest.items.compactMap(\.title)) == ["Café n°1", "Zipped"])
    }
}
