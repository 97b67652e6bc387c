import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing

@testable import MirrorCore
@testable import MirrorFetch

/// A raw HTTP/1.1 server on 127.0.0.1 that answers in batches: it answers the first request of
/// a connection at once (so the client learns it is keep-alive), then holds the next ones until
/// `batch` of them have arrived on the connection, and only then answers them, in order. A
/// client that does not pipeline never gets past the first batch; after `patience` the server
/// answers anyway and records that it had to.
private final class BatchingServer: Sendable {
    /// What the server answers for a request path.
    enum Reply: Sendable {
        case notModified
        case ok(Int)
        case status(Int)
        /// A 304 that closes the connection.
        case notModifiedThenClose
        /// A 200 of this many bytes (0, 1, 2, ... 250, 0, ...), sent in three writes 20 ms
        /// apart; only as the last answer of a batch.
        case okInPieces(Int)
    }

    let batch: Int
    let reply: @Sendable (String) -> Reply
    let connections = Mutex(0)
    /// Times the server answered a partial batch because the client stopped sending.
    let impatient = Mutex(0)
    private let channel = Mutex<(any Channel)?>(nil)

    init(batch: Int, reply: @escaping @Sendable (String) -> Reply) {
        self.batch = batch
        self.reply = reply
    }

    func start() async throws -> Int {
        let server = self
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                server.connections.withLock { $0 += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Connection(server: server))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        self.channel.withLock { $0 = channel }
        return channel.localAddress?.port ?? 0
    }

    func stop() async {
        let open = channel.withLock { $0 }
        try? await open?.close()
    }

    /// Splits the byte stream into request heads (GET has no body) and answers them.
    private final class Connection: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let server: BatchingServer
        var pending = ""
        var paths: [String] = []
        var answered = 0
        var timer: Scheduled<Void>?

        init(server: BatchingServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            pending += buffer.readString(length: buffer.readableBytes) ?? ""
            while let end = pending.range(of: "\r\n\r\n") {
                let head = pending[..<end.lowerBound]
                pending = String(pending[end.upperBound...])
                let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
                paths.append(path)
            }
            if answered == 0, !paths.isEmpty {
                answer(context, count: 1)
            }
            if paths.count >= server.batch {
                answer(context, count: paths.count)
            } else if !paths.isEmpty, timer == nil {
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                timer = context.eventLoop.scheduleTask(in: .seconds(5)) {
                    let (handler, context) = loopBound.value
                    handler.server.impatient.withLock { $0 += 1 }
                    handler.answer(context, count: handler.paths.count)
                }
            }
        }

        func answer(_ context: ChannelHandlerContext, count: Int) {
            timer?.cancel()
            timer = nil
            var out = context.channel.allocator.buffer(capacity: 256)
            var close = false
            for path in paths.prefix(count) {
                switch server.reply(path) {
                case .notModified:
                    out.writeString("HTTP/1.1 304 Not Modified\r\nETag: \"e\"\r\n\r\n")
                case .notModifiedThenClose:
                    out.writeString("HTTP/1.1 304 Not Modified\r\nConnection: close\r\n\r\n")
                    close = true
                case .ok(let length):
                    out.writeString("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n")
                    out.writeRepeatingByte(0x41, count: length)
                case .status(let code):
                    out.writeString("HTTP/1.1 \(code) Whatever\r\nContent-Length: 2\r\n\r\nno")
                case .okInPieces(let length):
                    out.writeString("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n\r\n")
                    let bytes = (0..<length).map { UInt8($0 % 251) }
                    let third = length / 3
                    out.writeBytes(bytes[..<third])
                    let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
                    for (index, piece) in [bytes[third..<2 * third], bytes[(2 * third)...]].enumerated() {
                        let chunk = ByteBuffer(bytes: piece)
                        context.eventLoop.scheduleTask(in: .milliseconds(20 * Int64(index + 1))) {
                            loopBound.value.writeAndFlush(NIOAny(chunk), promise: nil)
                        }
                    }
                }
                answered += 1
                if close { break }
            }
            paths.removeFirst(min(count, paths.count))
            context.writeAndFlush(wrapOutboundOut(out), promise: nil)
            if close { context.close(promise: nil) }
        }
    }
}

/// A counter shared with a `@Sendable` closure.
private final class Tally: Sendable {
    let value = Mutex(0)
}

@Suite struct PipelinedClientTests {
    private func client(connections: Int = 1, depth: Int = 8, bodyLimit: Int = 4 << 20) -> PipelinedClient {
        PipelinedClient(
            limits: .init(
                connections: connections, depth: depth, bodyLimit: bodyLimit, connectTimeout: .seconds(5),
                readTimeout: .seconds(20)))
    }

    private func get(_ client: PipelinedClient, port: Int, _ path: String, conditional: Bool = true) async
        -> PipelinedClient.Answer
    {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "127.0.0.1:\(port)")
        guard let url = CanonicalURL("http://127.0.0.1:\(port)\(path)") else { return .fallback }
        return await client.get(url, headers: headers, conditional: conditional)
    }

    @Test("a reply is given once, the first answer winning; one dropped unanswered answers as cut off")
    func replyOnce() async throws {
        let first = await withCheckedContinuation { continuation in
            let reply = PipelinedReply(continuation)
            reply.succeed(.timedOut(stalled: true))
            reply.succeed(.unanswered(abrupt: true))
        }
        guard case .timedOut(stalled: true) = first else {
            Issue.record("the first answer did not win: \(first)")
            return
        }
        // Awaited in a task of its own and watched from here: a reply that is never answered
        // leaves that task waiting, and this test fails instead of hanging the suite.
        let dropped = Mutex<PipelinedResponse?>(nil)
        Task {
            let response = await withCheckedContinuation { continuation in
                _ = PipelinedReply(continuation)
            }
            dropped.withLock { $0 = response }
        }
        for _ in 0..<500 where dropped.withLock({ $0 }) == nil {
            try await Task.sleep(for: .milliseconds(10))
        }
        guard case .unanswered(abrupt: false) = dropped.withLock({ $0 }) else {
            Issue.record("a dropped reply answered \(String(describing: dropped.withLock { $0 }))")
            return
        }
    }

    @Test func pipelinesRequestsOnOneProvenConnection() async throws {
        let server = BatchingServer(batch: 6) { _ in .notModified }
        let port = try await server.start()
        let client = client()
        // The first request proves the connection; the next six can only be answered if the
        // client sends them without waiting for each answer.
        #expect(await statusCode(get(client, port: port, "/first")) == 304)
        let codes = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<6 { group.addTask { await statusCode(get(client, port: port, "/img/\(index).png")) } }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(codes == Array(repeating: 304, count: 6))
        #expect(server.connections.withLock { $0 } == 1)
        #expect(server.impatient.withLock { $0 } == 0, "the server had to answer a partial batch: no pipelining")
        await client.shutdown()
        await server.stop()
    }

    @Test func answersStatusesAndHandsBackLargeBodies() async throws {
        let server = BatchingServer(batch: 1) { path in
            switch path {
            case "/error": .status(500)
            case "/moved": .status(301)
            case "/big": .ok(64 * 1024)
            case "/small": .ok(100)
            default: .notModified
            }
        }
        let port = try await server.start()
        let client = client(bodyLimit: 16 * 1024)
        // Other statuses come back as heads, for the caller to decide as the full client does;
        // a body over the limit is left to the full client.
        #expect(await statusCode(get(client, port: port, "/error")) == 500)
        #expect(await statusCode(get(client, port: port, "/moved")) == 301)
        #expect(await isFallback(get(client, port: port, "/big", conditional: false)))
        guard case .response(let head, let body) = await get(client, port: port, "/small", conditional: false) else {
            Issue.record("a small 200 should be answered")
            return
        }
        #expect(head.status == .ok && body.map(\.readableBytes).reduce(0, +) == 100)
        await client.shutdown()
        await server.stop()
    }

    @Test("a body that arrives in several reads is handed back whole, in order, without being copied together")
    func bodyInPieces() async throws {
        let server = BatchingServer(batch: 1) { _ in .okInPieces(9_000) }
        let port = try await server.start()
        let client = client(bodyLimit: 16 * 1024)
        guard case .response(let head, let parts) = await get(client, port: port, "/pieces", conditional: false) else {
            Issue.record("a 200 in pieces should be answered")
            return
        }
        #expect(head.status == .ok)
        #expect(parts.count >= 3, "three writes 20 ms apart are three reads")
        let received: [UInt8] = parts.flatMap { Array($0.readableBytesView) }
        let sent: [UInt8] = (0..<9_000).map { UInt8($0 % 251) }
        #expect(received == sent)
        await client.shutdown()
        await server.stop()
    }

    @Test func requestsBehindAClosingResponseAreSentAgain() async throws {
        // Every fourth response says "Connection: close": what was pipelined behind it is asked
        // again on a new connection.
        let count = Tally()
        let server = BatchingServer(batch: 1) { _ in
            count.value.withLock { value in
                value += 1
                return value % 4 == 2 ? .notModifiedThenClose : .notModified
            }
        }
        let port = try await server.start()
        let client = client(connections: 2, depth: 4)
        let codes = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<24 { group.addTask { await statusCode(get(client, port: port, "/img/\(index).png")) } }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        #expect(codes.count == 24)
        #expect(codes.allSatisfy { $0 == 304 || $0 == nil })
        #expect(codes.filter { $0 == 304 }.count >= 20, "most requests should be answered on the pipelined path")
        #expect(server.connections.withLock { $0 } > 1)
        await client.shutdown()
        await server.stop()
    }
}

@Suite("Pipelined batches")
struct PipelinedBatchTests {
    private func client(connections: Int = 1, depth: Int = 8) -> PipelinedClient {
        PipelinedClient(
            limits: .init(connections: connections, depth: depth, connectTimeout: .seconds(5), readTimeout: .seconds(20)))
    }

    private func requests(port: Int, _ paths: [String]) -> [(url: CanonicalURL, headers: HTTPHeaders)] {
        paths.compactMap { path in
            var headers = HTTPHeaders()
            headers.add(name: "Host", value: "127.0.0.1:\(port)")
            return CanonicalURL("http://127.0.0.1:\(port)\(path)").map { ($0, headers) }
        }
    }

    @Test("a batch is sent together on the proven connection and answered in the order asked")
    func batchInOrder() async throws {
        let server = BatchingServer(batch: 6) { path in path.hasSuffix("3.png") ? .ok(10) : .notModified }
        let port = try await server.start()
        let client = client()
        // Proven by a first request, the connection takes the six at once: the server answers
        // only when all six are there.
        _ = await client.get(batch: requests(port: port, ["/first"]))
        let answers = await client.get(batch: requests(port: port, (0..<6).map { "/img/\($0).png" }))
        #expect(answers.map(statusCode) == [304, 304, 304, 200, 304, 304])
        #expect(server.connections.withLock { $0 } == 1)
        #expect(server.impatient.withLock { $0 } == 0, "the server had to answer a partial batch: not sent together")
        await client.shutdown()
        await server.stop()
    }

    @Test("a batch larger than the connection's slots waits for its own first answers, and every request is answered")
    func batchLargerThanSlots() async throws {
        let server = BatchingServer(batch: 1) { _ in .notModified }
        let port = try await server.start()
        let client = client(connections: 2, depth: 4)
        let answers = await client.get(batch: requests(port: port, (0..<40).map { "/img/\($0).png" }))
        #expect(answers.count == 40)
        #expect(answers.allSatisfy { statusCode($0) == 304 })
        await client.shutdown()
        await server.stop()
    }

    @Test("requests a closing connection leaves unanswered come back as fallbacks, for the full client")
    func closingConnection() async throws {
        let count = Tally()
        let server = BatchingServer(batch: 1) { _ in
            count.value.withLock { value in
                value += 1
                return value == 3 ? .notModifiedThenClose : .notModified
            }
        }
        let port = try await server.start()
        let client = client(connections: 1, depth: 8)
        _ = await client.get(batch: requests(port: port, ["/first"]))
        let answers = await client.get(batch: requests(port: port, (0..<8).map { "/img/\($0).png" }))
        #expect(answers.count == 8)
        // Answered before the close, or handed back; never lost, never answered twice.
        #expect(answers.allSatisfy { statusCode($0) == 304 || isFallback($0) })
        #expect(answers.contains { isFallback($0) })
        await client.shutdown()
        await server.stop()
    }

    @Test("a batch whose task is cancelled ends at once: its connections are closed, its requests handed back")
    func cancelledBatch() async throws {
        // A server that never answers more than the first request of a connection.
        let server = BatchingServer(batch: 1_000) { _ in .notModified }
        let port = try await server.start()
        let client = client()
        _ = await client.get(batch: requests(port: port, ["/first"]))
        let batch = Task { await client.get(batch: requests(port: port, (0..<5).map { "/img/\($0).png" })) }
        // Cancelled before, while or after its requests are sent (whichever this machine's
        // speed makes it): every request comes back unanswered, never answered by the server.
        try await Task.sleep(for: .milliseconds(100))
        batch.cancel()
        let answers = await batch.value
        // The server answers a partial batch after 5 s: a batch that waited for it would hold
        // 304s, not requests handed back.
        #expect(answers.count == 5 && answers.allSatisfy { isFallback($0) })
        await client.shutdown()
        await server.stop()
    }

    @Test("a batch delivered in pieces: the last answer resumes the one waiting task, whatever the order")
    func batchCollector() async {
        let batch = PipelinedBatch(count: 3)
        batch.deliver(.unanswered(abrupt: true), at: 2)
        batch.deliver(.timedOut(stalled: false), at: 0)
        batch.deliver(.timedOut(stalled: true), at: 0)  // a second answer for a place is ignored
        async let responses = batch.responses()
        batch.deliver(.unanswered(abrupt: false), at: 1)
        let got = await responses
        guard got.count == 3, case .timedOut(stalled: false) = got[0], case .unanswered(abrupt: false) = got[1],
            case .unanswered(abrupt: true) = got[2]
        else {
            Issue.record("\(got)")
            return
        }
    }
}

private func statusCode(_ answer: PipelinedClient.Answer) -> Int? {
    if case .response(let head, _) = answer { return Int(head.status.code) }
    return nil
}

private func isFallback(_ answer: PipelinedClient.Answer) -> Bool {
    if case .fallback = answer { return true }
    return false
}
