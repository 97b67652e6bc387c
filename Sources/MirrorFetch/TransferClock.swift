import Synchronization

/// The clock a request's deadline runs on when its body is consumed at our pace: time spent
/// waiting on our own consumers (a feed's keys queued for busy downloaders) is paused, so the
/// deadline measures the server, not us.
package final class TransferClock: Sendable {
    private let state = Mutex<(paused: Duration, since: ContinuousClock.Instant?)>((.zero, nil))

    /// Stops counting until `resume()`.
    func pause() {
        state.withLock { if $0.since == nil { $0.since = .now } }
    }

    func resume() {
        state.withLock {
            if let since = $0.since {
                $0.paused += .now - since
                $0.since = nil
            }
        }
    }

    /// Time spent paused so far (including a pause under way).
    var paused: Duration {
        state.withLock { state in state.paused + (state.since.map { .now - $0 } ?? .zero) }
    }
}
