import MirrorCore

/// Settings of the HTTP side: timeouts, retries, redirects, limits and manners.
public struct FetchConfiguration: Sendable {
    /// The `User-Agent` sent, and the token robots.txt groups are matched against.
    /// Default: `catalog-mirror/<version>`.
    public var userAgent: String = "catalog-mirror/\(CatalogMirrorVersion.current)"
    /// Downloads in flight at once (`--concurrency`). Default: 8.
    public var concurrency: Int = 8
    /// Image requests pipelined on one keep-alive HTTP/1.1 connection to a plain-HTTP origin
    /// (`PipelinedClient`); 1 turns pipelining off. Default: 16. The requests in flight are
    /// then up to `concurrency` connections × this depth; async-http-client's path (HTTPS,
    /// proxies, `--rate`, `Crawl-delay`) keeps `concurrency`.
    public var pipelineDepth: Int = 16
    /// Time allowed to open a connection. Default: 10 s.
    package var connectTimeout: Duration = .seconds(10)
    /// Longest silence while reading a response before it counts as a timeout. Default: 30 s.
    package var readTimeout: Duration = .seconds(30)
    /// Deadline for one page, feed or robots.txt request including its body. Default: 60 s.
    package var documentDeadline: Duration = .seconds(60)
    /// Deadline for one image request including its body, so a server that trickles bytes
    /// forever is cut off. Default: 300 s.
    package var imageDeadline: Duration = .seconds(300)
    /// Largest document read whole into memory, after decompression: a page, a JSON listing,
    /// robots.txt (`--max-document-size`). Default: 64 MiB.
    package var maxDocumentBytes: Int = 64 << 20
    /// Largest feed or sitemap, after decompression. These are written to a file and parsed from
    /// it as a stream, a few items in memory at a time, so their size costs disk, not memory.
    /// Default: nil (no limit: a feed of a million items is read).
    package var maxStreamedDocumentBytes: Int64?
    /// Redirect hops followed for one request. Default: 10.
    package var maxRedirects: Int = 10
    /// How transient failures are retried.
    package var retry: RetryPolicy = RetryPolicy()
    /// `--rate`: requests per second over all hosts. Default: nil (no limit).
    package var rate: Double?
    /// `--connections-per-host`: connections to one host at most (through async-http-client,
    /// one request each; pipelined, up to `pipelineDepth` each). Default: 8.
    public var connectionsPerHost: Int = 8
    /// How HTTPS servers are checked. Default: the system's trust store, certificates checked.
    package var tls: TLSOptions = TLSOptions()
    /// Which proxy each request goes through. Default: none (the CLI fills it from `--proxy`
    /// and the environment).
    package var proxy: ProxyRoutes = ProxyRoutes()
    /// Headers, cookies and credentials sent with requests, each only where it belongs.
    /// Default: none.
    package var identity: RequestIdentity = RequestIdentity()
    /// `--speed-limit` and `--speed-time`: a transfer slower than `bytes` per second for
    /// `duration` fails `timeout`. Default: 1024 bytes/s for 30 s, as curl's options mean.
    package var lowSpeed: LowSpeedLimit = LowSpeedLimit()

    /// Settings with every default above.
    public init() {}
}

/// Retries with exponential backoff and jitter on connection errors, timeouts, 5xx and 429.
package struct RetryPolicy: Sendable {
    /// Attempts per request, the first included. Default: 4.
    package var maxAttempts: Int = 4
    /// Delay before the first retry; doubled for each further one. Default: 500 ms.
    package var baseDelay: Duration = .milliseconds(500)
    /// Upper bound of one backoff delay. Default: 10 s.
    package var maxDelay: Duration = .seconds(10)
    /// Longest `Retry-After` honoured; a server asking for more fails the request
    /// (`http-429`/`http-503`) instead of stalling the run. Default: 10 minutes.
    package var maxRetryAfter: Duration = .seconds(600)

    /// A policy with the given limits.
    /// - Parameters:
    ///   - maxAttempts: Attempts per request, the first included. Default: 4.
    ///   - baseDelay: Delay before the first retry, doubled for each further one. Default: 500 ms.
    ///   - maxDelay: Upper bound of one backoff delay. Default: 10 s.
    ///   - maxRetryAfter: Longest `Retry-After` honoured. Default: 10 minutes.
    package init(
        maxAttempts: Int = 4, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(10),
        maxRetryAfter: Duration = .seconds(600)
    ) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// The backoff before attempt `attempt + 1` (attempt counts from 1), with ±50 % jitter so
    /// many clients do not retry in lock-step.
    func backoff(afterAttempt attempt: Int) -> Duration {
        let exponent = min(attempt - 1, 16)
        let raw = baseDelay * (1 << exponent)
        let capped = raw > maxDelay ? maxDelay : raw
        return capped * Double.random(in: 0.5...1.5)
    }
}

/// A transfer slower than `bytesPerSecond` for `duration` fails `timeout` (curl's
/// `--speed-limit`/`--speed-time`).
public struct LowSpeedLimit: Sendable, Equatable {
    /// Bytes per second below which a transfer counts as stalled; 0 turns the check off.
    /// Default: 1024.
    public var bytesPerSecond: Int = 1024
    /// How long a transfer may stay below the limit. Default: 30 s.
    public var duration: Duration = .seconds(30)

    /// A limit of `bytesPerSecond` (default 1024) over `duration` (default 30 s).
    public init(bytesPerSecond: Int = 1024, duration: Duration = .seconds(30)) {
        self.bytesPerSecond = bytesPerSecond
        self.duration = duration
    }
}
