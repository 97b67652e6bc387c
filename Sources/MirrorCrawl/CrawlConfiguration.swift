import MirrorCore

/// Settings of the crawl.
public struct CrawlConfiguration: Sendable {
    /// Which pages the crawl follows (`--crawl-scope`).
    public enum Scope: String, Sendable, CaseIterable, Codable {
        /// Pages under the start page's directory, as `wget --no-parent` (the default).
        case directory
        /// Every page of the source's host.
        case host
    }

    /// Which renditions of a photo are mirrored (`--variants`).
    public enum Variants: String, Sendable, CaseIterable, Codable {
        /// Every rendition the source shows (the default).
        case all
        /// Only the largest rendition of each photo.
        case largest
    }

    /// `--feed`: read this feed or listing instead of discovering feeds. Default: nil.
    package var feed: CanonicalURL?
    /// `--max-pages`: HTML pages fetched at most, the start page included. Default: 2000.
    public var maxPages: Int = 2000
    /// `--max-depth`: links followed from the start page at most. Default: 20.
    public var maxDepth: Int = 20
    /// `--crawl-scope`. Default: `.directory`.
    public var scope: Scope = .directory
    /// `--variants`. Default: `.all`.
    public var variants: Variants = .all
    /// Pages fetched at once. Default: 8.
    package var pageConcurrency: Int = 8

    /// Settings with the given values; `pageConcurrency` keeps its default (8).
    /// - Parameters:
    ///   - feed: The feed or listing to read instead of discovering feeds. Default: nil.
    ///   - maxPages: HTML pages fetched at most, the start page included. Default: 2000.
    ///   - maxDepth: Links followed from the start page at most. Default: 20.
    ///   - scope: Which pages the crawl follows. Default: ``Scope/directory``.
    ///   - variants: Which renditions of a photo are mirrored. Default: ``Variants/all``.
    public init(
        feed: CanonicalURL? = nil, maxPages: Int = 2000, maxDepth: Int = 20, scope: Scope = .directory,
        variants: Variants = .all
    ) {
        self.feed = feed
        self.maxPages = maxPages
        self.maxDepth = maxDepth
        self.scope = scope
        self.variants = variants
    }
}
