import Synchronization

/// Counts the bytes of one transfer and decides, as curl's `--speed-limit`/`--speed-time` do,
/// when it has been too slow for too long: the speed is measured over each second, and a
/// transfer that stays below `limit.bytesPerSecond` for `limit.duration` is stalled.
///
/// Unlike curl, the clock starts when the response's head has arrived: the wait for a response
/// is the read timeout's business, and a loaded server that answers a small page late is not a
/// slow transfer. Bytes are added by the body reader; the deadline watchdog samples the meter
/// on its tick.
final class TransferMeter: Sendable {
    let limit: LowSpeedLimit

    private struct State {
        var total: Int64 = 0
        var sampledTotal: Int64 = 0
        var sampledAt: ContinuousClock.Instant
        var slowSince: ContinuousClock.Instant?
        var stalled = false
        var pausedTotal: Duration = .zero
        var started = false
    }

    private let state: Mutex<State>

    init(limit: LowSpeedLimit) {
        self.limit = limit
        state = Mutex(State(sampledAt: .now))
    }

    /// Starts measuring (the response's head has arrived); the first call counts.
    func begin(at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            guard !state.started else { return }
            state.started = true
            state.sampledAt = now
            state.sampledTotal = state.total
        }
    }

    /// Records `count` more bytes received.
    func add(_ count: Int) {
        state.withLock { $0.total += Int64(count) }
    }

    /// True once the transfer has been judged too slow.
    var isStalled: Bool { state.withLock { $0.stalled } }

    /// Takes a sample at `now` (at most one a second counts) and returns true when the transfer
    /// has been slower than the limit for the limit's duration. `pausedTotal` is the time spent
    /// so far waiting on our own consumer (`TransferClock.paused`): a second in which it grew
    /// measured us, not the server, and does not count as slow; nor does one in which the
    /// process was `starved` of CPU.
    func check(now: ContinuousClock.Instant, pausedTotal: Duration = .zero, starved: Bool = false) -> Bool {
        guard limit.bytesPerSecond > 0, limit.duration > .zero else { return false }
        return state.withLock { state in
            if state.stalled { return true }
            guard state.started else { return false }
            let elapsed = now - state.sampledAt
            guard elapsed >= .seconds(1) else { return false }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let speed = Double(state.total - state.sampledTotal) / seconds
            let paused = pausedTotal != state.pausedTotal
            state.pausedTotal = pausedTotal
            if paused || starved || speed >= Double(limit.bytesPerSecond) {
                state.slowSince = nil
            } else if state.slowSince == nil {
                state.slowSince = state.sampledAt
            }
            state.sampledAt = now
            state.sampledTotal = state.total
            if let since = state.slowSince, now - since >= limit.duration { state.stalled = true }
            return state.stalled
        }
    }
}
