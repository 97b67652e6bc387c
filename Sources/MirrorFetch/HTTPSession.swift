import AsyncHTTPClient
import Foundation
import Logging
import MirrorCore
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix

/// Decides whether a URL may be requested at all; asked for the first URL and before every
/// redirect hop, so no request ever leaves scope. Returns the rejection, or nil to allow.
package typealias RequestGate = @Sendable (CanonicalURL) async -> RejectionReason?

/// GET requests with the crawler's manners: redirects followed by hand (each target passes the
/// gate first; loops and long chains are named failures), transient failures retried with
/// backoff, `Retry-After` honoured on 429 and 503, every request sent through its proxy route
/// with the headers, cookies and credentials that belong to its host, transfers slower than
/// `--speed-limit` cut off, and every failure reduced to a manifest reason.
package struct HTTPSession: Sendable {
    package let clients: HTTPClients
    package let configuration: FetchConfiguration
    /// Pacing shared by every request of the run.
    let politeness: Politeness
    /// The `Crawl-delay` to keep for a URL's host, when robots.txt gave one (never fetches).
    package let crawlDelay: @Sendable (CanonicalURL) async -> Duration?
    /// Cuts off attempts past their deadline.
    let watchdog = DeadlineWatchdog()
    /// The origins this run gave up on (shared by every session of a run).
    package let health: OriginHealth
    /// Told of every request at `debug`: method, URL, status (or the error) and the time to
    /// the response's head; and of every retry.
    let logger: Logger

    package init(
        clients: HTTPClients, configuration: FetchConfiguration, politeness: Politeness? = nil,
        crawlDelay: @escaping @Sendable (CanonicalURL) async -> Duration? = { _ in nil },
        health: OriginHealth = OriginHealth(), logger: Logger = Logger.silent
    ) {
        self.health = health
        self.clients = clients
        self.configuration = configuration
        self.politeness = politeness ?? Politeness(rate: configuration.rate, perHost: configuration.connectionsPerHost)
        self.crawlDelay = crawlDelay
        self.logger = logger
    }

    /// A response whose status is 2xx (or 304 to a conditional request), with the URL it
    /// finally came from.
    package struct Success {
        package var response: HTTPClientResponse
        package var url: CanonicalURL
        /// Counts the body's bytes for `--speed-limit`.
        var meter: TransferMeter
        /// Read the body through this, not `response.body`: it counts bytes for the meter,
        /// decodes brotli and turns an inflation bomb into `too-large`.
        package var body: DecodedBody { DecodedBody(response: response, meter: meter, url: url, inflationLimit: inflationLimit) }
        var inflationLimit: Int
    }

    /// Thrown by a body consumer to say how the attempt ended.
    package enum BodyError: Error {
        /// Give up on this request with this reason (no retry).
        case fatal(FetchFailure)
        /// The body stopped early (connection closed, read timeout); worth another attempt.
        case interrupted(FetchFailure)
    }

    /// Sends GET (or `method`) `url`, follows redirects, retries, and hands a 2xx response to
    /// `consume`, which reads the body. `consume` may be called once per attempt. `earlier`:
    /// how a first attempt made by other means ended; the retries continue from it.
    package func get<T: Sendable>(
        _ url: CanonicalURL,
        method: HTTPMethod = .GET,
        headers: [(String, String)],
        deadline: Duration,
        gate: @escaping RequestGate,
        clock: TransferClock? = nil,
        after earlier: Attempt? = nil,
        consume: @escaping @Sendable (Success) async throws(BodyError) -> T
    ) async throws(FetchFailure) -> T {
        var attempt = 0
        // The first attempt was made elsewhere (the pipelined client) and ended this way.
        switch earlier {
        case .none:
            break
        case .final(let final):
            throw final
        case .retryable(let failure, let after):
            attempt = 1
            guard attempt < configuration.retry.maxAttempts else { throw failure }
            do {
                try await Task.sleep(for: after ?? configuration.retry.backoff(afterAttempt: attempt))
            } catch {
                throw FetchFailure(.networkError, "cancelled")
            }
        }
        while true {
            attempt += 1
            if health.isGivenUp(url) { throw OriginHealth.failure(url) }
            // The host's slot is held for the whole attempt, body included.
            await politeness.acquire(host: url.host, crawlDelay: await crawlDelay(url))
            let outcome = await attemptWithinDeadline(
                url, method: method, headers: headers, deadline: deadline, gate: gate, clock: clock, consume: consume)
            politeness.release(host: url.host)
            let failure: FetchFailure
            let retryDelay: Duration
            switch outcome {
            case .success(let value):
                return value
            case .failure(.final(let final)):
                throw final
            case .failure(.retryable(let retryable, let after)):
                failure = retryable
                retryDelay = after ?? configuration.retry.backoff(afterAttempt: attempt)
            }
            guard attempt < configuration.retry.maxAttempts else { throw failure }
            logger.debug("retrying \(url) in \(Self.seconds(retryDelay)) (attempt \(attempt + 1)): \(failure)")
            do {
                try await Task.sleep(for: retryDelay)
            } catch {
                throw FetchFailure(.networkError, "cancelled")
            }
        }
    }

    /// One attempt, cut off at `deadline` however slowly the body trickles in (the client's
    /// own deadline does not interrupt a body that keeps sending). Running out of time is final:
    /// the deadline is per item, so a server that never finishes is not asked again.
    private func attemptWithinDeadline<T: Sendable>(
        _ url: CanonicalURL, method: HTTPMethod, headers: [(String, String)], deadline: Duration,
        gate: @escaping RequestGate, clock: TransferClock?, consume: @escaping @Sendable (Success) async throws(BodyError) -> T
    ) async -> Result<T, Attempt> {
        let headers = headers.map { Header(name: $0.0, value: $0.1) }
        let meter = TransferMeter(limit: configuration.lowSpeed)
        let outcome = await watchdog.run(deadline: deadline, clock: clock, meter: meter) {
            await self.attempt(
                url, method: method, headers: headers.map { ($0.name, $0.value) }, deadline: deadline, gate: gate,
                meter: meter, consume: consume)
        }
        if let outcome { return outcome }
        if meter.isStalled {
            let limit = configuration.lowSpeed
            return .failure(
                .final(
                    FetchFailure(
                        .timeout,
                        "\(url) was slower than \(limit.bytesPerSecond) bytes/s for \(limit.duration) (--speed-limit, --speed-time)"
                    )))
        }
        return .failure(.final(FetchFailure(.timeout, "\(url) did not finish within \(deadline)")))
    }

    /// A header as a Sendable value (tuples are not).
    private struct Header: Sendable {
        var name: String
        var value: String
    }

    private func attempt<T: Sendable>(
        _ url: CanonicalURL, method: HTTPMethod, headers: [(String, String)], deadline: Duration, gate: RequestGate,
        meter: TransferMeter, consume: (Success) async throws(BodyError) -> T
    ) async -> Result<T, Attempt> {
        let success: Success
        do {
            success = try await send(url, method: method, headers: headers, deadline: deadline, gate: gate, meter: meter)
        } catch {
            return .failure(error)
        }
        do throws(BodyError) {
            let value = try await consume(success)
            return .success(value)
        } catch {
            switch error {
            case .fatal(let fatal): return .failure(.final(fatal))
            case .interrupted(let interrupted): return .failure(.retryable(interrupted, after: nil))
            }
        }
    }

    /// How one attempt ended when it did not produce a 2xx response.
    package enum Attempt: Error {
        case final(FetchFailure)
        case retryable(FetchFailure, after: Duration?)
    }

    private func send(
        _ start: CanonicalURL, method: HTTPMethod, headers: [(String, String)], deadline: Duration, gate: RequestGate,
        meter: TransferMeter
    ) async throws(Attempt) -> Success {
        var current = start
        var visited: Set<CanonicalURL> = [start]
        var hops = 0
        let until = NIODeadline.now() + TimeAmount(deadline)
        while true {
            var request = HTTPClientRequest(url: current.string)
            request.method = method
            // Recomputed on every hop: credentials belong to their host, never to a redirect's target.
            for (name, value) in requestHeaders(for: current, headers) { request.headers.add(name: name, value: value) }
            let response: HTTPClientResponse
            let sentAt = ContinuousClock.now
            if health.isGivenUp(current) { throw .final(OriginHealth.failure(current)) }
            do {
                response = try await clients.client(for: current).execute(request, deadline: until)
            } catch {
                logger.debug("\(method.rawValue) \(current) failed after \(Self.seconds(sentAt.duration(to: .now))): \(error)")
                if !(error is CancellationError), health.unanswered(current) {
                    logger.info("\(current.origin) did not answer \(health.giveUpAfter) times in a row: given up on for this run")
                }
                throw await failure(error, url: current)
            }
            health.answered(current)
            let status = Int(response.status.code)
            logger.debug("\(method.rawValue) \(current) \(status) \(Self.seconds(sentAt.duration(to: .now)))")
            if [301, 302, 303, 307, 308].contains(status), let location = response.headers.first(name: "location") {
                await Self.discard(response)
                guard let next = CanonicalURL(location, relativeTo: current) else {
                    throw .final(
                        FetchFailure(.networkError, "\(current) redirects to an unusable location \"\(location.prefix(200))\""))
                }
                hops += 1
                if visited.contains(next) {
                    throw .final(FetchFailure(.redirectLoop, "\(start) redirects in a loop through \(next)"))
                }
                if hops > configuration.maxRedirects {
                    throw .final(
                        FetchFailure(.tooManyRedirects, "\(start) redirects more than \(configuration.maxRedirects) times"))
                }
                if let refusal = await gate(next) {
                    throw .final(FetchFailure(refusal, "\(current) redirects to \(next), which is \(refusal)"))
                }
                visited.insert(next)
                current = next
                continue
            }
            if (200..<300).contains(status) {
                meter.begin()
                return Success(response: response, url: current, meter: meter, inflationLimit: configuration.maxDocumentBytes)
            }
            if status == 304, headers.contains(where: { $0.0 == "If-None-Match" || $0.0 == "If-Modified-Since" }) {
                await Self.discard(response)
                return Success(response: response, url: current, meter: meter, inflationLimit: configuration.maxDocumentBytes)
            }
            await Self.discard(response)
            throw refusal(response.status, headers: response.headers, url: current)
        }
    }

    /// `0.012 s`: a duration for the log.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.3f s", Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// How a response that is neither 2xx, 304 nor a redirect ends an attempt: 429 and 503 are
    /// retried after their `Retry-After` (final beyond the cap), other 5xx after the backoff,
    /// anything else is final; the reason is `http-<status>`.
    package func refusal(_ status: HTTPResponseStatus, headers: HTTPHeaders, url: CanonicalURL) -> Attempt {
        let code = Int(status.code)
        let failure = FetchFailure(.http(code), "\(url) answered \(code) \(status.reasonPhrase)")
        if code == 429 || code == 503 {
            let after = headers.first(name: "retry-after").flatMap(Self.parseRetryAfter)
            if let after, after > configuration.retry.maxRetryAfter { return .final(failure) }
            return .retryable(failure, after: after)
        }
        if code >= 500 { return .retryable(failure, after: nil) }
        return .final(failure)
    }

    /// The header fields of a request for `url`: the User-Agent and `headers`, then the
    /// identity's fields for that host (`--header`, cookies, credentials), which win over a
    /// field of the same name.
    package func requestHeaders(for url: CanonicalURL, _ headers: [(String, String)]) -> [(String, String)] {
        let extra = configuration.identity.fields(for: url)
        var fields: [(String, String)] = []
        for (name, value) in [("User-Agent", configuration.userAgent)] + headers
        where !extra.contains(where: { $0.0.lowercased() == name.lowercased() }) {
            fields.append((name, value))
        }
        return fields + extra
    }

    /// Reads and drops a small body so the connection can be reused; a large one is abandoned.
    private static func discard(_ response: HTTPClientResponse) async {
        _ = try? await response.body.collect(upTo: 64 * 1024)
    }

    /// How a request that got no response ends: a refused certificate or a proxy that will not
    /// connect is final, with one line naming the host, what is wrong and the fix; anything
    /// else is worth another attempt.
    private func failure(_ error: any Error, url: CanonicalURL) async -> Attempt {
        if CertificateDiagnosis.isCertificateFailure(error) {
            let port = url.port ?? (url.scheme == "https" ? 443 : 80)
            let line = await CertificateDiagnosis.explain(host: url.host, port: port, options: configuration.tls)
            return .final(FetchFailure(.networkError, line))
        }
        if CertificateDiagnosis.isTLSFailure(error) {
            return .final(
                FetchFailure(
                    .networkError,
                    "the TLS handshake with \(url.host) failed (does it speak HTTPS on port \(url.port ?? 443)?): \(String(describing: error).prefix(160))"
                ))
        }
        if let proxy = configuration.proxy.proxy(for: url), let clientError = error as? HTTPClientError {
            switch clientError {
            case .proxyAuthenticationRequired:
                return .final(
                    FetchFailure(
                        .networkError,
                        "the proxy \(proxy) asks for credentials for \(url.host) (give them in the proxy URL: http://user:password@host:port)"
                    ))
            case .invalidProxyResponse:
                return .final(
                    FetchFailure(
                        .networkError,
                        "the proxy \(proxy) refused to connect to \(url.host):\(url.port ?? (url.scheme == "https" ? 443 : 80)) (it must allow CONNECT to that port; no_proxy skips it)"
                    ))
            default: break
            }
        }
        return .retryable(Self.classify(error, url: url), after: nil)
    }

    /// Maps a transport error to a manifest reason.
    package static func classify(_ error: any Error, url: CanonicalURL) -> FetchFailure {
        if let clientError = error as? HTTPClientError {
            switch clientError {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
                return FetchFailure(.timeout, "\(url) timed out")
            default:
                return FetchFailure(.networkError, "\(url): \(clientError)")
            }
        }
        if error is CancellationError { return FetchFailure(.networkError, "\(url): cancelled") }
        return FetchFailure(.networkError, "\(url): \(plainWords(error) ?? "\(error)")")
    }

    /// The socket failures a user meets, in plain words: NIO's own descriptions name its
    /// internals ("connection reset (error set): Connection refused (errno: 111)").
    static func plainWords(_ error: any Error) -> String? {
        if let connection = error as? NIOConnectionError {
            if connection.dnsAError != nil || connection.dnsAAAAError != nil {
                return "the host name \(connection.host) was not found"
            }
            return connection.connectionErrors.first.flatMap { plainWords($0.error) }
        }
        if let unknown = error as? SocketAddressError.UnknownHost { return "the host name \(unknown.host) was not found" }
        if let io = error as? IOError { return String(cString: strerror(io.errnoCode)).lowercased() }
        return nil
    }

    /// `Retry-After` as delta-seconds or an HTTP-date (RFC 9110 section 10.2.3).
    static func parseRetryAfter(_ value: String) -> Duration? {
        let trimmed = value.trimmingSpaces
        if let seconds = Int(trimmed) { return .seconds(max(0, seconds)) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return .seconds(max(0, Int(date.timeIntervalSinceNow.rounded(.up))))
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
