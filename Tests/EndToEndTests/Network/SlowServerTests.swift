import Foundation
import Hummingbird
import MirrorTestSupport
import NIOCore
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorFetch
@testable import MirrorOperate

/// A brotli stream of `bytes` in uncompressed meta-blocks (RFC 7932 section 9.2): valid brotli
/// that any decoder reads, made without an encoder.
func brotliStored(_ bytes: [UInt8]) -> [UInt8] {
    var output: [UInt8] = []
    var bitBuffer: UInt64 = 0
    var bitCount = 0
    func bits(_ value: UInt64, _ count: Int) {
        bitBuffer |= value << UInt64(bitCount)
        bitCount += count
        while bitCount >= 8 {
            output.append(UInt8(bitBuffer & 0xFF))
            bitBuffer >>= 8
            bitCount -= 8
        }
    }
    func align() { if bitCount > 0 { bits(0, 8 - bitCount) } }
    bits(0, 1)  // WBITS = 16
    var start = 0
    while start < bytes.count {
        let length = min(65_536, bytes.count - start)
        bits(0, 1)  // ISLAST = 0
        bits(0, 2)  // MNIBBLES = 4
        bits(UInt64(length - 1), 16)  // MLEN - 1
        bits(1, 1)  // ISUNCOMPRESSED
        align()
        output += bytes[start..<start + length]
        start += length
    }
    bits(1, 1)  // ISLAST
    bits(1, 1)  // ISLASTEMPTY
    align()
    return output
}

/// `bytes` through the system's gzip (an essential package on Debian).
func gzipped(_ bytes: [UInt8]) throws -> [UInt8] {
    let input = FileManager.default.temporaryDirectory.appendingPathComponent("gz-\(UUID().uuidString)")
    try Data(bytes).write(to: input)
    defer { try? FileManager.default.removeItem(at: input) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-c", "-9", input.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = Binary.readAll(pipe.fileHandleForReading)
    process.waitUntilExit()
    return Array(data)
}

@Suite("Slow and hostile servers")
struct SlowServerTests {
    func mirror(
        routes: @escaping @Sendable (Router<BasicRequestContext>, @escaping @Sendable () -> String) -> Void,
        configure: @escaping @Sendable (inout MirrorConfiguration) -> Void = { _ in }
    ) async throws -> (report: RunReport, manifest: Manifest, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let output = directory.url.appendingPathComponent("m")
        let report = try await TestServer().run(routes: routes) { origin in
            var configuration = testConfiguration(source: origin + "/", output: output)
            configure(&configuration)
            return try await MirrorEngine(configuration: configuration).run()
        }
        return (report, try Manifest.read(from: output.appendingPathComponent("manifest.json")), directory)
    }

    @Test("--speed-limit/--speed-time: a trickling image fails timeout after speed-time; the rest is published")
    func speedLimit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("m")
        let result = try await TestServer().run(routes: { router, _ in
            router.get("/") { _, _ in html("<img src=\"/slow.png\"><img src=\"/fine.png\">") }
            router.get("/fine.png") { _, _ in bytes(Fixture.png) }
            router.get("/slow.png") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "image/png", .contentLength: "\(Fixture.png.count)"],
                    body: ResponseBody { writer in
                        // 10 bytes a second for 20 s, then the rest at once: a whole image, which a
                        // run without the limit publishes (bytes keep coming, so the 30 s read
                        // timeout never fires). The limit cuts it after 4 s, 16 s before that.
                        for index in 0..<200 {
                            try await writer.write(ByteBuffer(bytes: [Fixture.png[index]]))
                            try await Task.sleep(for: .milliseconds(100))
                        }
                        try await writer.write(ByteBuffer(bytes: Fixture.png.dropFirst(200)))
                        try await writer.finish(nil)
                    })
            }
        }) { origin in
            try await runBinary(
                ["sync", origin + "/", "--out", output.path, "--speed-limit", "1024", "--speed-time", "4"], in: directory.url)
        }
        #expect(result.status == 1, "\(result.stderr)")
        let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
        #expect(manifest.items.count == 1)
        #expect(manifest.rejected.map(\.reason) == ["timeout"])
        let settings = try String(contentsOf: output.appendingPathComponent(".catalog-mirror/settings.json"), encoding: .utf8)
        #expect(settings.contains("\"speedTime\" : 4"))
    }

    @Test("Crawl-delay spaces the first request after robots.txt from robots.txt itself")
    func crawlDelayAfterRobots() async throws {
        let arrivals = Mutex<[(String, ContinuousClock.Instant)]>([])
        let result = try await mirror(routes: { router, _ in
            router.middlewares.add(
                Recorder(record: { path in arrivals.withLock { $0.append((path, .now)) } }))
            router.get("/") { _, _ in html("<img src=\"/img/1.png\">") }
            router.get("/robots.txt") { _, _ in html("User-agent: *\nCrawl-delay: 1\n") }
            router.get("/img/{name}") { _, _ in bytes(Fixture.png) }
        })
        defer { result.directory.cleanup() }
        #expect(result.manifest.items.count == 1)
        let log = arrivals.withLock { $0 }
        let robots = try #require(log.firstIndex { $0.0 == "/robots.txt" })
        let next = try #require(log.indices.first { $0 > robots })
        // The pacer starts the next request 1 s after robots.txt started; the arrivals at the
        // server may differ from the starts by a loaded machine's jitter, hence the margin
        // (without the rule the gap is a few milliseconds).
        #expect(log[next].1 - log[robots].1 >= .milliseconds(500))
    }

    @Test("the pacer spaces a host's first request with a known Crawl-delay from the request before it")
    func crawlDelayPacer() async {
        let politeness = Politeness(rate: nil, perHost: 4)
        let started = ContinuousClock.now
        // robots.txt: its Crawl-delay is not known yet when it is requested.
        await politeness.acquire(host: "gallery.example", crawlDelay: nil)
        politeness.release(host: "gallery.example")
        await politeness.acquire(host: "gallery.example", crawlDelay: .milliseconds(700))
        politeness.release(host: "gallery.example")
        #expect(ContinuousClock.now - started >= .milliseconds(700))
    }

    @Test("Retry-After as an HTTP date is honoured; one beyond the cap fails at once")
    func retryAfter() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let parsed = try #require(HTTPSession.parseRetryAfter(formatter.string(from: Date() + 120)))
        #expect(parsed > .seconds(100) && parsed <= .seconds(121))
        #expect(HTTPSession.parseRetryAfter("7") == .seconds(7))
        #expect(HTTPSession.parseRetryAfter("soon") == nil)

        let asked = Mutex(0)
        let started = ContinuousClock.now
        let result = try await mirror(
            routes: { router, _ in
                router.get("/") { _, _ in html("<img src=\"/busy.png\"><img src=\"/fine.png\">") }
                router.get("/fine.png") { _, _ in bytes(Fixture.png) }
                router.get("/busy.png") { _, _ in
                    asked.withLock { $0 += 1 }
                    return Response(status: .serviceUnavailable, headers: [.retryAfter: "3600"])
                }
            },
            configure: { $0.fetch.retry.maxRetryAfter = RetryPolicy().maxRetryAfter })
        defer { result.directory.cleanup() }
        #expect(RetryPolicy().maxRetryAfter == .seconds(600))
        #expect(result.manifest.rejected.map(\.reason) == ["http-503"])
        #expect(asked.withLock { $0 } == 1)
        // The wait it must not make is the 600 s cap: the bound only tells the two apart. It is
        // not tighter because the tests of this process share the store's global actor, whose
        // file-system flushes took over a minute while other builds wrote to the same disk.
        #expect(ContinuousClock.now - started < .seconds(300))
    }

    @Test("Content-Encoding br on pages and feeds is decoded; gzip and br bombs are refused as too-large")
    func encodings() async throws {
        let page = brotliStored(
            Array(
                #"<html><head><title>Br</title><link rel="alternate" type="application/rss+xml" href="/feed.rss"></head><body><img src="/img/page.png" alt="From the page"><a href="/bomb">bomb</a><a href="/brbomb">br bomb</a></body></html>"#
                    .utf8))
        let feed = brotliStored(
            Array(
                #"<?xml version="1.0"?><rss version="2.0"><channel><title>F</title><item><title>From the feed</title><enclosure url="/img/feed.png" type="image/png" length="1"/></item></channel></rss>"#
                    .utf8))
        let bomb = try gzipped(Array(#"<html><body><img src="/img/never.png">"#.utf8) + [UInt8](repeating: 0x20, count: 4 << 20))
        let brBomb = brotliStored([UInt8](repeating: 0x20, count: 4 << 20))
        #expect(bomb.count < 16 * 1024)
        let result = try await mirror(
            routes: { router, _ in
                router.get("/") { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "text/html", .contentEncoding: "br"],
                        body: .init(byteBuffer: ByteBuffer(bytes: page)))
                }
                router.get("/feed.rss") { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "application/rss+xml", .contentEncoding: "br"],
                        body: .init(byteBuffer: ByteBuffer(bytes: feed)))
                }
                router.get("/bomb") { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "text/html", .contentEncoding: "gzip"],
                        body: .init(byteBuffer: ByteBuffer(bytes: bomb)))
                }
                router.get("/brbomb") { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "text/html", .contentEncoding: "br"],
                        body: .init(byteBuffer: ByteBuffer(bytes: brBomb)))
                }
                router.get("/img/{name}") { _, _ in bytes(Fixture.png) }
            },
            configure: { $0.fetch.maxDocumentBytes = 1 << 20 })
        defer { result.directory.cleanup() }
        #expect(Set(result.manifest.items.compactMap(\.title)) == ["From the page", "From the feed"])
        #expect(!result.manifest.items.contains { $0.key.hasSuffix("never.png") })
        let warnings = result.report.warnings.joined(separator: "\n")
        #expect(warnings.contains("/bomb") && warnings.contains("/brbomb"), "\(warnings)")
        #expect(warnings.contains("too-large"), "\(warnings)")
    }

    @Test(
        "a 2 GB page, a flood of headers and a reset before the declared length each end in a named reason; the run goes on"
    )
    func hostile() async throws {
        let result = try await mirror(
            routes: { router, _ in
                router.get("/") { _, _ in
                    html(
                        "<img src=\"/img/fine.png\"><img src=\"/img/flood.png\"><img src=\"/img/short.png\"><a href=\"/huge\">huge</a>"
                    )
                }
                router.get("/img/fine.png") { _, _ in bytes(Fixture.png) }
                router.get("/img/flood.png") { _, _ in
                    var headers: HTTPFields = [.contentType: "image/png"]
                    for index in 0..<4000 {
                        headers.append(
                            HTTPFields.Element(
                                name: HTTPFields.Element.Name("X-Flood-\(index)")!, value: String(repeating: "x", count: 64)))
                    }
                    return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: Fixture.png)))
                }
                router.get("/img/short.png") { _, _ in
                    // Declares more than it sends, then resets the connection.
                    Response(
                        status: .ok, headers: [.contentType: "image/png", .contentLength: "\(Fixture.png.count + 500)"],
                        body: ResponseBody { writer in
                            try await writer.write(ByteBuffer(bytes: Fixture.png))
                            throw CancellationError()
                        })
                }

                router.get("/huge") { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "text/html", .contentLength: "\(2 << 30)"],
                        body: ResponseBody { writer in
                            let chunk = ByteBuffer(repeating: 0x20, count: 64 * 1024)
                            for _ in 0..<(2 << 30) / (64 * 1024) { try await writer.write(chunk) }
                            try await writer.finish(nil)
                        })
                }
            },
            configure: {
                $0.fetch.maxDocumentBytes = 4 << 20
                $0.fetch.retry.maxAttempts = 2
            })
        defer { result.directory.cleanup() }
        #expect(result.manifest.items.count == 1)
        let reasons = Dictionary(
            uniqueKeysWithValues: result.manifest.rejected.map { (String($0.key.split(separator: "/").last ?? ""), $0.reason) })
        #expect(reasons["flood.png"] == "network-error")
        #expect(reasons["short.png"] == "truncated")
        #expect(result.report.warnings.contains { $0.contains("/huge") && $0.contains("too-large") }, "\(result.report.warnings)")
    }
}
