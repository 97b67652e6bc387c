import Foundation
import MirrorCore
import MirrorFetch
import MirrorValidate

extension RobotsTxt {
    /// robots.txt of an origin, fetched through `session` as a run reads it: 2xx is parsed
    /// (its first 512 KiB, for the user agent's first word); 4xx (and redirects out of scope)
    /// allow all; 5xx disallow all (RFC 9309 section 2.3.1); an origin that does not answer is
    /// given up on for the run (`OriginHealth.giveUp`) and is `unreachable`.
    package static func fetch(_ url: CanonicalURL, session: HTTPSession, gate: @escaping RequestGate) async -> RobotsTxt {
        // The session gates a redirect's target only: the file's own URL is asked here, so a
        // robots.txt out of scope is never requested, whoever asks for it.
        if await gate(url) != nil { return .allowAll }
        do {
            let document = try await session.document(url, accept: "text/plain", gate: gate)
            let token = session.configuration.userAgent.split(separator: "/").first.map(String.init) ?? "catalog-mirror"
            return RobotsTxt(parsing: String(decoding: document.bytes.prefix(512 * 1024), as: UTF8.self), userAgent: token)
        } catch {
            let raw = error.reason.rawValue
            if raw.hasPrefix("http-4") || error.reason.isPolicy || raw == "too-many-redirects" || raw == "redirect-loop" {
                return .allowAll
            }
            // No answer at all (refused, timed out, no such host): the origin is given up on
            // for the run, so its keys fail at once rather than one by one.
            if error.reason == .networkError || error.reason == .timeout {
                session.health.giveUp(url)
                return .unreachable
            }
            return .disallowAll
        }
    }
}
