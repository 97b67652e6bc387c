import MirrorCore

/// Rejects keys the mirror cannot fetch (anything but http and https) as `out-of-scope`.
struct SchemeRule: ValidationHandler {
    let next: (any ValidationHandler)?

    init(next: (any ValidationHandler)?) { self.next = next }

    func handle(_ candidate: Candidate) async -> Verdict {
        guard candidate.key.isWeb else { return .rejected(.outOfScope) }
        return await passOn(candidate)
    }
}
