import MirrorCore

/// Rejects keys that the host's robots.txt disallows for our user agent as `robots`; the
/// key is then never requested. Last in the default order because it may fetch robots.txt.
struct RobotsRule: ValidationHandler {
    let next: (any ValidationHandler)?
    private let robots: RobotsCache

    init(robots: RobotsCache, next: (any ValidationHandler)?) {
        self.robots = robots
        self.next = next
    }

    func handle(_ candidate: Candidate) async -> Verdict {
        guard await robots.allows(candidate.key) else {
            // An origin that does not answer refuses nothing: its keys are asked for and fail
            // at once (the run gave the origin up), keeping what the last run published.
            if robots.fetchedPolicy(for: candidate.key)?.isUnreachable == true { return await passOn(candidate) }
            return .rejected(.robots)
        }
        return await passOn(candidate)
    }
}
