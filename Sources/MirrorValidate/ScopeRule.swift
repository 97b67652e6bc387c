import MirrorCore

/// Rejects keys whose host is neither the source's nor an `--allow-host` as `out-of-scope`.
/// Hosts compare case-insensitively and ports are ignored; `localhost` and `127.0.0.1` differ.
package struct ScopeRule: ValidationHandler {
    package let next: (any ValidationHandler)?
    /// Lower-cased host names in scope.
    let hosts: Set<String>

    package init(hosts: some Sequence<String>, next: (any ValidationHandler)?) {
        self.hosts = Set(hosts.map { $0.lowercased() })
        self.next = next
    }

    /// True when `url`'s host is in scope; the fetcher asks this before following a redirect.
    package func contains(_ url: CanonicalURL) -> Bool { hosts.contains(url.host) }

    package func handle(_ candidate: Candidate) async -> Verdict {
        guard contains(candidate.key) else { return .rejected(.outOfScope) }
        return await passOn(candidate)
    }
}
