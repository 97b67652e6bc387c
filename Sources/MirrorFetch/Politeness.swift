import Synchronization

/// Request pacing shared by every request of a run: a global token bucket (`--rate`), a limit of
/// connections per host, and the host's robots.txt `Crawl-delay` between requests.
///
/// A lock, not an actor: every request asks twice (acquire and release), and with free slots
/// and no limits the answer is immediate, so the hop to an actor and back was pure cost.
/// Only a request that must wait suspends.
package final class Politeness: Sendable {
    private struct State {
        var tokens: Double
        var lastRefill = ContinuousClock.now
        var inUse: [String: Int] = [:]
        var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
        /// When the latest request to each host started (or is scheduled to start).
        var lastStart: [String: ContinuousClock.Instant] = [:]
    }

    /// Requests per second over all hosts, nil for no limit. Bursts up to one second's worth.
    private let rate: Double?
    /// Requests in flight per host at most.
    private let perHost: Int
    private let state: Mutex<State>

    package init(rate: Double?, perHost: Int) {
        self.rate = rate.flatMap { $0 > 0 ? $0 : nil }
        self.perHost = max(1, perHost)
        state = Mutex(State(tokens: max(1, rate ?? 1)))
    }

    /// Waits for a connection slot on `host`, then for the rate limit and the crawl delay.
    /// Call `release(host:)` when the request (body included) is over.
    func acquire(host: String, crawlDelay: Duration?) async {
        if !takeSlot(host) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // A release may have come in between: take the slot it freed, or queue; the
                // slot is then handed over by `release`, so the count stays right.
                let free = state.withLock { state -> Bool in
                    if state.inUse[host, default: 0] < perHost {
                        state.inUse[host, default: 0] += 1
                        return true
                    }
                    state.waiters[host, default: []].append(continuation)
                    return false
                }
                if free { continuation.resume() }
            }
        }
        let wait = state.withLock { state -> Duration in
            let now = ContinuousClock.now
            var wait: Duration = .zero
            if let rate {
                let elapsed = now - state.lastRefill
                state.lastRefill = now
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                state.tokens = min(max(1, rate), state.tokens + seconds * rate)
                state.tokens -= 1
                if state.tokens < 0 { wait = .milliseconds(Int64((-state.tokens / rate) * 1000)) }
            }
            // Every request's start is recorded, so the first request that knows the host's
            // Crawl-delay (the one right after robots.txt) is spaced from robots.txt itself.
            var slot = now + wait
            if let crawlDelay, crawlDelay > .zero, let last = state.lastStart[host] {
                slot = max(slot, last + crawlDelay)
            }
            state.lastStart[host] = max(slot, state.lastStart[host] ?? slot)
            return slot - now
        }
        if wait > .zero { try? await Task.sleep(for: wait) }
    }

    private func takeSlot(_ host: String) -> Bool {
        state.withLock { state in
            guard state.inUse[host, default: 0] < perHost else { return false }
            state.inUse[host, default: 0] += 1
            return true
        }
    }

    func release(host: String) {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if var queue = state.waiters[host], !queue.isEmpty {
                let next = queue.removeFirst()
                state.waiters[host] = queue
                return next
            }
            state.inUse[host, default: 1] -= 1
            return nil
        }
        next?.resume()
    }
}
