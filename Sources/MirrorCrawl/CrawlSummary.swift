import MirrorCore
import MirrorMarkup

/// An image key found by the crawler, with the catalog text of this sighting and where it was
/// seen.
package struct Discovery: Sendable {
    package var key: CanonicalURL
    package var reference: ImageReference
    /// The document it was found in, by its number in crawl order (`CrawlSummary.documents`).
    package var document: Int

    init(key: CanonicalURL, reference: ImageReference, document: Int = 0) {
        self.key = key
        self.reference = reference
        self.document = document
    }
}

/// What the crawl read besides images: the documents, the links from photos to their pages,
/// and what it saw but did not use.
package struct CrawlSummary: Sendable {
    /// A page, feed, listing or sitemap that was read, numbered in crawl order.
    package struct Document: Sendable {
        package enum Kind: String, Sendable { case page, feed, listing, sitemap }
        package var url: CanonicalURL
        package var kind: Kind
        /// The page's `<title>` (or the feed's title).
        package var title: String?
        /// The page's first `<h1>`.
        package var heading: String?
    }

    /// A photo on a page whose link leads to another page (a thumbnail and its per-photo page).
    package struct PhotoLink: Sendable {
        package var document: Int
        package var photo: Int
        package var page: CanonicalURL
    }

    /// Documents read, by number (pages first, in crawl order, then feeds and sitemaps).
    package var documents: [Int: Document] = [:]
    /// Page URL (the key it was requested by, and the URL it finally came from) → its number.
    package var pageNumbers: [CanonicalURL: Int] = [:]
    package var photoLinks: [PhotoLink] = []
    package var pages = 0
    package var feeds = 0
    /// Pages, feeds and sitemaps after the first that could not be fetched or read (each makes
    /// the exit status 1).
    package var pageFailures: [String] = []
    /// Links to pages, feeds or sitemaps that answered 4xx: the source's broken links, each a
    /// warning, none a failure.
    var deadLinks = 0
    /// Lines worth a warning that do not make the run fail (a limit that cut the crawl, a feed
    /// read in recovery mode).
    package var warnings: [String] = []

    package init(
        documents: [Int: Document] = [:], pageNumbers: [CanonicalURL: Int] = [:], photoLinks: [PhotoLink] = [],
        pageFailures: [String] = [], warnings: [String] = []
    ) {
        self.documents = documents
        self.pageNumbers = pageNumbers
        self.photoLinks = photoLinks
        self.pageFailures = pageFailures
        self.warnings = warnings
    }
    /// References whose URL could not be read: all of a feed's, and those a page shows as
    /// images (a page's guess that is no URL fails nothing; `-v` names it).
    package var unusableReferences = 0
    /// Links not followed, by why.
    package var refusals = Frontier.Refusals()
    /// Links whose response was not an HTML page (dropped at their headers).
    package var notPages = 0
    /// Pages refused by robots.txt.
    package var robotsRefused = 0
}
