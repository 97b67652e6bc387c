/// Extracts image references from RSS 0.9x/1.0/2.0 and Atom 0.3/1.0 feeds (with Media RSS)
/// and image sitemaps, parsed with libxml2's XML parser: no network, no DTD loading, no entity
/// substitution. See `FeedItemReader` for which references are renditions of one photo.
package enum FeedScanner {
    static let atom = "http://www.w3.org/2005/Atom"
    static let atom03 = "http://purl.org/atom/ns#"
    static let contentModule = "http://purl.org/rss/1.0/modules/content/"
    static let modEnclosure = "http://purl.oclc.org/net/rss_2.0/enc#"
    static let xhtml = "http://www.w3.org/1999/xhtml"
    static let sitemap = "http://www.sitemaps.org/schemas/sitemap/0.9"
    static let imageSitemap = "http://www.google.com/schemas/sitemap-image/1.1"

    /// RSS's own elements: no namespace (0.9x, 2.0), RSS 1.0, RSS 0.90, and the namespace some
    /// RSS 2.0 feeds declare.
    static let rssNamespaces: Set<String?> = [
        nil, "http://purl.org/rss/1.0/", "http://my.netscape.com/rdf/simple/0.9/", "http://backend.userland.com/rss2",
    ]
    /// Atom 1.0 and 0.3 (and no namespace, for feeds that forgot it).
    static let atomNamespaces: Set<String?> = [atom, atom03, nil]
    /// Media RSS, with and without the trailing slash (both are in the wild).
    static let mediaNamespaces: Set<String?> = ["http://search.yahoo.com/mrss/", "http://search.yahoo.com/mrss"]
    static let dublinCore: Set<String?> = ["http://purl.org/dc/elements/1.1/", "http://purl.org/dc/terms/"]
    static let sitemapNamespaces: Set<String?> = [sitemap, "http://www.google.com/schemas/sitemap/0.84", nil]

    /// Namespaces of prefixes used without a declaration, as feed readers assume them.
    static let wellKnownPrefixes: [String: String] = [
        "media": "http://search.yahoo.com/mrss/", "dc": "http://purl.org/dc/elements/1.1/", "content": contentModule,
        "atom": atom, "enc": modEnclosure, "image": imageSitemap,
    ]

    /// Extensions of audio, video and documents: an enclosure or `media:content` with no type
    /// that ends in one is not an image.
    static let mediaExtensions: Set<String> = [
        "mp3", "m4a", "aac", "ogg", "oga", "opus", "wav", "flac", "mp4", "m4v", "mov", "webm", "ogv", "avi", "mkv", "wmv",
        "flv", "swf", "pdf", "zip", "torrent", "epub",
    ]

    /// The kinds of XML feed understood.
    package enum Kind: String, Sendable { case rss, atom, sitemap }

    /// The images a feed lists, in document order.
    package struct Scan: Sendable, Equatable {
        /// RSS (any version), Atom (any version) or a sitemap.
        package var kind: Kind
        /// Every reference, photos numbered across the document.
        package var images: [ImageReference]
        /// For a sitemap index: the sitemaps it lists.
        package var sitemaps: [String] = []
        /// What was odd but did not stop the reading (entity declarations, recovered
        /// ill-formedness), one line each, naming the feed. Default: none.
        package var warnings: [String] = []
    }

    /// Parses `bytes` (fetched from `url`; `charset` is the HTTP header's `charset` parameter,
    /// default nil). Throws when the document is empty, not XML, or XML but not RSS, Atom or a
    /// sitemap (an HTML error page, say); entity declarations and recoverable errors are warnings.
    package static func scan(_ bytes: [UInt8], url: String, charset: String? = nil) throws(MarkupError) -> Scan {
        let parser = FeedStreamParser(url: url, charset: charset)
        let fed = bytes.withUnsafeBytes { raw in Result { () throws(MarkupError) in try parser.feed(raw) } }
        var images = try fed.get()
        images += try parser.finish()
        guard let kind = parser.kind else { throw MarkupError(.notADocument, "no root element") }
        return Scan(kind: kind, images: images, sitemaps: parser.sitemaps, warnings: parser.warnings)
    }

    /// One `<url>` of an image sitemap: each `<image:image>` with its `<image:loc>` is a photo,
    /// titled by `<image:title>` (or `<image:caption>`).
    static func sitemapURL(_ url: FeedNode, numberingFrom next: inout Int) -> [ImageReference] {
        var photos = PhotoSet()
        for image in url.children("image", in: .imageSitemap) {
            guard let loc = image.child("loc", in: .imageSitemap)?.text.nonEmptyURL else { continue }
            let title = image.child("title", in: .imageSitemap)?.text.nonEmpty
            var metadata: [String: String] = [:]
            if let caption = image.child("caption", in: .imageSitemap)?.text.nonEmpty { metadata["caption"] = caption }
            photos.add([
                ImageReference(
                    url: image.resolve(loc), title: title ?? metadata["caption"], titleSource: title == nil ? .caption : .catalog,
                    metadata: metadata)
            ])
        }
        return photos.references(numberingFrom: &next)
    }

    /// True when the URL's path ends in an audio, video or document extension.
    static func hasMediaExtension(_ url: String) -> Bool {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let dot = path.lastIndex(of: "."), !path[dot...].utf8.contains(UInt8(ascii: "/")) else { return false }
        return mediaExtensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// The catalog's own text as the document gives it (a listing's or a feed's title, a
    /// creator's name): kept verbatim, whatever it looks like (a path, markup, entities),
    /// white space collapsed, at most 1,000 characters; nil when nothing is left. The site
    /// escapes it where it shows it. Only a field the format declares HTML (an RSS
    /// `description`, Atom `type="html"`, JSON Feed's `content_html`) is read as HTML
    /// (`plainText`).
    static func verbatimText(_ text: String) -> String? {
        let collapsed = text.collapsingWhitespace
        if collapsed.utf8.count <= 1000 { return collapsed.isEmpty ? nil : collapsed }
        return String(collapsed.prefix(1000))
    }

    /// Feed text is often escaped HTML: keep only its text (tags stripped, entities decoded),
    /// white space collapsed, at most 1,000 characters; nil when nothing is left. `isHTML`
    /// says the text is HTML even without markup in it (an RSS description).
    static func plainText(_ text: String, isHTML: Bool = false) -> String? {
        var result = text
        let hasMarkup = contains(UInt8(ascii: "<"), in: text)
        if hasMarkup || (contains(UInt8(ascii: "&"), in: text) && (isHTML || hasEntity(text))),
            let document = try? MarkupDocument.html(Array(("<body>" + text).utf8), url: "", encoding: "UTF-8")
        {
            result = document.root?.readableText ?? text
        }
        let collapsed = result.collapsingWhitespace
        // At most 1,000 characters: a text of at most 1,000 bytes has no more (and is not copied).
        if collapsed.utf8.count <= 1000 { return collapsed.isEmpty ? nil : collapsed }
        return String(collapsed.prefix(1000))
    }

    /// True when the UTF-8 of `text` holds `byte`, searched in the string's own buffer: going
    /// through `String.UTF8View`'s indices cost far more per byte, on texts every item of a
    /// feed has.
    static func contains(_ byte: UInt8, in text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(byte) } ?? text.utf8.contains(byte)
    }

    /// True when `text` holds something shaped like an HTML character reference (`&eacute;`, `&#233;`).
    private static func hasEntity(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var index = 0
            while let amp = bytes[index...].firstIndex(of: UInt8(ascii: "&")) {
                var end = amp + 1
                while end < bytes.count, end - amp <= 32,
                    bytes[end] == UInt8(ascii: "#")
                        || (bytes[end] | 0x20 >= UInt8(ascii: "a") && bytes[end] | 0x20 <= UInt8(ascii: "z"))
                        || (bytes[end] >= UInt8(ascii: "0") && bytes[end] <= UInt8(ascii: "9"))
                {
                    end += 1
                }
                if end > amp + 1, end < bytes.count, bytes[end] == UInt8(ascii: ";") { return true }
                index = end
            }
            return false
        }
    }
}
