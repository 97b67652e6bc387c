import Foundation
import Synchronization

/// The counters of a run as one value, for the progress line and the report.
public struct ProgressSnapshot: Sendable, Equatable {
    /// Pages read (fetched, or revalidated and read from the stored copy).
    public var pagesCrawled = 0
    /// Feeds, listings and sitemaps read.
    package var feedsRead = 0
    /// Distinct keys found so far.
    public var keysFound = 0
    /// Keys the validator chain accepted (less those found to be decoration or a smaller rendition later).
    public var accepted = 0
    /// Keys refused by a rule, with a reason in the manifest.
    public var rejected = 0
    /// Images fetched over the network and stored.
    public var downloaded = 0
    /// Requests the loader answered from memory (`ImageLoader.memoryHits`).
    public var memoryHits = 0
    /// Stored images confirmed current (`DiskStorage.diskHits`).
    public var diskHits = 0
    /// Accepted keys that ended in a failure reason.
    public var failed = 0
    /// Image bytes downloaded.
    public var bytes: Int64 = 0
    /// When the run started. Default: when the snapshot was made.
    public var startedAt = Date()
    /// When the crawl finished, if it has.
    package var crawlFinishedAt: Date?

    /// Every counter at zero.
    package init() {}
}

/// Where a run posts its counters and a display reads them. A mutex rather than an actor:
/// updates are tiny and come from many tasks, and a display samples without awaiting.
public final class ProgressBoard: Sendable {
    private let state = Mutex(ProgressSnapshot())

    /// A board with every counter at zero.
    public init() {}

    /// The counters now.
    public var snapshot: ProgressSnapshot { state.withLock { $0 } }

    package func update(_ change: (inout ProgressSnapshot) -> Void) {
        state.withLock { change(&$0) }
    }
}
