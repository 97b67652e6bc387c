/// Extracts image references from RSS 2.0 / RSS 1.0 (with Media RSS) and Atom feeds, parsed
/// with libxml2's XML parser: no network, no DTD loading, no entity substitution.
public enum FeedScanner {
    static let mediaRSS = "http://search.yahoo.com/mrss/"
    static let atom = "http://www.w3.org/2005/Atom"
    static let contentModule = "http://purl.org/rss/1.0/modules/content/"
    static let sitemap = "http://www.sitemaps.org/schemas/sitemap/0.9"
    static let imageSitemap = "http://www.google.com/schemas/sitemap-image/1.1"

    /// The kinds of XML feed understood.
    public enum Kind: String, Sendable { case rss, atom, sitemap }

    /// The images a feed lists, in document order.
    public struct Scan: Sendable, Equatable {
        public var kind: Kind
        public var images: [ImageReference]
        /// For a sitemap index: the sitemaps it lists.
        public var sitemaps: [String] = []
    }

    /// Parses `bytes` (fetched from `url`). Throws when the document is not XML, declares
    /// entities, or is XML but not RSS, Atom or a sitemap (an HTML error page, say).
    public static func scan(_ bytes: [UInt8], url: String) throws(MarkupError) -> Scan {
        let parser = FeedStreamParser(url: url)
        let fed = bytes.withUnsafeBytes { raw in Result { () throws(MarkupError) in try parser.feed(raw) } }
        var images = try fed.get()
        images += try parser.finish()
        guard let kind = parser.kind else { throw MarkupError(message: "no root element") }
        return Scan(kind: kind, images: images, sitemaps: parser.sitemaps)
    }

    static func rssItem(_ item: FeedNode) -> [ImageReference] {
        let children = item.elementChildren
        func child(_ name: String, _ namespace: String? = nil) -> FeedNode? {
            children.first { $0.name == name && $0.namespaceURI == namespace }
        }
        var title = child("title")?.text.nonEmpty
        var metadata: [String: String] = [:]
        if let description = child("description")?.text.nonEmpty { metadata["description"] = plainText(description) }
        if title == nil { title = child("title", mediaRSS)?.text.nonEmpty }
        var references: [ImageReference] = []
        for node in children where node.name == "enclosure" && node.namespaceURI == nil {
            guard let url = node.attribute("url")?.nonEmpty else { continue }
            references.append(
                ImageReference(
                    url: url, title: title, titleSource: .catalog, metadata: metadata,
                    declaredLength: node.attribute("length").flatMap { Int64($0.trimmingSpaces) }.flatMap { $0 > 0 ? $0 : nil },
                    declaredType: node.attribute("type")?.nonEmpty))
        }
        // media:content stands in the item or in media:group, whose contents are one image in
        // several sizes: take the largest. Thumbnails only when nothing else is listed.
        var media: [FeedNode] = children.filter { $0.namespaceURI == mediaRSS && $0.name == "content" && isImageMedia($0) }
        for group in children where group.namespaceURI == mediaRSS && group.name == "group" {
            let contents = group.elementChildren.filter {
                $0.namespaceURI == mediaRSS && $0.name == "content" && isImageMedia($0)
            }
            if let largest = contents.max(by: { mediaSize($0) < mediaSize($1) }) { media.append(largest) }
        }
        for node in media {
            guard let url = node.attribute("url")?.nonEmpty else { continue }
            let mediaTitle = node.elementChildren.first { $0.name == "title" && $0.namespaceURI == mediaRSS }?.text.nonEmpty
            references.append(
                ImageReference(
                    url: url, title: title ?? mediaTitle, titleSource: .catalog, metadata: metadata,
                    declaredLength: node.attribute("fileSize").flatMap { Int64($0.trimmingSpaces) }.flatMap { $0 > 0 ? $0 : nil },
                    declaredType: node.attribute("type")?.nonEmpty))
        }
        if references.isEmpty {
            // No enclosure and no media: the images a reader sees are in the item's HTML.
            let html = [child("encoded", contentModule), child("description")].compactMap { $0 }
            for node in html {
                for url in embeddedImages(node.text) {
                    references.append(ImageReference(url: url, title: title, titleSource: .catalog, metadata: metadata))
                }
            }
        }
        if references.isEmpty {
            let thumbnails = (children + children.filter { $0.name == "group" }.flatMap(\.elementChildren)).filter {
                $0.namespaceURI == mediaRSS && $0.name == "thumbnail"
            }
            for node in thumbnails {
                guard let url = node.attribute("url")?.nonEmpty else { continue }
                references.append(ImageReference(url: url, title: title, titleSource: .catalog, metadata: metadata))
            }
        }
        return references
    }

    static func atomEntry(_ entry: FeedNode) -> [ImageReference] {
        let children = entry.elementChildren.filter { $0.namespaceURI == atom }
        let title = children.first { $0.name == "title" }?.text.nonEmpty
        var metadata: [String: String] = [:]
        if let summary = children.first(where: { $0.name == "summary" })?.text.nonEmpty {
            metadata["description"] = plainText(summary)
        }
        var references: [ImageReference] = children.compactMap { node in
            guard node.name == "link", node.attribute("rel")?.lowercased() == "enclosure",
                let href = node.attribute("href")?.nonEmpty
            else { return nil }
            return ImageReference(
                url: href, title: title, titleSource: .catalog, metadata: metadata,
                declaredLength: node.attribute("length").flatMap { Int64($0.trimmingSpaces) }.flatMap { $0 > 0 ? $0 : nil },
                declaredType: node.attribute("type")?.nonEmpty)
        }
        // <content type="html"> carries escaped HTML: the images in it are the entry's images.
        for content in children where content.name == "content" && content.attribute("type")?.lowercased() == "html" {
            for url in embeddedImages(content.text) {
                references.append(ImageReference(url: url, title: title, titleSource: .catalog, metadata: metadata))
            }
        }
        return references
    }

    /// One `<url>` of an image sitemap: each `<image:image>` with its `<image:loc>`, titled by
    /// `<image:title>` (or `<image:caption>`).
    static func sitemapURL(_ url: FeedNode) -> [ImageReference] {
        url.elementChildren.filter { $0.name == "image" && $0.namespaceURI == imageSitemap }.compactMap { image in
            let fields = image.elementChildren.filter { $0.namespaceURI == imageSitemap }
            guard let loc = fields.first(where: { $0.name == "loc" })?.text.nonEmpty else { return nil }
            let title = fields.first { $0.name == "title" }?.text.nonEmpty
            var metadata: [String: String] = [:]
            if let caption = fields.first(where: { $0.name == "caption" })?.text.nonEmpty { metadata["caption"] = caption }
            return ImageReference(
                url: loc, title: title ?? metadata["caption"], titleSource: title == nil ? .caption : .catalog, metadata: metadata
            )
        }
    }

    private static func isImageMedia(_ node: FeedNode) -> Bool {
        if let medium = node.attribute("medium")?.lowercased() { return medium == "image" }
        if let type = node.attribute("type")?.lowercased() { return type.hasPrefix("image/") }
        return true
    }

    /// Pixels when width and height are given, else the declared file size, else 0.
    private static func mediaSize(_ node: FeedNode) -> Int64 {
        if let width = node.attribute("width").flatMap({ Int64($0.trimmingSpaces) }),
            let height = node.attribute("height").flatMap({ Int64($0.trimmingSpaces) })
        {
            return width.multipliedReportingOverflow(by: height).overflow ? .max : width * height
        }
        return node.attribute("fileSize").flatMap { Int64($0.trimmingSpaces) } ?? 0
    }

    /// The image URLs of an HTML fragment (the page scanner's rules, on the fragment).
    static func embeddedImages(_ html: String) -> [String] {
        guard html.utf8.contains(UInt8(ascii: "<")),
            let scan = try? HTMLScanner.scan(Array(html.utf8), url: "", encoding: "UTF-8")
        else {
            return []
        }
        return scan.images.map(\.url)
    }

    /// Feed descriptions are often escaped HTML; keep only their text, at most 1,000 characters.
    static func plainText(_ text: String) -> String {
        var result = text
        if text.utf8.contains(UInt8(ascii: "<")),
            let document = try? MarkupDocument.html(Array(text.utf8), url: "", encoding: "UTF-8")
        {
            result = document.root?.text ?? text
        }
        return String(result.collapsingWhitespace.prefix(1000))
    }
}
