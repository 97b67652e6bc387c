/// Extracts image references from RSS 2.0 / RSS 1.0 (with Media RSS) and Atom feeds, parsed
/// with libxml2's XML parser: no network, no DTD loading, no entity substitution.
public enum FeedScanner {
    static let mediaRSS = "http://search.yahoo.com/mrss/"
    static let atom = "http://www.w3.org/2005/Atom"

    /// The kinds of XML feed understood.
    public enum Kind: String, Sendable { case rss, atom }

    /// The images a feed lists, in document order.
    public struct Scan: Sendable, Equatable {
        public var kind: Kind
        public var images: [ImageReference]
    }

    /// Parses `bytes` (fetched from `url`). Throws when the document is not XML, declares
    /// entities, or is XML but neither RSS nor Atom (an HTML error page, say).
    public static func scan(_ bytes: [UInt8], url: String) throws(MarkupError) -> Scan {
        let document = try MarkupDocument.xml(bytes, url: url)
        guard let root = document.root else { throw MarkupError(message: "no root element") }
        switch root.name.lowercased() {
        case "rss", "rdf":
            return Scan(kind: .rss, images: items(in: document, named: "item", namespace: nil, read: rssItem))
        case "feed" where root.namespaceURI == atom:
            return Scan(kind: .atom, images: items(in: document, named: "entry", namespace: atom, read: atomEntry))
        default:
            throw MarkupError(message: "root element <\(root.name)> is neither RSS nor Atom")
        }
    }

    private static func items(
        in document: MarkupDocument, named name: String, namespace: String?, read: (MarkupNode) -> [ImageReference]
    ) -> [ImageReference] {
        var result: [ImageReference] = []
        document.walk { node in
            guard node.name == name, namespace == nil || node.namespaceURI == namespace else { return true }
            result += read(node)
            return false
        }
        return result
    }

    private static func rssItem(_ item: MarkupNode) -> [ImageReference] {
        let children = item.elementChildren
        func child(_ name: String, _ namespace: String? = nil) -> MarkupNode? {
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
        // media:content may stand directly in the item or inside media:group.
        var mediaNodes: [MarkupNode] = []
        for node in children where node.namespaceURI == mediaRSS {
            if node.name == "content" { mediaNodes.append(node) }
            if node.name == "group" {
                mediaNodes += node.elementChildren.filter { $0.name == "content" && $0.namespaceURI == mediaRSS }
            }
        }
        for node in mediaNodes {
            guard let url = node.attribute("url")?.nonEmpty else { continue }
            if let medium = node.attribute("medium")?.lowercased(), medium != "image" { continue }
            let mediaTitle = node.elementChildren.first { $0.name == "title" && $0.namespaceURI == mediaRSS }?.text.nonEmpty
            references.append(
                ImageReference(
                    url: url, title: title ?? mediaTitle, titleSource: .catalog, metadata: metadata,
                    declaredLength: node.attribute("fileSize").flatMap { Int64($0.trimmingSpaces) }.flatMap { $0 > 0 ? $0 : nil },
                    declaredType: node.attribute("type")?.nonEmpty))
        }
        return references
    }

    private static func atomEntry(_ entry: MarkupNode) -> [ImageReference] {
        let children = entry.elementChildren.filter { $0.namespaceURI == atom }
        let title = children.first { $0.name == "title" }?.text.nonEmpty
        var metadata: [String: String] = [:]
        if let summary = children.first(where: { $0.name == "summary" })?.text.nonEmpty {
            metadata["description"] = plainText(summary)
        }
        return children.compactMap { node in
            guard node.name == "link", node.attribute("rel")?.lowercased() == "enclosure",
                let href = node.attribute("href")?.nonEmpty
            else { return nil }
            return ImageReference(
                url: href, title: title, titleSource: .catalog, metadata: metadata,
                declaredLength: node.attribute("length").flatMap { Int64($0.trimmingSpaces) }.flatMap { $0 > 0 ? $0 : nil },
                declaredType: node.attribute("type")?.nonEmpty)
        }
    }

    /// Feed descriptions are often escaped HTML; keep only their text, at most 1,000 characters.
    static func plainText(_ text: String) -> String {
        var result = text
        if text.contains("<"), let document = try? MarkupDocument.html(Array(text.utf8), url: "", encoding: "UTF-8") {
            result = document.root?.text ?? text
        }
        return String(result.collapsingWhitespace.prefix(1000))
    }
}
