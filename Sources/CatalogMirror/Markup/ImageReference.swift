/// One image reference as a document states it: the raw, unresolved URL plus the catalog text
/// that came with it. Plain Swift, so nothing outside `Markup/` sees libxml2.
public struct ImageReference: Sendable, Equatable {
    /// Where a title came from; a better source wins when one key is listed several times.
    public enum TitleSource: Int, Sendable, Comparable {
        case attribute = 1  // alt or title attribute, link text
        case caption = 2  // figcaption
        case catalog = 3  // feed item title, listing name

        public static func < (lhs: TitleSource, rhs: TitleSource) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The URL exactly as written (attribute value, srcset candidate, listing field).
    public var url: String
    /// The human title, if the document gave one.
    public var title: String?
    /// How trustworthy `title` is.
    public var titleSource: TitleSource
    /// Other catalog fields (caption, description, price, ...), by name.
    public var metadata: [String: String]
    /// A length the document declares (RSS `enclosure@length`, a listing's size), in bytes.
    public var declaredLength: Int64?
    /// A media type the document declares (`enclosure@type`, `link@type`).
    public var declaredType: String?

    public init(
        url: String, title: String? = nil, titleSource: TitleSource = .attribute, metadata: [String: String] = [:],
        declaredLength: Int64? = nil, declaredType: String? = nil
    ) {
        self.url = url
        self.title = title
        self.titleSource = titleSource
        self.metadata = metadata
        self.declaredLength = declaredLength
        self.declaredType = declaredType
    }
}

/// What one HTML page holds for the crawler.
public struct PageScan: Sendable, Equatable {
    /// A feed or listing advertised with `<link rel="alternate">`.
    public struct FeedLink: Sendable, Equatable {
        public var href: String
        public var type: String
    }

    /// The first `<base href>`, against which every other URL of the page resolves.
    public var baseHref: String?
    /// Every image reference, in document order (duplicates kept; the crawler merges them).
    public var images: [ImageReference] = []
    /// RSS, Atom and JSON feeds advertised by the page.
    public var feeds: [FeedLink] = []
    /// Pagination: `rel="next"` links first, then numbered page links, in document order.
    public var pageLinks: [String] = []
}
