import Foundation
import Synchronization

/// The counters of a run as one value, for the progress line and the report.
public struct ProgressSnapshot: Sendable, Equatable {
    public var pagesCrawled = 0
    public var feedsRead = 0
    /// Distinct keys found so far.
    public var keysFound = 0
    public var accepted = 0
    public var rejected = 0
    /// Images fetched over the network and stored.
    public var downloaded = 0
    public var memoryHits = 0
    public var diskHits = 0
    /// Accepted keys that ended in a failure reason.
    public var failed = 0
    /// Image bytes downloaded.
    public var bytes: Int64 = 0
    public var startedAt = Date()
    /// When the crawl finished, if it has.
    public var crawlFinishedAt: Date?

    public init() {}
}

/// Where a run posts its counters and a display reads them. A mutex rather than an actor:
/// updates are tiny and come from many tasks, and a display samples without awaiting.
public final class ProgressBoard: Sendable {
    private let state = Mutex(ProgressSnapshot())

    public init() {}

    /// The counters now.
    public var snapshot: ProgressSnapshot { state.withLock { $0 } }

    func update(_ change: (inout ProgressSnapshot) -> Void) {
        state.withLock { change(&$0) }
    }
}
