import Logging
import MirrorCore
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// Image GETs to plain-HTTP origins over a few keep-alive HTTP/1.1 connections each, with up to
/// `depth` requests pipelined on a connection.
///
/// Why this exists beside async-http-client: a resync is thousands of conditional GETs, each
/// answered by a bodiless 304. async-http-client keeps one request in flight per connection
/// (it does not pipeline), so on a link with 20 ms of round trip a connection revalidates at
/// most 50 images a second, and its per-request path was much of a no-op's CPU. Issue 13
/// approved a lean path for exactly this case, on SwiftNIO's own HTTP/1.1 codec (no parsing by
/// hand). It returns each response's head (and a 200's body when it is small and not encoded);
/// the caller decides as the full client would. A large or encoded 200, or a connection that
/// fails, is handed back as `.fallback` and asked again through async-http-client, which owns
/// redirects, retries and deadlines.
///
/// A new connection carries one request at a time until its first response shows an HTTP/1.1
/// keep-alive server; an origin that cuts connections with requests queued twice is not
/// pipelined again (servers and middleboxes that mishandle pipelining exist).
package final class PipelinedClient: Sendable {
    /// How many connections, how deep, how long.
    struct Limits: Sendable {
        /// Connections per origin at most.
        var connections: Int
        /// Requests in flight on one proven connection.
        var depth: Int = 16
        /// Largest 200 body held in memory; a larger one is fetched again by the full client.
        var bodyLimit: Int = 4 << 20
        var connectTimeout: TimeAmount
        /// Silence while answers are due before the connection is given up.
        var readTimeout: TimeAmount
        /// `--speed-limit` and `--speed-time` for a body being received.
        var lowSpeed = LowSpeedLimit()
        /// Longest time a body may take once its head has arrived (the image deadline).
        var bodyDeadline: TimeAmount = .seconds(300)
    }

    /// How a GET ended here.
    package enum Answer: Sendable {
        /// A response; a 200's body is complete in memory (the parts it arrived in), other
        /// statuses have no body.
        case response(HTTPResponseHead, [ByteBuffer])
        /// Too slow (`stalled`: under `--speed-limit` for `--speed-time`) or past the deadline.
        case timedOut(stalled: Bool)
        /// Ask async-http-client instead.
        case fallback
    }

    private struct Connection {
        var channel: EventLoopFuture<any Channel>
        /// The channel once connected: a lease hands it over as it is, since awaiting even a
        /// completed future from off the event loop costs a hop onto the loop.
        var open: (any Channel)?
        var writes = RequestWrites()
        var inFlight = 0
        /// Its first response showed a keep-alive HTTP/1.1 server: it may carry `depth` requests.
        var proven = false
    }

    private struct Origin {
        var connections: [Int: Connection] = [:]
        var waiters: [CheckedContinuation<Lease?, Never>] = []
        var pipelining = true
        var abruptEnds = 0
        /// Bodies too large to hold; after a few, plain GETs to this origin skip this path.
        var oversized = 0
    }

    private struct Lease: Sendable {
        var id: Int
        var channel: EventLoopFuture<any Channel>
        var open: (any Channel)?
        var writes: RequestWrites
    }

    private struct State {
        var origins: [String: Origin] = [:]
        var nextID = 0
        var isShutDown = false
    }

    let limits: Limits
    /// `--debug` gets a line per response, as from the full client.
    let logger: Logger
    private let group: any EventLoopGroup
    private let state = Mutex(State())

    init(
        limits: Limits, logger: Logger = Logger.silent,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.limits = limits
        self.logger = logger
        self.group = group
    }

    /// Sends GET `url` (an http URL) with `headers` (Host included). `conditional` says the
    /// request carries validators (a body is then rare).
    package func get(_ url: CanonicalURL, headers: HTTPHeaders, conditional: Bool) async -> Answer {
        let host = url.host.hasPrefix("[") ? String(url.host.dropFirst().dropLast()) : url.host
        let port = url.port ?? 80
        let target = url.pathAndQuery
        let origin = "\(host):\(port)"
        if !conditional, state.withLock({ $0.origins[origin]?.oversized ?? 0 }) >= 3 { return .fallback }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        for _ in 0..<2 {
            // A stopping run (SIGINT, a failure elsewhere) asks nothing more of the server.
            if Task.isCancelled { return .fallback }
            guard let lease = await lease(origin: origin, host: host, port: port) else { return .fallback }
            let response: PipelinedResponse
            let sentAt = ContinuousClock.now
            func log(_ status: HTTPResponseStatus) {
                logger.debug("GET \(url) \(status.code) \(HTTPSession.seconds(sentAt.duration(to: .now)))")
            }
            do {
                let channel = if let open = lease.open { open } else { try await lease.channel.get() }
                // A stopping run does not wait for a slow server: closing the connection answers
                // every request on it (`.unanswered`). Without this, SIGINT during a stalled
                // download waited for the download's deadline before the process could exit.
                response = await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        lease.writes.send(PipelinedRequest(head: head, reply: PipelinedReply(continuation)), on: channel)
                    }
                } onCancel: {
                    channel.close(promise: nil)
                }
            } catch {
                // The connection could not be made: the full client reports why.
                release(origin: origin, lease: lease, keepAlive: false, dead: true)
                return .fallback
            }
            switch response {
            case .complete(let responseHead, let body):
                log(responseHead.status)
                release(origin: origin, lease: lease, keepAlive: responseHead.isKeepAlive, dead: !responseHead.isKeepAlive)
                return .response(responseHead, body)
            case .timedOut(let stalled):
                log(.ok)
                release(origin: origin, lease: lease, keepAlive: false, dead: true)
                return .timedOut(stalled: stalled)
            case .unusual(let status, let tooLarge):
                log(status)
                release(origin: origin, lease: lease, keepAlive: false, dead: tooLarge, oversized: tooLarge)
                return .fallback
            case .unanswered(let abrupt):
                release(origin: origin, lease: lease, keepAlive: false, dead: true, abrupt: abrupt)
            }
        }
        return .fallback
    }

    /// Sends a GET for each of `requests` (http URLs, each with its headers, Host included) and
    /// returns their answers in the same order, all at once: the requests are queued on the
    /// origins' connections together (each connection writes its share in one event-loop task,
    /// one flush), and the calling task is resumed once, when the last response is in.
    ///
    /// For a revalidation batch, whose requests are conditional: a request that is not answered
    /// here (its connection lost, an unusual response) is `.fallback`, for the caller to ask
    /// through the full client; nothing is retried here.
    package func get(batch requests: [(url: CanonicalURL, headers: HTTPHeaders)]) async -> [Answer] {
        var answers = [Answer](repeating: .fallback, count: requests.count)
        guard !requests.isEmpty else { return answers }
        // Each request is sent as soon as it has a slot, and its slot is freed as its response
        // comes in: a batch larger than the slots free waits for its own first answers.
        let leases = BatchLeases(count: requests.count)
        let batch = PipelinedBatch(count: requests.count) { [weak self] index, response in
            guard let (origin, lease) = leases.slots.withLock({ slots in slots[index].take() }) else { return }
            self?.release(origin: origin, lease: lease, after: response)
        }
        let channels = OpenChannels()
        let sentAt = ContinuousClock.now
        let responses = await withTaskCancellationHandler {
            for (index, request) in requests.enumerated() {
                let url = request.url
                let host = url.host.hasPrefix("[") ? String(url.host.dropFirst().dropLast()) : url.host
                let port = url.port ?? 80
                let origin = "\(host):\(port)"
                guard !Task.isCancelled, let lease = await lease(origin: origin, host: host, port: port) else {
                    batch.deliver(.unanswered(abrupt: false), at: index)
                    continue
                }
                let channel: any Channel
                if let open = lease.open {
                    channel = open
                } else {
                    do {
                        channel = try await lease.channel.get()
                    } catch {
                        release(origin: origin, lease: lease, keepAlive: false, dead: true)
                        batch.deliver(.unanswered(abrupt: false), at: index)
                        continue
                    }
                }
                leases.slots.withLock { $0[index] = (origin, lease) }
                channels.add(channel)
                let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: url.pathAndQuery, headers: request.headers)
                lease.writes.send(PipelinedRequest(head: head, reply: PipelinedReply(batch: batch, index: index)), on: channel)
            }
            return await batch.responses()
        } onCancel: {
            // A stopping run does not wait for a slow server: closing answers every request.
            channels.closeAll()
        }
        let elapsed = HTTPSession.seconds(sentAt.duration(to: .now))
        for (index, response) in responses.enumerated() {
            let url = requests[index].url
            switch response {
            case .complete(let head, let body):
                logger.debug("GET \(url) \(head.status.code) \(elapsed)")
                answers[index] = .response(head, body)
            case .timedOut(let stalled):
                answers[index] = .timedOut(stalled: stalled)
            case .unusual(let status, _):
                logger.debug("GET \(url) \(status.code) \(elapsed)")
            case .unanswered:
                break
            }
        }
        return answers
    }

    /// Frees the slot `lease` held for a request of a batch, as its `response` says: a complete
    /// keep-alive response proves the connection; anything else ends it.
    private func release(origin: String, lease: Lease, after response: PipelinedResponse) {
        switch response {
        case .complete(let head, _):
            release(origin: origin, lease: lease, keepAlive: head.isKeepAlive, dead: !head.isKeepAlive)
        case .timedOut:
            release(origin: origin, lease: lease, keepAlive: false, dead: true)
        case .unusual(_, let tooLarge):
            release(origin: origin, lease: lease, keepAlive: false, dead: tooLarge, oversized: tooLarge)
        case .unanswered(let abrupt):
            release(origin: origin, lease: lease, keepAlive: false, dead: true, abrupt: abrupt)
        }
    }

    /// The slots a batch's requests hold, by place in the batch, until each one's response frees it.
    private final class BatchLeases: Sendable {
        let slots: Mutex<[(origin: String, lease: Lease)?]>
        init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }
    }

    /// A slot on a connection to `origin`: the least busy one with room, a new one while there
    /// are fewer than `limits.connections`, or the next to free up. Nil once shut down.
    private func lease(origin: String, host: String, port: Int) async -> Lease? {
        while true {
            var opened: (Int, EventLoopPromise<any Channel>)?
            let immediate: Lease?? = state.withLock { state in
                if state.isShutDown { return .some(nil) }
                if let lease = Self.assign(&state, origin: origin, limits: limits) { return lease }
                if state.origins[origin, default: Origin()].connections.count < limits.connections {
                    let id = state.nextID
                    state.nextID += 1
                    let promise = group.next().makePromise(of: (any Channel).self)
                    let connection = Connection(channel: promise.futureResult, inFlight: 1)
                    state.origins[origin, default: Origin()].connections[id] = connection
                    opened = (id, promise)
                    return Lease(id: id, channel: promise.futureResult, writes: connection.writes)
                }
                return nil
            }
            if let (id, promise) = opened {
                connect(host: host, port: port).whenComplete { [weak self] result in
                    switch result {
                    case .success(let channel):
                        self?.state.withLock { $0.origins[origin]?.connections[id]?.open = channel }
                        promise.succeed(channel)
                        channel.closeFuture.whenComplete { [weak self] _ in self?.remove(origin: origin, id: id) }
                    case .failure(let error):
                        promise.fail(error)
                    }
                }
            }
            if let immediate { return immediate }
            // Resumed with a lease, or with nil when a connection closed and there is room to
            // open another: then ask again.
            let granted: Lease? = await withCheckedContinuation { continuation in
                let ready: Lease?? = state.withLock { state in
                    if state.isShutDown { return .some(nil) }
                    if let lease = Self.assign(&state, origin: origin, limits: limits) { return lease }
                    state.origins[origin, default: Origin()].waiters.append(continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
            if let granted { return granted }
        }
    }

    /// Takes a slot on the least busy connection with room, if there is one.
    private static func assign(_ state: inout State, origin: String, limits: Limits) -> Lease? {
        guard var entry = state.origins[origin] else { return nil }
        var best: (id: Int, inFlight: Int)?
        for (id, connection) in entry.connections {
            let depth = entry.pipelining && connection.proven ? limits.depth : 1
            if connection.inFlight < depth, connection.inFlight < best?.inFlight ?? .max { best = (id, connection.inFlight) }
        }
        guard let best, var connection = entry.connections[best.id] else { return nil }
        connection.inFlight += 1
        entry.connections[best.id] = connection
        state.origins[origin] = entry
        return Lease(id: best.id, channel: connection.channel, open: connection.open, writes: connection.writes)
    }

    private func release(
        origin: String, lease: Lease, keepAlive: Bool, dead: Bool, abrupt: Bool = false, oversized: Bool = false
    ) {
        let woken = state.withLock { state -> [(CheckedContinuation<Lease?, Never>, Lease?)] in
            guard var entry = state.origins[origin] else { return [] }
            if var connection = entry.connections[lease.id] {
                connection.inFlight -= 1
                if keepAlive { connection.proven = true }
                entry.connections[lease.id] = dead ? nil : connection
            }
            if abrupt {
                entry.abruptEnds += 1
                if entry.abruptEnds >= 2 { entry.pipelining = false }
            }
            if oversized { entry.oversized += 1 }
            state.origins[origin] = entry
            return Self.wake(&state, origin: origin, limits: limits)
        }
        for (waiter, lease) in woken { waiter.resume(returning: lease) }
    }

    /// Forgets a closed connection; its waiters may now open another.
    private func remove(origin: String, id: Int) {
        let woken = state.withLock { state -> [(CheckedContinuation<Lease?, Never>, Lease?)] in
            state.origins[origin]?.connections[id] = nil
            return Self.wake(&state, origin: origin, limits: limits)
        }
        for (waiter, lease) in woken { waiter.resume(returning: lease) }
    }

    /// Hands free slots to waiters, first come first served; when no connection has room but
    /// another may be opened, one waiter is resumed with nil to open it.
    private static func wake(
        _ state: inout State, origin: String, limits: Limits
    ) -> [(CheckedContinuation<Lease?, Never>, Lease?)] {
        var woken: [(CheckedContinuation<Lease?, Never>, Lease?)] = []
        while state.origins[origin]?.waiters.isEmpty == false, let lease = assign(&state, origin: origin, limits: limits),
            let waiter = state.origins[origin]?.waiters.removeFirst()
        {
            woken.append((waiter, lease))
        }
        if var entry = state.origins[origin], !entry.waiters.isEmpty, entry.connections.count < limits.connections {
            woken.append((entry.waiters.removeFirst(), nil))
            state.origins[origin] = entry
        }
        return woken
    }

    private func connect(host: String, port: Int) -> EventLoopFuture<any Channel> {
        let limits = self.limits
        return ClientBootstrap(group: group)
            .connectTimeout(limits.connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: limits.readTimeout))
                    try channel.pipeline.syncOperations.addHandler(
                        PipelineHandler(
                            bodyLimit: limits.bodyLimit, lowSpeed: limits.lowSpeed, deadline: limits.bodyDeadline))
                }
            }
            .connect(host: host, port: port)
    }

    /// Closes every connection; requests still waiting for a slot go to the full client.
    func shutdown() async {
        let (channels, waiters) = state.withLock { state in
            state.isShutDown = true
            let channels = state.origins.values.flatMap { $0.connections.values.map(\.channel) }
            let waiters = state.origins.values.flatMap(\.waiters)
            state.origins = [:]
            return (channels, waiters)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
        for channel in channels {
            if let open = try? await channel.get() { try? await open.close() }
        }
    }
}

/// The channels a batch has sent requests on, for closing them all when its task is cancelled.
private final class OpenChannels: Sendable {
    private struct State {
        var channels: [any Channel] = []
        var closed = false
    }

    private let state = Mutex(State())

    /// Adds `channel`; once `closeAll()` has run (the batch's task was cancelled while it waited
    /// for this connection), closes it at once instead.
    func add(_ channel: any Channel) {
        let closed = state.withLock { state in
            if !state.closed { state.channels.append(channel) }
            return state.closed
        }
        if closed { channel.close(promise: nil) }
    }

    func closeAll() {
        let channels = state.withLock { state in
            state.closed = true
            defer { state.channels = [] }
            return state.channels
        }
        for channel in channels { channel.close(promise: nil) }
    }
}

/// The requests waiting to be written on one connection, written by its event loop a burst at
/// a time with one flush: a task that wrote and flushed its own request woke the event loop
/// and made a `writev` for every image, while the engine starts its loads a batch at a time.
private final class RequestWrites: Sendable {
    private struct Pending {
        var requests: [PipelinedRequest] = []
        var scheduled = false
    }

    private let pending = Mutex(Pending())

    /// Queues `request` for `channel`; the first request of a burst schedules the write.
    func send(_ request: PipelinedRequest, on channel: any Channel) {
        let schedule = pending.withLock { pending in
            pending.requests.append(request)
            defer { pending.scheduled = true }
            return !pending.scheduled
        }
        guard schedule else { return }
        channel.eventLoop.execute {
            let requests = self.pending.withLock { pending in
                pending.scheduled = false
                defer { pending.requests = [] }
                return pending.requests
            }
            for request in requests {
                // A write that fails before the handler queued the request (a closed channel)
                // never reaches it; a second completion of the promise is ignored by NIO.
                channel.write(request).whenFailure { _ in request.reply.succeed(.unanswered(abrupt: false)) }
            }
            channel.flush()
        }
    }
}
