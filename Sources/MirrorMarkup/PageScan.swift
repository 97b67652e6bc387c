/// What one HTML page holds for the crawler.
package struct PageScan: Sendable, Equatable {
    /// A feed or listing advertised with `<link rel="alternate">`.
    package struct FeedLink: Sendable, Equatable {
        /// The `href`, as written (resolved later against the page's base).
        package var href: String
        /// The advertised media type, such as `application/rss+xml`.
        package var type: String
    }

    /// A page the page links to (`a`, `area`, `link rel=next|prev`, `iframe`, `frame`,
    /// `meta http-equiv=refresh`), as written.
    package struct Link: Sendable, Equatable {
        /// The target, as written (resolved later against the page's base).
        package var href: String
        /// Set when the link is the one around a photo (a thumbnail linking to its per-photo
        /// page): that photo's number among `images`.
        package var photo: Int?

        /// A link to `href`, around the photo numbered `photo` if any (default: nil).
        package init(href: String, photo: Int? = nil) {
            self.href = href
            self.photo = photo
        }
    }

    /// The first `<base href>`, against which every other URL of the page resolves.
    package var baseHref: String?
    /// Every image reference, in document order (duplicates kept; the crawler merges them).
    /// Every reference of the markup has a `photo` number; references with the same number are
    /// renditions of one photo and share its title and metadata. A script's lone URL has none
    /// (`addPhotos`).
    package var images: [ImageReference] = []
    /// RSS, Atom and JSON feeds advertised by the page.
    package var feeds: [FeedLink] = []
    /// Links to other pages, in document order (image files and fragments-only links excluded).
    package var links: [Link] = []
    /// The page's `<title>`, white space collapsed.
    package var title: String?
    /// The text of the page's first `<h1>`, white space collapsed.
    package var heading: String?
    /// The text of inline `<script>` elements (JavaScript or JSON), in document order.
    package var scripts: [String] = []
    /// The `src` of external `<script>` elements, as written, in document order.
    package var scriptSources: [String] = []
    /// JSON documents the inline scripts name (`'data.json'`), as written: the crawler fetches
    /// them and adds their photos to the page's (`ScriptReader`).
    package var dataFiles: [String] = []
    /// True when an inline script was too long or too costly to read whole (the reading stops
    /// at a budget instead of hanging); the crawler warns.
    package var scriptsIncomplete = false
}
