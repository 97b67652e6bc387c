import MirrorCore

/// Rejects keys whose listing declares more bytes than `--max-size` as `too-large`, before any
/// request. Undeclared sizes pass; the fetcher enforces the limit on `Content-Length` and while
/// streaming.
struct DeclaredSizeRule: ValidationHandler {
    let next: (any ValidationHandler)?
    /// The limit in bytes.
    let maxSize: Int64

    init(maxSize: Int64, next: (any ValidationHandler)?) {
        self.maxSize = maxSize
        self.next = next
    }

    func handle(_ candidate: Candidate) async -> Verdict {
        if let declared = candidate.declaredLength, declared > maxSize { return .rejected(.tooLarge) }
        return await passOn(candidate)
    }
}
