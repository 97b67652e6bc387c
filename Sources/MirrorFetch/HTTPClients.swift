import AsyncHTTPClient
import Logging
import MirrorCore
import NIOCore

/// The HTTP clients of a run: one per route (direct, and one per proxy in use), since
/// async-http-client sets its proxy per client and `no_proxy` hosts must bypass it.
package struct HTTPClients: Sendable {
    private let direct: HTTPClient
    private let proxied: [ProxyServer: HTTPClient]
    package let routes: ProxyRoutes
    /// Image GETs to plain-HTTP origins, pipelined; nil when pipelining is off.
    package let pipelined: PipelinedClient?

    /// The client that reaches `url` by its route.
    func client(for url: CanonicalURL) -> HTTPClient {
        routes.proxy(for: url).flatMap { proxied[$0] } ?? direct
    }

    /// How many times larger than its compressed form a body may grow while inflated: text a
    /// hundred times smaller compressed is already rare, a thousand times is a bomb.
    static let maxDecompressionRatio = 1_000

    /// Makes the clients for `configuration`, runs `body`, and always shuts every client down.
    /// Throws `TLSOptions.Error` when `--ca-certificate` cannot be used.
    package static func with<T: Sendable>(
        _ configuration: FetchConfiguration, logger: Logger = Logger.silent,
        _ body: (HTTPClients) async throws -> T
    ) async throws -> T {
        var config = HTTPClient.Configuration()
        config.redirectConfiguration = .disallow
        config.timeout = .init(connect: TimeAmount(configuration.connectTimeout), read: TimeAmount(configuration.readTimeout))
        // A bomb's ratio is refused; a document's size is the reader's limit to keep (a page is
        // read whole, a feed streamed from a file).
        config.decompression = .enabled(limit: .ratio(HTTPClients.maxDecompressionRatio))
        config.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(2, configuration.concurrency)
        // Our RetryPolicy decides about retries; the pool's own retrying would keep a refused
        // connection waiting until the request's deadline.
        config.connectionPool.retryConnectionEstablishment = false
        // HTTP/2 where the server offers it by ALPN; plain http stays HTTP/1.1.
        config.httpVersion = .automatic
        config.tlsConfiguration = try configuration.tls.clientConfiguration()
        let direct = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
        var proxied: [ProxyServer: HTTPClient] = [:]
        for proxy in [configuration.proxy.http, configuration.proxy.https].compactMap({ $0 }) where proxied[proxy] == nil {
            var proxyConfig = config
            proxyConfig.proxy = proxy.clientProxy
            proxied[proxy] = HTTPClient(eventLoopGroupProvider: .singleton, configuration: proxyConfig)
        }
        let pipelined =
            configuration.pipelineDepth > 1
            ? PipelinedClient(
                limits: .init(
                    connections: max(1, min(configuration.concurrency, configuration.connectionsPerHost)),
                    depth: configuration.pipelineDepth, connectTimeout: TimeAmount(configuration.connectTimeout),
                    readTimeout: TimeAmount(configuration.readTimeout), lowSpeed: configuration.lowSpeed,
                    bodyDeadline: TimeAmount(configuration.imageDeadline)), logger: logger)
            : nil
        let clients = HTTPClients(direct: direct, proxied: proxied, routes: configuration.proxy, pipelined: pipelined)
        func shutdown() async {
            await pipelined?.shutdown()
            try? await direct.shutdown()
            for client in proxied.values { try? await client.shutdown() }
        }
        do {
            let result = try await body(clients)
            await shutdown()
            return result
        } catch {
            await shutdown()
            throw error
        }
    }
}
