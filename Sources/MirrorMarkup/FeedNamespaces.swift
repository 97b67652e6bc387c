/// Which of `FeedScanner`'s namespace lists an element's namespace belongs to, worked out once
/// per namespace a document uses rather than by hashing the namespace's URI at every test (a
/// feed reader tests each element of an item several times, so the hashing was paid many
/// times per element).
struct FeedNamespaces: OptionSet, Sendable {
    let rawValue: UInt16

    /// `FeedScanner.rssNamespaces` (no namespace among them).
    static let rss = FeedNamespaces(rawValue: 1 << 0)
    /// `FeedScanner.atomNamespaces` (no namespace among them).
    static let atom = FeedNamespaces(rawValue: 1 << 1)
    /// `FeedScanner.mediaNamespaces`.
    static let media = FeedNamespaces(rawValue: 1 << 2)
    /// `FeedScanner.dublinCore`.
    static let dublinCore = FeedNamespaces(rawValue: 1 << 3)
    /// `FeedScanner.sitemapNamespaces` (no namespace among them).
    static let sitemap = FeedNamespaces(rawValue: 1 << 4)
    /// `FeedScanner.imageSitemap`.
    static let imageSitemap = FeedNamespaces(rawValue: 1 << 5)
    /// `FeedScanner.contentModule`.
    static let contentModule = FeedNamespaces(rawValue: 1 << 6)
    /// `FeedScanner.modEnclosure`.
    static let modEnclosure = FeedNamespaces(rawValue: 1 << 7)
    /// `FeedScanner.xhtml`.
    static let xhtml = FeedNamespaces(rawValue: 1 << 8)

    init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// The lists `namespace` (nil: none) is in.
    init(of namespace: String?) {
        var lists: FeedNamespaces = []
        if FeedScanner.rssNamespaces.contains(namespace) { lists.insert(.rss) }
        if FeedScanner.atomNamespaces.contains(namespace) { lists.insert(.atom) }
        if FeedScanner.mediaNamespaces.contains(namespace) { lists.insert(.media) }
        if FeedScanner.dublinCore.contains(namespace) { lists.insert(.dublinCore) }
        if FeedScanner.sitemapNamespaces.contains(namespace) { lists.insert(.sitemap) }
        if namespace == FeedScanner.imageSitemap { lists.insert(.imageSitemap) }
        if namespace == FeedScanner.contentModule { lists.insert(.contentModule) }
        if namespace == FeedScanner.modEnclosure { lists.insert(.modEnclosure) }
        if namespace == FeedScanner.xhtml { lists.insert(.xhtml) }
        self = lists
    }

    /// The lists of an element without a namespace.
    static let none = FeedNamespaces(of: nil)
}
