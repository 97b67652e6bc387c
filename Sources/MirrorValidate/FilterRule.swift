import MirrorCore

/// Applies `--include` and `--exclude` globs to the key's percent-decoded path (query excluded):
/// with any include, a key must match one; then any matching exclude rejects it (`excluded`).
struct FilterRule: ValidationHandler {
    let next: (any ValidationHandler)?
    private let include: [Glob]
    private let exclude: [Glob]

    init(include: [String], exclude: [String], next: (any ValidationHandler)?) {
        self.include = include.map(Glob.init)
        self.exclude = exclude.map(Glob.init)
        self.next = next
    }

    func handle(_ candidate: Candidate) async -> Verdict {
        let path = candidate.key.decodedPath
        if !include.isEmpty && !include.contains(where: { $0.matches(path) }) { return .rejected(.excluded) }
        if exclude.contains(where: { $0.matches(path) }) { return .rejected(.excluded) }
        return await passOn(candidate)
    }
}
