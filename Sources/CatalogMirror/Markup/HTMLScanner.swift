import Foundation

/// Extracts image references, feed links and pagination from an HTML page with libxml2's
/// recovering HTML parser (network off).
public enum HTMLScanner {
    /// File extensions that make an `<a href>` an image key.
    static let imageExtensions: Set<String> = ["png", "jpg", "jpeg", "jpe", "gif", "webp", "avif", "svg"]
    /// Attributes that carry one image URL, in the order they are read (lazy-loading variants too).
    static let sourceAttributes = ["src", "data-src", "data-lazy-src", "data-original"]
    /// Attributes that carry a `srcset` candidate list.
    static let srcsetAttributes = ["srcset", "data-srcset", "data-lazy-srcset"]
    /// Feed media types read from `<link rel="alternate">`.
    static let feedTypes: Set<String> = [
        "application/rss+xml", "application/atom+xml", "application/json", "application/feed+json",
        "application/xml", "text/xml",
    ]

    /// Scans `bytes` (a page fetched from `url`). `encoding` is the HTTP header's charset, if any.
    public static func scan(_ bytes: [UInt8], url: String, encoding: String? = nil) throws(MarkupError) -> PageScan {
        let document = try MarkupDocument.html(bytes, url: url, encoding: encoding)
        var scan = PageScan()
        var numbered: [String] = []
        document.walk { node in
            switch node.name {
            case "script", "style", "template":
                return false
            case "base":
                if scan.baseHref == nil, let href = node.attribute("href")?.nonEmpty { scan.baseHref = href }
            case "link":
                scanLink(node, into: &scan)
            case "a", "area":
                scanAnchor(node, into: &scan, numbered: &numbered)
            case "img":
                scanImage(node, into: &scan)
            case "source":
                scanSource(node, into: &scan)
            case "meta":
                scanMeta(node, into: &scan)
            default:
                break
            }
            if let style = node.attribute("style"), style.range(of: "url(", options: .caseInsensitive) != nil {
                for url in backgroundImages(inStyle: style) { scan.images.append(ImageReference(url: url)) }
            }
            return true
        }
        scan.pageLinks += numbered
        return scan
    }

    private static func relTokens(_ node: MarkupNode) -> Set<String> {
        Set((node.attribute("rel") ?? "").lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init))
    }

    private static func scanLink(_ node: MarkupNode, into scan: inout PageScan) {
        guard let href = node.attribute("href")?.nonEmpty else { return }
        let rel = relTokens(node)
        if rel.contains("alternate"), let type = node.attribute("type")?.lowercased().nonEmpty,
            feedTypes.contains(type.split(separator: ";")[0].trimmingSpaces)
        {
            scan.feeds.append(.init(href: href, type: type))
        }
        if rel.contains("next") { scan.pageLinks.append(href) }
    }

    private static func scanAnchor(_ node: MarkupNode, into scan: inout PageScan, numbered: inout [String]) {
        guard let href = node.attribute("href")?.nonEmpty else { return }
        if hasImageExtension(href) {
            let innerAlt = node.elementChildren.first { $0.name == "img" }?.attribute("alt")?.nonEmpty
            let title = node.attribute("title")?.nonEmpty ?? innerAlt ?? node.text.nonEmpty
            scan.images.append(ImageReference(url: href, title: title, metadata: dataAttributes(of: node)))
            return
        }
        if relTokens(node).contains("next") {
            scan.pageLinks.append(href)
        } else {
            let text = node.text
            if (1...4).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) { numbered.append(href) }
        }
    }

    private static func scanImage(_ node: MarkupNode, into scan: inout PageScan) {
        var urls = sourceAttributes.compactMap { node.attribute($0)?.nonEmpty }
        urls += srcsetAttributes.flatMap { Srcset.candidates(node.attribute($0) ?? "") }
        guard !urls.isEmpty else { return }
        let template = describe(image: node)
        for url in urls {
            var reference = template
            reference.url = url
            scan.images.append(reference)
        }
    }

    private static func scanSource(_ node: MarkupNode, into scan: inout PageScan) {
        let urls = srcsetAttributes.flatMap { Srcset.candidates(node.attribute($0) ?? "") }
        guard !urls.isEmpty else { return }
        // A <picture>'s sources share the title of its <img>. libxml2 2.9 does not know <source>
        // is a void element and nests the following <img> inside it, so search the subtree.
        let sibling = node.parent?.firstDescendant(named: "img")
        var template = sibling.map(describe(image:)) ?? ImageReference(url: "")
        if let type = node.attribute("type")?.nonEmpty { template.declaredType = type }
        for url in urls {
            var reference = template
            reference.url = url
            scan.images.append(reference)
        }
    }

    /// Social-card images: `og:image` (and its `:url`/`:secure_url` forms) and `twitter:image`.
    static let metaImageProperties: Set<String> = [
        "og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src",
    ]

    private static func scanMeta(_ node: MarkupNode, into scan: inout PageScan) {
        let name = (node.attribute("property") ?? node.attribute("name") ?? "").lowercased().trimmingSpaces
        guard metaImageProperties.contains(name), let content = node.attribute("content")?.nonEmpty else { return }
        scan.images.append(ImageReference(url: content))
    }

    /// The `url(...)` values of `background` and `background-image` declarations in an inline
    /// style. A small scanner rather than a CSS parser: inline styles are one declaration list.
    static func backgroundImages(inStyle style: String) -> [String] {
        var urls: [String] = []
        for declaration in style.split(separator: ";") {
            guard let colon = declaration.firstIndex(of: ":") else { continue }
            let property = declaration[..<colon].trimmingSpaces.lowercased()
            guard property == "background" || property == "background-image" else { continue }
            var rest = declaration[declaration.index(after: colon)...]
            while let open = rest.range(of: "url(", options: .caseInsensitive) {
                let afterOpen = rest[open.upperBound...]
                guard let close = afterOpen.firstIndex(of: ")") else { break }
                var value = afterOpen[..<close].trimmingSpaces
                if let first = value.first, first == "\"" || first == "'", value.count >= 2, value.last == first {
                    value = String(value.dropFirst().dropLast())
                }
                if !value.isEmpty { urls.append(value) }
                rest = afterOpen[afterOpen.index(after: close)...]
            }
        }
        return urls
    }

    /// The catalog text of an `<img>`: figcaption (preferred) or alt/title, plus `data-*` fields
    /// of the image and of its enclosing `<figure>`.
    private static func describe(image node: MarkupNode) -> ImageReference {
        let alt = node.attribute("alt")?.nonEmpty ?? node.attribute("title")?.nonEmpty
        var metadata = dataAttributes(of: node)
        var figure = node.parent
        var depth = 0
        while let current = figure, current.name != "figure", depth < 4 {
            figure = current.parent
            depth += 1
        }
        var reference = ImageReference(url: "", title: alt, titleSource: .attribute)
        if let figure, figure.name == "figure" {
            metadata.merge(dataAttributes(of: figure)) { own, _ in own }
            if let caption = figure.elementChildren.first(where: { $0.name == "figcaption" })?.text.nonEmpty {
                reference.title = caption
                reference.titleSource = .caption
                if let alt, alt != caption { metadata["alt"] = alt }
            }
        }
        reference.metadata = metadata
        return reference
    }

    /// `data-price="12.50"` becomes `price: 12.50`; URL-carrying lazy attributes are skipped.
    private static func dataAttributes(of node: MarkupNode) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in node.attributes where name.hasPrefix("data-") && name.count > 5 {
            guard !sourceAttributes.contains(name), !srcsetAttributes.contains(name), let value = value.nonEmpty else {
                continue
            }
            result[String(name.dropFirst(5))] = value
        }
        return result
    }

    /// True when the URL's path (query and fragment aside) ends in an image file extension.
    static func hasImageExtension(_ url: String) -> Bool {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let dot = path.lastIndex(of: "."), !path[dot...].utf8.contains(UInt8(ascii: "/")) else { return false }
        return imageExtensions.contains(path[path.index(after: dot)...].lowercased())
    }
}

extension StringProtocol {
    /// The text without leading and trailing white space (Unicode `White_Space`). Works on
    /// scalars: trimming by `Character` reversed the string grapheme by grapheme, which showed
    /// up as 5 % of a re-sync's CPU time.
    var trimmingSpaces: String {
        let text = String(self)
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isWhiteSpace }),
            let last = scalars.lastIndex(where: { !$0.isWhiteSpace })
        else { return "" }
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return text }
        return String(Substring(scalars[first...last]))
    }
}
