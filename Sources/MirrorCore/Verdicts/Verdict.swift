/// The decision the chain reaches for a candidate.
package enum Verdict: Sendable, Equatable {
    /// Fetch it.
    case accepted
    /// Do not fetch it; it is listed in `rejected` with this reason.
    case rejected(RejectionReason)
    /// Already decided earlier in this run; the crawler's sighting only adds metadata.
    case duplicate
}
