import NIOCore
import NIOHTTP1
import Synchronization

/// What a pipelined GET got back.
enum PipelinedResponse: Sendable {
    /// A response: a 200's whole body when it fitted in the body limit, as the parts it arrived
    /// in (slices of the connection's read buffers, never copied); no parts for any other status
    /// (its body is read and dropped).
    case complete(HTTPResponseHead, [ByteBuffer])
    /// A 200 this path does not handle (an encoded or oversized body): the caller asks again
    /// through async-http-client. `tooLarge`: the body was over the limit (the connection is gone).
    case unusual(HTTPResponseStatus, tooLarge: Bool)
    /// The connection ended before this request was answered; nothing was read for it, so it
    /// may be sent again (GET is idempotent).
    case unanswered(abrupt: Bool)
    /// The body came slower than `--speed-limit` for `--speed-time`, or not within the image
    /// deadline: a `timeout`, as the full client would name it.
    case timedOut(stalled: Bool)
}

/// A GET to send on a pipelined connection, and where its response goes.
struct PipelinedRequest: Sendable {
    var head: HTTPRequestHead
    var reply: PipelinedReply
}

/// Where one request's response goes: the waiting task, resumed straight from the event loop,
/// or its place in a batch whose task is resumed once the batch's last response is in.
///
/// Why not an `EventLoopPromise`: a task awaiting a future's `get()` registers its callback from
/// off the event loop, which NIO does by scheduling a task on the loop (a lock and an `eventfd`
/// write), one more hop per request; a resync of 10,000 images made 10,000 of them. The first
/// answer wins, as with a promise: a request may be answered by a failed write and by the
/// connection's end, and a continuation must be resumed exactly once.
final class PipelinedReply: Sendable {
    private enum Target {
        case task(CheckedContinuation<PipelinedResponse, Never>)
        case batch(PipelinedBatch, index: Int)
    }

    private let target: Mutex<Target?>

    /// A reply that resumes `continuation`.
    init(_ continuation: CheckedContinuation<PipelinedResponse, Never>) {
        target = Mutex(.task(continuation))
    }

    /// A reply that fills place `index` of `batch`.
    init(batch: PipelinedBatch, index: Int) {
        target = Mutex(.batch(batch, index: index))
    }

    func succeed(_ response: PipelinedResponse) {
        let waiting = target.withLock { slot in
            defer { slot = nil }
            return slot
        }
        switch waiting {
        case .task(let continuation): continuation.resume(returning: response)
        case .batch(let batch, let index): batch.deliver(response, at: index)
        case nil: break
        }
    }

    /// A request dropped unanswered (by a path that forgot it) is answered as cut off, so its
    /// task asks again through the full client instead of waiting for ever.
    deinit {
        succeed(.unanswered(abrupt: false))
    }
}

/// The responses to a batch of pipelined requests, in the order asked, handed to one waiting
/// task when the last one is in: one resumption (and one thread woken) for the batch instead of
/// one per request, which was most of what a revalidated image cost beyond its bytes on the wire.
final class PipelinedBatch: Sendable {
    private struct State {
        var responses: [PipelinedResponse?]
        var remaining: Int
        var waiting: CheckedContinuation<[PipelinedResponse], Never>?
    }

    private let state: Mutex<State>
    /// Called with each response as it is delivered (once a place), before the batch is whole:
    /// the client frees the request's slot there, or a batch larger than its slots would wait
    /// for slots it holds itself.
    private let onEach: (@Sendable (Int, PipelinedResponse) -> Void)?

    /// A batch of `count` requests, none answered yet; `onEach` sees each response as it comes.
    init(count: Int, onEach: (@Sendable (Int, PipelinedResponse) -> Void)? = nil) {
        state = Mutex(State(responses: Array(repeating: nil, count: count), remaining: count))
        self.onEach = onEach
    }

    /// Records the response at `index` (a second one for a place is ignored); the last one
    /// resumes the waiting task.
    func deliver(_ response: PipelinedResponse, at index: Int) {
        let (first, finished) = state.withLock {
            state -> (Bool, (CheckedContinuation<[PipelinedResponse], Never>, [PipelinedResponse])?) in
            guard state.responses[index] == nil else { return (false, nil) }
            state.responses[index] = response
            state.remaining -= 1
            guard state.remaining == 0, let waiting = state.waiting else { return (true, nil) }
            state.waiting = nil
            return (true, (waiting, state.responses.map { $0 ?? .unanswered(abrupt: false) }))
        }
        if first { onEach?(index, response) }
        if let (waiting, responses) = finished { waiting.resume(returning: responses) }
    }

    /// Every response, once all are in (at once when they already are).
    func responses() async -> [PipelinedResponse] {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> [PipelinedResponse]? in
                guard state.remaining > 0 else { return state.responses.map { $0 ?? .unanswered(abrupt: false) } }
                state.waiting = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// Matches responses to requests on one keep-alive HTTP/1.1 connection, in order: HTTP/1.1
/// answers pipelined requests first in, first out (RFC 9112 section 9.3.2). The codec is
/// SwiftNIO's (`HTTPRequestEncoder`, `HTTPResponseDecoder` over llhttp); this handler only keeps
/// the queue, collects small 200 bodies, and hands back what it will not handle.
///
/// Whatever goes wrong ends the connection: every request still queued is answered
/// `.unanswered`, so none is ever lost or answered twice.
final class PipelineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundIn = PipelinedRequest
    typealias OutboundOut = HTTPClientRequestPart

    private struct Pending {
        let reply: PipelinedReply
        var head: HTTPResponseHead?
        /// Measures the body once its head has arrived (`--speed-limit`, `--speed-time`).
        var meter: TransferMeter?
        /// When the response's head arrived.
        var startedAt: NIODeadline?
        /// The body's parts so far (nil: not collected), and their length.
        var body: [ByteBuffer]?
        var bodyBytes = 0
        /// The response is read to its end and dropped: the request goes to the full client.
        var unusual = false
    }

    private var queue = CircularBuffer<Pending>(initialCapacity: 16)
    /// Largest 200 body collected in memory; a longer one ends the connection.
    private let bodyLimit: Int
    /// Set once the server said it will close, or the connection failed: later requests are
    /// refused at once, not sent.
    private var closing = false
    /// True while this handler closes the connection itself (a deliberate close is not abrupt).
    private var closedOnPurpose = false
    private let lowSpeed: LowSpeedLimit
    /// Longest time a body may take once its head has arrived.
    private let deadline: TimeAmount
    private var ticker: RepeatedTask?

    init(bodyLimit: Int, lowSpeed: LowSpeedLimit, deadline: TimeAmount) {
        self.bodyLimit = bodyLimit
        self.lowSpeed = lowSpeed
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // Once a second the body being received is measured, as the full client's watchdog does.
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        ticker = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            let (handler, context) = bound.value
            handler.tick(context)
        }
    }

    private func tick(_ context: ChannelHandlerContext) {
        guard let current = queue.first, let startedAt = current.startedAt else { return }
        let stalled = current.meter?.check(now: .now) ?? false
        guard stalled || NIODeadline.now() - startedAt > deadline else { return }
        let pending = queue.removeFirst()
        pending.reply.succeed(.timedOut(stalled: stalled))
        endConnection(context)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let request = unwrapOutboundIn(data)
        guard !closing, context.channel.isActive else {
            request.reply.succeed(.unanswered(abrupt: false))
            promise?.succeed(())
            return
        }
        queue.append(Pending(reply: request.reply))
        context.write(wrapOutboundOut(.head(request.head)), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !queue.isEmpty else {
            // A response nobody asked for: the connection is out of step; end it.
            endConnection(context)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            // 1xx (100 Continue, 103 Early Hints) precede the real response.
            if head.status.code < 200 { return }
            let status = head.status.code
            let encoded = head.headers.first(name: "content-encoding").map { $0.lowercased() != "identity" } ?? false
            let declared = head.headers.first(name: "content-length").flatMap { Int($0) } ?? 0
            queue[queue.startIndex].head = head
            queue[queue.startIndex].startedAt = .now()
            // Another status is answered with its head (its body read and dropped): the caller
            // decides as the full client would. An encoded 200 is not handled here.
            queue[queue.startIndex].unusual = status == 200 && encoded
            if status == 200 && !encoded {
                if declared > bodyLimit {
                    // Too big to hold: this request goes to the full client, which streams it
                    // to disk; the body is not read, so the connection cannot be reused.
                    let pending = queue.removeFirst()
                    pending.reply.succeed(.unusual(head.status, tooLarge: true))
                    endConnection(context)
                    return
                }
                // Kept as the parts that arrive: copying them into one buffer was a memmove of
                // every body.
                queue[queue.startIndex].body = []
                let meter = TransferMeter(limit: lowSpeed)
                meter.begin()
                queue[queue.startIndex].meter = meter
            }
        case .body(let part):
            guard !queue[queue.startIndex].unusual, queue[queue.startIndex].body != nil else { return }
            queue[queue.startIndex].meter?.add(part.readableBytes)
            if queue[queue.startIndex].bodyBytes + part.readableBytes > bodyLimit {
                let pending = queue.removeFirst()
                pending.reply.succeed(.unusual(.ok, tooLarge: true))
                endConnection(context)
                return
            }
            queue[queue.startIndex].bodyBytes += part.readableBytes
            queue[queue.startIndex].body!.append(part)
        case .end:
            let pending = queue.removeFirst()
            guard let head = pending.head else {
                pending.reply.succeed(.unanswered(abrupt: true))
                endConnection(context)
                return
            }
            let keepAlive = head.isKeepAlive && head.version == .http1_1
            if pending.unusual {
                pending.reply.succeed(.unusual(head.status, tooLarge: false))
            } else {
                pending.reply.succeed(.complete(head, pending.body ?? []))
            }
            if !keepAlive {
                // Requests sent behind this one will not be answered on this connection.
                closing = true
                endConnection(context)
            }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read, !queue.isEmpty {
            // Silence while waiting for an answer: the full client, with its own timeouts and
            // retries, takes over the requests.
            endConnection(context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a response llhttp cannot parse: the queued requests count as cut off.
        closing = true
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        closing = true
        ticker?.cancel()
        ticker = nil
        let abrupt = !closedOnPurpose && queue.count > 0
        while let pending = queue.popFirst() { pending.reply.succeed(.unanswered(abrupt: abrupt)) }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ticker?.cancel()
        ticker = nil
        while let pending = queue.popFirst() { pending.reply.succeed(.unanswered(abrupt: false)) }
    }

    private func endConnection(_ context: ChannelHandlerContext) {
        closing = true
        closedOnPurpose = true
        context.close(promise: nil)
    }
}
