import MirrorCore
import Synchronization

/// Answers `.duplicate` for a key this run has already decided, so a key listed many times
/// (the EmojiArt listing repeats every image three times) is validated and fetched once.
package struct DuplicateRule: ValidationHandler {
    /// The rest of the chain, asked about a key seen for the first time.
    package let next: (any ValidationHandler)?
    private let seen = SeenKeys()

    /// A rule that has seen no key yet, in front of `next`.
    package init(next: (any ValidationHandler)?) { self.next = next }

    /// `.duplicate` when the key was seen before in this run; otherwise records it and asks `next`.
    package func handle(_ candidate: Candidate) async -> Verdict {
        guard seen.insert(candidate.key) else { return .duplicate }
        return await passOn(candidate)
    }
}

/// The keys seen so far: the run's one record of "this key was seen" (the engine's catalog, the
/// loader's entries and the store's row cache follow it or mean something else; see
/// ARCHITECTURE.md). A lock rather than an actor because the check is one set insert.
/// Kept by their text: a set of `CanonicalURL` (48 bytes each) made a larger part of a run's peak.
final class SeenKeys: Sendable {
    private let keys = Mutex<Set<String>>([])

    /// Inserts `key`; false when it was already there.
    func insert(_ key: CanonicalURL) -> Bool {
        keys.withLock { $0.insert(key.string).inserted }
    }
}
