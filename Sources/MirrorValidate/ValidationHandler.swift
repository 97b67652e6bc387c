import MirrorCore

/// What a validator is asked about: one image key and what its listing declared.
package struct Candidate: Sendable, Equatable {
    /// The canonical key.
    package var key: CanonicalURL
    /// A length the listing declared, in bytes.
    package var declaredLength: Int64?
    /// A media type the listing declared.
    package var declaredType: String?

    /// A candidate for `key`, with what its listing declared (each default: nil, nothing declared).
    package init(key: CanonicalURL, declaredLength: Int64? = nil, declaredType: String? = nil) {
        self.key = key
        self.declaredLength = declaredLength
        self.declaredType = declaredType
    }
}

/// A handler in the chain of responsibility of validators. Each handler decides one rule:
/// it rejects, or hands the candidate to `next`. Handlers decide quickly and hold no reference
/// to the previous handler; the client holds only the first.
package protocol ValidationHandler: Sendable {
    /// The handler asked when this one has no objection; nil at the end of the chain.
    var next: (any ValidationHandler)? { get }
    /// Decides, or passes on with `passOn(_:)`.
    func handle(_ candidate: Candidate) async -> Verdict
}

extension ValidationHandler {
    /// Hands the candidate to `next`. Reaching the end of the chain means no rule objected:
    /// the candidate is accepted (the visible, documented default).
    package func passOn(_ candidate: Candidate) async -> Verdict {
        guard let next else { return .accepted }
        return await next.handle(candidate)
    }
}
