/// Settings of the validator chain.
public struct ValidationConfiguration: Sendable {
    /// The rules that may be ordered, each one handler. The duplicate rule is not among them:
    /// it is always asked first (`ValidationChain.make`).
    package enum Rule: String, Sendable, CaseIterable {
        case scheme, scope, filters, declaredType, declaredSize, robots
    }

    /// The order the handlers after the duplicate rule are asked in, for a library user who
    /// wants another (`catalog-mirror` keeps the default). Default: scheme, scope, filters,
    /// declaredType, declaredSize, robots (cheap checks first; robots may fetch).
    package var order: [Rule] = [.scheme, .scope, .filters, .declaredType, .declaredSize, .robots]
    /// Hosts in scope besides the source's (`--allow-host`). Default: none.
    package var allowedHosts: [String] = []
    /// `--include` globs. Default: none (everything included).
    package var include: [String] = []
    /// `--exclude` globs. Default: none.
    package var exclude: [String] = []
    /// `--max-size` in bytes. Default: nil (no limit).
    package var maxSize: Int64?
    /// Whether robots.txt is honoured. Default: true.
    package var honourRobots: Bool = true

    /// The defaults: every rule in the default order, no filters, no size limit, robots honoured.
    public init() {}
}

/// Builds the chain of validators from configuration; the client keeps only the first handler.
package enum ValidationChain {
    /// Folds the configured rules from the back into one handler. Rules without work to do
    /// (no filters, no size limit, robots off) are left out.
    ///
    /// The duplicate rule is always the first handler: it is the one place a run decides that a
    /// key was seen before, so every key gets exactly one verdict, and the engine keeps one
    /// catalog entry per key on the strength of it.
    package static func make(
        _ configuration: ValidationConfiguration, sourceHost: String, robots: RobotsCache?
    ) -> any ValidationHandler {
        var next: (any ValidationHandler)? = nil
        for rule in configuration.order.reversed() {
            switch rule {
            case .scheme:
                next = SchemeRule(next: next)
            case .scope:
                next = ScopeRule(hosts: [sourceHost] + configuration.allowedHosts, next: next)
            case .filters:
                if !configuration.include.isEmpty || !configuration.exclude.isEmpty {
                    next = FilterRule(include: configuration.include, exclude: configuration.exclude, next: next)
                }
            case .declaredType:
                next = DeclaredTypeRule(next: next)
            case .declaredSize:
                if let maxSize = configuration.maxSize { next = DeclaredSizeRule(maxSize: maxSize, next: next) }
            case .robots:
                if configuration.honourRobots, let robots { next = RobotsRule(robots: robots, next: next) }
            }
        }
        return DuplicateRule(next: next)
    }
}
