import Synchronization

/// Answers `.duplicate` for a key this run has already decided, so a key listed many times
/// (the EmojiArt listing repeats every image three times) is validated and fetched once.
public struct DuplicateRule: ValidationHandler {
    public let next: (any ValidationHandler)?
    private let seen = SeenKeys()

    public init(next: (any ValidationHandler)?) { self.next = next }

    public func handle(_ candidate: Candidate) async -> Verdict {
        guard seen.insert(candidate.key) else { return .duplicate }
        return await passOn(candidate)
    }
}

/// The keys seen so far; a lock rather than an actor because the check is one set insert.
final class SeenKeys: Sendable {
    private let keys = Mutex<Set<CanonicalURL>>([])

    /// Inserts `key`; false when it was already there.
    func insert(_ key: CanonicalURL) -> Bool {
        keys.withLock { $0.insert(key).inserted }
    }
}
