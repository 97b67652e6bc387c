import MirrorCore

/// The rules of one robots.txt for one user agent, per RFC 9309: the group naming our product
/// token (case-insensitively) applies, else the `*` group; the longest matching rule wins, and
/// `allow` wins a tie; `*` matches any run of characters and a final `$` anchors the end.
package struct RobotsTxt: Sendable, Equatable {
    struct Rule: Sendable, Equatable {
        var allow: Bool
        var pattern: String
    }

    private let rules: [Rule]
    /// `Sitemap:` URLs, as written (they apply to every user agent).
    package let sitemaps: [String]
    /// `Crawl-delay` of the group that applies to us: the pause between two requests to the host.
    package let crawlDelay: Duration?
    /// True when robots.txt got no answer at all (refused, timed out, no such host): nothing is
    /// allowed, and the origin's keys fail (`network-error`) rather than being refused.
    package var isUnreachable = false

    /// A policy that allows everything (no robots.txt, or a 4xx answer).
    package static let allowAll = RobotsTxt(rules: [], sitemaps: [], crawlDelay: nil)
    /// A policy that allows nothing (robots.txt unreachable or 5xx, RFC 9309 section 2.3.1.4).
    package static let disallowAll = RobotsTxt(rules: [Rule(allow: false, pattern: "/")], sitemaps: [], crawlDelay: nil)
    /// A policy for an origin that did not answer: allows nothing, and says why (`isUnreachable`).
    package static let unreachable: RobotsTxt = {
        var policy = RobotsTxt.disallowAll
        policy.isUnreachable = true
        return policy
    }()

    private init(rules: [Rule], sitemaps: [String], crawlDelay: Duration?) {
        self.rules = rules
        self.sitemaps = sitemaps
        self.crawlDelay = crawlDelay
    }

    /// Parses `text` for the product token `userAgent` (e.g. `catalog-mirror`).
    package init(parsing text: String, userAgent: String) {
        let token = userAgent.lowercased()
        var specific: [Rule] = []
        var general: [Rule] = []
        var sitemaps: [String] = []
        var specificDelay: Duration?
        var generalDelay: Duration?
        var foundSpecific = false
        var groupAgents: [String] = []
        var inRules = false
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let line = rawLine.prefix { $0 != "#" }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].trimmingSpaces.lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces
            switch field {
            case "user-agent":
                if inRules {
                    groupAgents = []
                    inRules = false
                }
                groupAgents.append(value.lowercased())
            case "allow", "disallow":
                inRules = true
                // An empty Disallow allows everything: no rule.
                guard !value.isEmpty else { continue }
                let rule = Rule(allow: field == "allow", pattern: PercentEncoding.normalize(value, allowed: .query))
                if groupAgents.contains(token) {
                    specific.append(rule)
                    foundSpecific = true
                }
                if groupAgents.contains("*") { general.append(rule) }
            case "sitemap":
                if !value.isEmpty { sitemaps.append(String(value)) }
                continue
            case "crawl-delay":
                inRules = true
                // Capped: a robots.txt asking for hours between requests would stall the run.
                guard let seconds = Double(value), seconds.isFinite, seconds > 0 else { continue }
                let delay = Duration.milliseconds(Int64(min(seconds, 60) * 1000))
                if groupAgents.contains(token) { specificDelay = delay }
                if groupAgents.contains("*") { generalDelay = delay }
            default:
                continue
            }
            if field == "user-agent", groupAgents.contains(token) { foundSpecific = true }
        }
        rules = foundSpecific ? specific : general
        crawlDelay = foundSpecific ? specificDelay : generalDelay
        self.sitemaps = sitemaps
    }

    /// Whether `url` may be fetched.
    package func allows(_ url: CanonicalURL) -> Bool {
        let target = url.pathAndQuery
        var best: (length: Int, allow: Bool)? = nil
        for rule in rules where Self.matches(rule.pattern, target) {
            let length = rule.pattern.count
            if best == nil || length > best!.length || (length == best!.length && rule.allow) {
                best = (length, rule.allow)
            }
        }
        return best?.allow ?? true
    }

    static func matches(_ pattern: String, _ path: String) -> Bool {
        var body = Substring(pattern)
        let anchored = body.hasSuffix("$")
        if anchored { body = body.dropLast() }
        let parts = body.split(separator: "*", omittingEmptySubsequences: false)
        guard let first = parts.first, path.hasPrefix(first) else { return false }
        var rest = Substring(path).dropFirst(first.count)
        if parts.count == 1 { return !anchored || rest.isEmpty }
        for part in parts.dropFirst().dropLast() {
            guard let range = rest.range(of: part) else { return false }
            rest = rest[range.upperBound...]
        }
        let last = parts[parts.count - 1]
        return anchored ? rest.hasSuffix(last) : (last.isEmpty || rest.contains(last))
    }
}
