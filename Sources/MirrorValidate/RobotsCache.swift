import MirrorCore
import Synchronization

/// robots.txt per origin, fetched once and shared: concurrent questions about a new host wait
/// for the one fetch. Once an origin's file is known it is answered without a hop to the actor
/// (every key and every request asks).
package actor RobotsCache {
    private let fetch: @Sendable (CanonicalURL) async -> RobotsTxt
    private nonisolated let inScope: @Sendable (CanonicalURL) -> Bool
    private var policies: [String: Task<RobotsTxt, Never>] = [:]
    private nonisolated let fetched = Mutex<[String: RobotsTxt]>([:])

    /// - Parameters:
    ///   - inScope: whether a URL is inside the crawl scope. The robots.txt of an origin outside
    ///     it is never fetched (no request of any kind leaves the scope): it answers `.allowAll`
    ///     at once, and the scope itself refuses every request there. Default: every URL.
    ///   - fetch: reads and parses `origin/robots.txt`; its answer for 4xx is `.allowAll`, for
    ///     5xx or an unreachable host `.disallowAll`.
    package init(
        inScope: @escaping @Sendable (CanonicalURL) -> Bool = { _ in true },
        fetch: @escaping @Sendable (CanonicalURL) async -> RobotsTxt
    ) {
        self.inScope = inScope
        self.fetch = fetch
    }

    /// Whether robots.txt of `url`'s origin allows fetching it.
    package nonisolated func allows(_ url: CanonicalURL) async -> Bool {
        if let known = fetchedPolicy(for: url) { return known.allows(url) }
        return await policy(for: url).allows(url)
    }

    /// The robots.txt of `url`'s origin (fetched on first use, shared by every caller).
    package func policy(for url: CanonicalURL) async -> RobotsTxt {
        guard inScope(url) else { return .allowAll }
        let origin = url.origin
        if let known = policies[origin] { return await known.value }
        guard let robotsURL = CanonicalURL(origin + "/robots.txt") else { return .allowAll }
        let task = Task { [fetch] in await fetch(robotsURL) }
        policies[origin] = task
        let policy = await task.value
        fetched.withLock { $0[origin] = policy }
        return policy
    }

    /// The robots.txt of `url`'s origin if it has been fetched already; never fetches (the
    /// request pacer asks this, and must not wait for robots.txt to pace robots.txt).
    package nonisolated func fetchedPolicy(for url: CanonicalURL) -> RobotsTxt? {
        // Known without a request: a key out of scope is not held for a robots.txt that is never
        // fetched (the collector waits for its origin's policy before validating it).
        guard inScope(url) else { return .allowAll }
        let origin = url.origin
        return fetched.withLock { $0[origin] }
    }
}
