import MirrorCore
import Synchronization

/// Which origins this run has given up on: one that answered nothing (refused, reset, timed out
/// connecting, unknown host) `giveUpAfter` times in a row, or whose robots.txt could not be
/// reached at all. Every later request to it fails at once with `network-error` instead of
/// waiting through its connection attempts and back-off again, so one dead origin (a second
/// port named by a listing, an image host that is down) costs the rest of the sync nothing; its
/// keys fail, and a failed key keeps the file the last run published.
///
/// A lock, not an actor: every request asks, and the answer is one table lookup.
package final class OriginHealth: Sendable {
    /// Attempts in a row that got no HTTP answer before the origin is given up on. Default: 3.
    let giveUpAfter: Int
    private let state = Mutex<(silent: [String: Int], givenUp: Set<String>)>(([:], []))

    /// - Parameter giveUpAfter: attempts in a row without an answer that give an origin up.
    package init(giveUpAfter: Int = 3) {
        self.giveUpAfter = max(1, giveUpAfter)
    }

    /// Whether requests to `url`'s origin fail at once.
    package func isGivenUp(_ url: CanonicalURL) -> Bool {
        let origin = url.origin
        return state.withLock { $0.givenUp.contains(origin) }
    }

    /// An attempt on `url` got an HTTP answer (any status): its origin is alive.
    func answered(_ url: CanonicalURL) {
        let origin = url.origin
        state.withLock { state in
            if state.silent[origin] != nil { state.silent[origin] = nil }
        }
    }

    /// An attempt on `url` got no HTTP answer; returns true when that gives its origin up.
    @discardableResult
    func unanswered(_ url: CanonicalURL) -> Bool {
        let origin = url.origin
        return state.withLock { state in
            guard !state.givenUp.contains(origin) else { return false }
            let count = state.silent[origin, default: 0] + 1
            state.silent[origin] = count
            guard count >= giveUpAfter else { return false }
            state.givenUp.insert(origin)
            return true
        }
    }

    /// Gives `url`'s origin up (its robots.txt could not be reached).
    package func giveUp(_ url: CanonicalURL) {
        let origin = url.origin
        state.withLock { _ = $0.givenUp.insert(origin) }
    }

    /// The failure a request to a given-up origin ends with.
    static func failure(_ url: CanonicalURL) -> FetchFailure {
        FetchFailure(
            .networkError,
            "\(url.origin) did not answer (refused or timed out) several times; given up on for this run, its images kept from the last run"
        )
    }
}
