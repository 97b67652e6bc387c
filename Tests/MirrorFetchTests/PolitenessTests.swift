import Synchronization
import Testing

@testable import MirrorFetch

@Suite("Request pacing")
struct PolitenessTests {
    @Test("the token bucket lets a burst through, then one request per 1/rate")
    func tokenBucket() async {
        let politeness = Politeness(rate: 20, perHost: 100)
        let started = ContinuousClock.now
        for _ in 0..<30 {
            await politeness.acquire(host: "h", crawlDelay: nil)
            politeness.release(host: "h")
        }
        // 20 tokens at once, then 10 more at 1/20 s each: at least 0.5 s (sleeps never end early).
        #expect(ContinuousClock.now - started >= .milliseconds(490))
    }

    @Test("crawl delay spaces requests to one host, not to others")
    func crawlDelay() async {
        let politeness = Politeness(rate: nil, perHost: 10)
        let started = ContinuousClock.now
        for _ in 0..<3 {
            await politeness.acquire(host: "slow", crawlDelay: .milliseconds(100))
            politeness.release(host: "slow")
        }
        #expect(ContinuousClock.now - started >= .milliseconds(200))
        // Another host's first request does not wait for the delay of the first host's last one:
        // it starts at once, where sharing the hosts' clocks would hold it a minute. The bound
        // only tells the two apart, so a loaded machine's pauses cannot reach it.
        let other = ContinuousClock.now
        await politeness.acquire(host: "other", crawlDelay: .seconds(60))
        politeness.release(host: "other")
        #expect(ContinuousClock.now - other < .seconds(30))
    }

    @Test("a host's slots are handed over, never exceeded")
    func hostSlots() async {
        let politeness = Politeness(rate: nil, perHost: 2)
        let inFlight = InFlight()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    await politeness.acquire(host: "h", crawlDelay: nil)
                    inFlight.change(+1)
                    await Task.yield()
                    inFlight.change(-1)
                    politeness.release(host: "h")
                }
            }
        }
        #expect(inFlight.maximum <= 2)
        #expect(inFlight.maximum >= 1)
    }
}

/// Counts what is in flight and remembers the most at once.
final class InFlight: Sendable {
    private let state = Mutex((now: 0, max: 0))
    func change(_ delta: Int) {
        state.withLock {
            $0.now += delta; $0.max = max($0.max, $0.now)
        }
    }
    var maximum: Int { state.withLock { $0.max } }
}
