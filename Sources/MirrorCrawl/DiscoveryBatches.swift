import AsyncAlgorithms
import Synchronization

/// The crawl's discoveries on their way to the engine, a batch at a time.
///
/// The crawler finds keys one by one. Handed over one at a time through a channel, every key
/// cost a suspension and a resumption of both the crawler's task and the engine's, which a
/// no-op re-sync, doing little else per key, felt in its wall time. A batch goes when it holds
/// `size` keys, and when the crawler has read a document (`flush()`), so a key never waits for
/// the next page to arrive. The channel still makes the crawler wait while the engine is busy
/// with the batch before: memory stays bounded by a batch, not by the crawl.
package final class DiscoveryBatches: AsyncSequence, Sendable {
    package typealias Element = [Discovery]

    private let channel = AsyncChannel<[Discovery]>()
    private let pending: Mutex<(batch: [Discovery], guesses: Int)>
    /// Keys in a full batch.
    let size: Int

    package init(size: Int = 64) {
        self.size = Swift.max(1, size)
        pending = Mutex(([], 0))
    }

    /// How many guesses (`ImageReference.isGuess`) were sent so far: what `GuessedPages`
    /// waits to see settled.
    var guessesSent: Int { pending.withLock { $0.guesses } }

    /// Adds `discovery` to the batch being filled; sends the batch when it is full.
    func send(_ discovery: Discovery) async {
        let full: [Discovery]? = pending.withLock { pending in
            if pending.batch.isEmpty { pending.batch.reserveCapacity(size) }
            pending.batch.append(discovery)
            if discovery.reference.isGuess { pending.guesses += 1 }
            guard pending.batch.count >= size else { return nil }
            defer { pending.batch = [] }
            return pending.batch
        }
        if let full { await channel.send(full) }
    }

    /// Sends the batch being filled, if it holds anything.
    func flush() async {
        let rest = pending.withLock { pending in
            defer { pending.batch = [] }
            return pending.batch
        }
        if !rest.isEmpty { await channel.send(rest) }
    }

    /// Sends an empty batch: wakes the engine's loop over the batches to take what it held
    /// (`Collector`). Returns at once after `finish()`.
    package func wake() async {
        await channel.send([])
    }

    /// Ends the sequence; the engine's loop over it ends once it has taken the last batch.
    package func finish() {
        channel.finish()
    }

    package func makeAsyncIterator() -> AsyncChannel<[Discovery]>.AsyncIterator {
        channel.makeAsyncIterator()
    }
}
