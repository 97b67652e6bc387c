import MirrorCore

/// One image reference as a document states it: the raw, unresolved URL plus the catalog text
/// that came with it. Plain Swift, so nothing outside `Markup/` sees libxml2.
package struct ImageReference: Sendable, Equatable {
    /// Where a title came from; a better source wins when one key is listed several times.
    package enum TitleSource: Int, Sendable, Comparable {
        case attribute = 1  // alt or title attribute, link text
        case caption = 2  // figcaption
        case catalog = 3  // feed item title, listing name

        package static func < (lhs: TitleSource, rhs: TitleSource) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The URL exactly as written (attribute value, srcset candidate, listing field), or as a
    /// reader resolved it. Changing it forgets `resolvedKey`.
    package var url: String {
        didSet { cachedKey = ResolvedKey() }
    }
    /// The human title, if the document gave one.
    package var title: String?
    /// How trustworthy `title` is.
    package var titleSource: TitleSource
    /// Other catalog fields (caption, description, price, ...), by name.
    package var metadata: [String: String]
    /// A length the document declares (RSS `enclosure@length`, a listing's size), in bytes.
    package var declaredLength: Int64?
    /// A media type the document declares (`enclosure@type`, `link@type`).
    package var declaredType: String?
    /// Which photo of its document this reference shows. References of one document with the
    /// same number are renditions of one photo (the candidates of a `srcset`, an image and the
    /// image its link points to, a feed item's thumbnail and content...). Numbers are assigned
    /// by the reader and mean nothing across documents. Default: nil, a photo of its own.
    package var photo: Int?
    /// How large this rendition is, as far as the document tells; ranks the renditions of one
    /// photo. Default: a display-size rendition of unknown dimensions.
    package var size: RenditionSize
    /// Set when the page marks the image as decoration (an `<img>` whose class says spinner,
    /// icon, logo, emoji, arrow...): such a key is rejected as `decoration` unless another
    /// sighting shows it as a photo.
    package var isDecoration = false
    /// Set on the photos of a JSON data file a page loads (fgallery's `data.json`, a linked
    /// listing), which count as found on that page: they are the catalog, never decoration,
    /// however many pages load the file.
    package var isFromDataFile = false
    /// Set when the document only suggests that the URL is an image: a link's target, an
    /// image-URL `data-*` value, `og:image`, a style's `url(...)`, a string in a script or in an
    /// API's JSON. Such a key is decided by what its server answers (an image is a key, an HTML
    /// page is read as a page, anything else is rejected `unconfirmed`), never by its name, and
    /// its failure fails nothing. Clear (the default) for what a document shows as an image:
    /// `img`, `srcset`, `<picture>`, a feed's enclosures and media, a listing's image fields.
    package var isGuess = false
    /// The key a reader already made of `url` (a feed reader resolves each URL against its
    /// `xml:base`), so the crawler does not parse the same URL a second time. Not part of the
    /// reference's value: two references that differ only here are equal.
    package var resolvedKey: CanonicalURL? { cachedKey.key(of: url) }
    private var cachedKey = ResolvedKey()

    /// Sets `url` to `key`'s text and remembers `key`.
    mutating func resolve(to key: CanonicalURL) {
        url = key.string
        cachedKey = ResolvedKey(key: key)
    }

    /// A cache that never makes two references differ. It keeps the key's offsets, not its text:
    /// while it is set, `url` is that text (setting `url` empties it), and a reference is copied
    /// several times on its way out of a reader, each copy one string fewer to retain.
    private struct ResolvedKey: Equatable {
        private var offsets:
            (scheme: Int32, authority: Int32, hostStart: Int32, hostEnd: Int32, path: Int32, query: Int32, port: Int32)?

        init() {}

        init(key: CanonicalURL) {
            offsets = (
                key.schemeEnd, key.authorityStart, key.hostStart, key.hostEnd, key.pathStart, key.queryStart, key.portValue
            )
        }

        /// The key whose text is `url`, when one was remembered.
        func key(of url: String) -> CanonicalURL? {
            guard let offsets else { return nil }
            return CanonicalURL(
                canonical: url, schemeEnd: Int(offsets.scheme), authorityStart: Int(offsets.authority),
                hostStart: Int(offsets.hostStart), hostEnd: Int(offsets.hostEnd), pathStart: Int(offsets.path),
                queryStart: Int(offsets.query), port: Int(offsets.port))
        }

        static func == (_: ResolvedKey, _: ResolvedKey) -> Bool { true }
    }

    /// A reference to `url` as written; every other field defaults to "the document did not say"
    /// (no title, no metadata, no declared length or type, no photo, a display-size rendition).
    package init(
        url: String, title: String? = nil, titleSource: TitleSource = .attribute, metadata: [String: String] = [:],
        declaredLength: Int64? = nil, declaredType: String? = nil, photo: Int? = nil, size: RenditionSize = .init()
    ) {
        self.url = url
        self.title = title
        self.titleSource = titleSource
        self.metadata = metadata
        self.declaredLength = declaredLength
        self.declaredType = declaredType
        self.photo = photo
        self.size = size
    }
}

/// What a document says about the size of one rendition of a photo.
///
/// Ordered from smallest to largest: by role first (a thumbnail is smaller than the image shown
/// on a page, which is smaller than the original a link or a `data-full` attribute points to),
/// then by pixel width (a `srcset` `w` descriptor, `width` attributes, `media:content@width`),
/// then by pixel density (`2x`). Unknown dimensions compare equal, so the caller breaks ties
/// (by downloaded size, then by key).
package struct RenditionSize: Sendable, Equatable, Comparable {
    /// The part a rendition plays, as its markup shows it.
    package enum Role: Int, Sendable, Comparable {
        /// A small preview: `media:thumbnail`, a JSON `thumb` field, `data-thumb`, an image that
        /// links to a larger one.
        case thumbnail = 0
        /// The image a page shows (`img@src`, `srcset` candidates).
        case display = 1
        /// A large rendition: the target of the link around an image, `data-large`, an
        /// enclosure, `media:content`.
        case full = 2
        /// The original, as the source names it: `data-big`, `data-full`, `data-orig-file`,
        /// `data-original`, a JSON `original` field. Ranks above a link's target, which is often
        /// only a display size (sigal links the 800-pixel image and names the original in
        /// `data-big`).
        case original = 3

        package static func < (lhs: Role, rhs: Role) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The part the rendition plays. Default: `.display`.
    package var role: Role
    /// Width in pixels, when the document gives it.
    package var width: Int?
    /// Height in pixels, when the document gives it.
    package var height: Int?
    /// Pixel density (`srcset` `x` descriptor), when the document gives it.
    package var density: Double?

    /// A size with what the document gives; unknown dimensions stay nil.
    package init(role: Role = .display, width: Int? = nil, height: Int? = nil, density: Double? = nil) {
        self.role = role
        self.width = width
        self.height = height
        self.density = density
    }

    package static func < (lhs: RenditionSize, rhs: RenditionSize) -> Bool {
        if lhs.role != rhs.role { return lhs.role < rhs.role }
        if let left = lhs.width, let right = rhs.width, left != right { return left < right }
        if let left = lhs.density, let right = rhs.density, left != right { return left < right }
        return false
    }
}
