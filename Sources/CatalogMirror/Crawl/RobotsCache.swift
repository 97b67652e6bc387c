/// robots.txt per origin, fetched once and shared: concurrent questions about a new host wait
/// for the one fetch.
public actor RobotsCache {
    private let fetch: @Sendable (CanonicalURL) async -> RobotsTxt
    private var policies: [String: Task<RobotsTxt, Never>] = [:]

    /// - Parameter fetch: reads and parses `origin/robots.txt`; its answer for 4xx is
    ///   `.allowAll`, for 5xx or an unreachable host `.disallowAll`.
    public init(fetch: @escaping @Sendable (CanonicalURL) async -> RobotsTxt) {
        self.fetch = fetch
    }

    /// Whether robots.txt of `url`'s origin allows fetching it.
    public func allows(_ url: CanonicalURL) async -> Bool {
        let origin = url.origin
        if let known = policies[origin] { return await known.value.allows(url) }
        guard let robotsURL = CanonicalURL(origin + "/robots.txt") else { return true }
        let task = Task { [fetch] in await fetch(robotsURL) }
        policies[origin] = task
        return await task.value.allows(url)
    }
}
