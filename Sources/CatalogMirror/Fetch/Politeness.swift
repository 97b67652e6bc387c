/// Request pacing shared by every request of a run: a global token bucket (`--rate`), a limit of
/// connections per host, and the host's robots.txt `Crawl-delay` between requests.
actor Politeness {
    /// Requests per second over all hosts, nil for no limit. Bursts up to one second's worth.
    private let rate: Double?
    /// Requests in flight per host at most.
    private let perHost: Int
    private var tokens: Double
    private var lastRefill = ContinuousClock.now
    private var inUse: [String: Int] = [:]
    private var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
    private var nextAllowed: [String: ContinuousClock.Instant] = [:]

    init(rate: Double?, perHost: Int) {
        self.rate = rate.flatMap { $0 > 0 ? $0 : nil }
        self.perHost = max(1, perHost)
        self.tokens = max(1, rate ?? 1)
    }

    /// Waits for a connection slot on `host`, then for the rate limit and the crawl delay.
    /// Call `release(host:)` when the request (body included) is over.
    func acquire(host: String, crawlDelay: Duration?) async {
        if inUse[host, default: 0] >= perHost {
            // The slot is handed over by `release`, so the count stays right.
            await withCheckedContinuation { waiters[host, default: []].append($0) }
        } else {
            inUse[host, default: 0] += 1
        }
        var wait: Duration = .zero
        if let rate {
            let now = ContinuousClock.now
            let elapsed = now - lastRefill
            lastRefill = now
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            tokens = min(max(1, rate), tokens + seconds * rate)
            tokens -= 1
            if tokens < 0 { wait = .milliseconds(Int64((-tokens / rate) * 1000)) }
        }
        if let crawlDelay, crawlDelay > .zero {
            let now = ContinuousClock.now
            let slot = max(now + wait, nextAllowed[host] ?? now)
            nextAllowed[host] = slot + crawlDelay
            wait = slot - now
        }
        if wait > .zero { try? await Task.sleep(for: wait) }
    }

    func release(host: String) {
        if var queue = waiters[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiters[host] = queue
            next.resume()
        } else {
            inUse[host, default: 1] -= 1
        }
    }
}
