/// robots.txt per origin, fetched once and shared: concurrent questions about a new host wait
/// for the one fetch.
public actor RobotsCache {
    private let fetch: @Sendable (CanonicalURL) async -> RobotsTxt
    private var policies: [String: Task<RobotsTxt, Never>] = [:]
    private var fetched: [String: RobotsTxt] = [:]

    /// - Parameter fetch: reads and parses `origin/robots.txt`; its answer for 4xx is
    ///   `.allowAll`, for 5xx or an unreachable host `.disallowAll`.
    public init(fetch: @escaping @Sendable (CanonicalURL) async -> RobotsTxt) {
        self.fetch = fetch
    }

    /// Whether robots.txt of `url`'s origin allows fetching it.
    public func allows(_ url: CanonicalURL) async -> Bool {
        await policy(for: url).allows(url)
    }

    /// The robots.txt of `url`'s origin (fetched on first use, shared by every caller).
    public func policy(for url: CanonicalURL) async -> RobotsTxt {
        let origin = url.origin
        if let known = policies[origin] { return await known.value }
        guard let robotsURL = CanonicalURL(origin + "/robots.txt") else { return .allowAll }
        let task = Task { [fetch] in await fetch(robotsURL) }
        policies[origin] = task
        let policy = await task.value
        fetched[origin] = policy
        return policy
    }

    /// The robots.txt of `url`'s origin if it has been fetched already; never fetches (the
    /// request pacer asks this, and must not wait for robots.txt to pace robots.txt).
    public func fetchedPolicy(for url: CanonicalURL) -> RobotsTxt? {
        fetched[url.origin]
    }
}
