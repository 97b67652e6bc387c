import Foundation
import Hummingbird
import MirrorTestSupport
import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorFetch
@testable import SampleGallery

/// A TCP server on 127.0.0.1 that accepts every connection and closes it at once, without a
/// byte: an origin that does not answer. Counts the connections it was asked for.
final class SilentOrigin: Sendable {
    let connections = Atomic<Int>(0)

    /// Runs the server while `body` runs with its port.
    func run<T: Sendable>(port: Int = 0, _ body: @Sendable (Int) async throws -> T) async throws -> T {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let bound = server.channel.localAddress?.port ?? 0
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await server.executeThenClose { inbound in
                    for try await connection in inbound {
                        self.connections.add(1, ordering: .relaxed)
                        try? await connection.channel.close()
                    }
                }
                return nil
            }
            defer { group.cancelAll() }
            return try await body(bound)
        }
    }
}

/// A port number shared with a server's routes.
final class PortNumber: Sendable {
    let value = Atomic<Int>(0)
}

/// One origin that does not answer holds up no other (SPEC "One origin never holds up another").
@Suite("An origin that does not answer")
struct DeadOriginTests {
    static let image = SampleImage.bundled.map(\.bytes)

    @Test("is given up on for the run: its images fail at once and are kept from the last run; the rest is mirrored")
    func givenUp() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let output = directory.url.appendingPathComponent("m")
        // Ten images on the source's origin, twenty on a second port of the same host.
        let ownCount = 10
        let otherCount = 20
        let otherPort = PortNumber()
        @Sendable func routes(_ router: Router<BasicRequestContext>) {
            router.get("/g/") { _, _ in
                let port = otherPort.value.load(ordering: .relaxed)
                let own = (0..<ownCount).map { "<img src=\"own-\($0).png\" alt=\"Own \($0)\">" }
                let other = (0..<otherCount).map { "<img src=\"http://127.0.0.1:\(port)/img/\($0).png\" alt=\"Other \($0)\">" }
                return html("<title>Two origins</title>" + (own + other).joined())
            }
            router.get("/g/{name}") { _, context in
                guard let name = context.parameters.get("name"), name.hasPrefix("own-"),
                    let number = Int(name.dropFirst(4).prefix { $0.isNumber })
                else { return Response(status: .notFound) }
                return bytes(Self.image[number])
            }
        }
        // First run: the second origin answers, and its images are published.
        let other = TestServer()
        try await TestServer().run(routes: { router, _ in routes(router) }) { origin in
            try await other.run(routes: { router, _ in
                router.get("/img/{name}") { _, context in
                    let number = Int(context.parameters.get("name")?.prefix { $0.isNumber } ?? "") ?? 0
                    return bytes(Self.image[ownCount + number])
                }
            }) { otherOrigin in
                otherPort.value.store(Int(otherOrigin.split(separator: ":").last ?? "") ?? 0, ordering: .relaxed)
                let report = try await MirrorEngine(configuration: testConfiguration(source: origin + "/g/", output: output))
                    .run()
                #expect(report.exitStatus == 0, "\(report.failed) \(report.warnings)")
                #expect(report.published == ownCount + otherCount)
            }
            // Second run: the second origin, on the same port, accepts connections and closes
            // them unanswered.
            let silent = SilentOrigin()
            try await silent.run(port: otherPort.value.load(ordering: .relaxed)) { _ in
                var configuration = testConfiguration(source: origin + "/g/", output: output)
                configuration.fetch.retry = RetryPolicy(
                    maxAttempts: 3, baseDelay: .milliseconds(200), maxDelay: .seconds(1), maxRetryAfter: .seconds(5))
                let report = try await MirrorEngine(configuration: configuration).run()
                #expect(report.exitStatus == 1)
                #expect(report.failed["network-error"] == otherCount, "\(report.failed)")
                #expect(report.kept == otherCount, "the last run's files of the dead origin are kept")
                #expect(report.unchanged == ownCount)
                // robots.txt's attempts gave the origin up: no image of it was asked for
                // (twenty images of three attempts each would have been sixty connections).
                let connections = silent.connections.load(ordering: .relaxed)
                #expect(connections <= 4, "\(connections) connections to the dead origin")
            }
        }
    }
}
