/// Rejects keys the mirror cannot fetch (anything but http and https) as `out-of-scope`.
public struct SchemeRule: ValidationHandler {
    public let next: (any ValidationHandler)?

    public init(next: (any ValidationHandler)?) { self.next = next }

    public func handle(_ candidate: Candidate) async -> Verdict {
        guard candidate.key.isWeb else { return .rejected(.outOfScope) }
        return await passOn(candidate)
    }
}
