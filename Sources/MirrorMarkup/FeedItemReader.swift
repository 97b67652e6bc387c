import Foundation
import MirrorCore

/// Turns one RSS item (0.9x, 1.0, 2.0) or Atom entry (0.3, 1.0) into photos, each with its
/// renditions, and the item's catalog text.
///
/// Which references are one photo: a `media:group` is one photo (its `media:content` in several
/// sizes, its `media:thumbnail`); each `media:content` outside a group is a photo of its own
/// (with the `media:thumbnail` inside it). An enclosure (RSS `enclosure`, `enc:enclosure`, Atom
/// `link rel="enclosure"`, Atom `content src`) joins the item's one media photo when the item
/// has exactly one of each, else stands alone. The item's own `media:thumbnail`s are the
/// thumbnail rendition of its one photo (paired in order when there are as many thumbnails as
/// photos). The images of its HTML (`description`, `content:encoded`, Atom `content` and
/// `summary`, html or xhtml, escaped or base64 in Atom 0.3) join the item's one photo when the
/// HTML shows one image; otherwise each is a photo, unless its URL is already one's rendition.
struct FeedItemReader {
    let item: FeedNode
    let isAtom: Bool
    /// Resolutions made for this item: an enclosure, a `media:content` and the item's HTML
    /// often name one URL, and the WHATWG parser is the largest cost of reading a feed.
    private let resolutions: Resolutions

    /// A reader of `item`; `resolutions` is where it keeps the keys it makes (default: a fresh
    /// list; the stream parser passes one list, emptied after each item, to spare an allocation).
    init(item: FeedNode, isAtom: Bool, resolutions: Resolutions = Resolutions()) {
        self.item = item
        self.isAtom = isAtom
        self.resolutions = resolutions
    }

    /// The keys made so far, with the base and the URL as written they were made from (an
    /// item has a few: a linear search beats hashing a joined string).
    final class Resolutions {
        struct Made {
            var base: CanonicalURL?
            var url: String
            var key: CanonicalURL
        }
        /// Safety (`@exclusivity(unchecked)`): one item is read at a time, on one thread, and
        /// each access is one statement (a read in the search, an append after it) that calls
        /// nothing reaching this list, so no two accesses overlap.
        @exclusivity(unchecked) fileprivate var made: [Made] = []

        /// Forgets every resolution, keeping the list's storage.
        func reset() { made.removeAll(keepingCapacity: true) }
    }

    /// `reference` resolved against `node`'s base, reusing a resolution this item already made.
    private func resolved(_ reference: ImageReference, in node: FeedNode) -> ImageReference {
        for index in resolutions.made.indices {
            let made = resolutions.made[index]
            guard made.url == reference.url, made.base?.string == node.base?.string else { continue }
            var reference = reference
            reference.resolve(to: made.key)
            return reference
        }
        let resolved = node.resolved(reference)
        if let key = resolved.resolvedKey {
            resolutions.made.append(Resolutions.Made(base: node.base, url: reference.url, key: key))
        }
        return resolved
    }

    /// The item's references, its photos numbered from `next`.
    func references(numberingFrom next: inout Int) -> [ImageReference] {
        var photos = mainPhotos()
        let content = contentPhotos()
        if photos.count == 1 && content.count == 1 {
            photos.add(content.photos[0], to: 0)
        } else {
            photos.add(content)
        }
        guard !photos.isEmpty else { return [] }
        // The item's title is its photo's when it holds one photo; an item of several (a post
        // with a gallery) is their album, and its title names none of them. A caption the
        // item's content gives its photo is the photo's own, and stays.
        let title = photos.count == 1 ? itemTitle : nil
        let metadata = itemMetadata
        photos.update { reference in
            if let title, reference.titleSource != .caption {
                if let own = reference.title, own != title, reference.titleSource == .catalog,
                    reference.metadata["caption"] == nil
                {
                    reference.metadata["caption"] = own
                }
                reference.title = title
                reference.titleSource = .catalog
            }
            // Most renditions have no metadata of their own: they share the item's dictionary.
            if reference.metadata.isEmpty {
                reference.metadata = metadata
            } else {
                reference.metadata.merge(metadata) { _, item in item }
            }
        }
        return photos.references(numberingFrom: &next)
    }

    // MARK: Photos

    private func mainPhotos() -> PhotoSet {
        var photos = PhotoSet()
        for node in item.children where node.lists.contains(.media) {
            if node.name == "group" {
                var renditions = node.children("content", in: .media).filter(isImageMedia).compactMap {
                    mediaContent($0, group: node)
                }
                renditions += node.children("thumbnail", in: .media).compactMap(thumbnail)
                renditions += node.children("content", in: .media).filter(isImageMedia).flatMap {
                    $0.children("thumbnail", in: .media).compactMap(thumbnail)
                }
                photos.add(renditions)
            } else if node.name == "content", isImageMedia(node), let content = mediaContent(node, group: nil) {
                if node.children.isEmpty {
                    photos.add(content)
                } else {
                    photos.add([content] + node.children("thumbnail", in: .media).compactMap(thumbnail))
                }
            }
        }
        let mediaPhotos = photos.count
        let enclosures = self.enclosures()
        for enclosure in enclosures {
            if photos.index(of: enclosure.url) == nil, mediaPhotos == 1, enclosures.count == 1 {
                photos.add(enclosure, to: 0)
            } else {
                photos.add(enclosure)
            }
        }
        let thumbnails = item.children("thumbnail", in: .media).compactMap(thumbnail)
        if !thumbnails.isEmpty {
            if photos.isEmpty {
                photos.add(thumbnails)
            } else if photos.count == thumbnails.count {
                for (index, thumbnail) in thumbnails.enumerated() { photos.add(thumbnail, to: index) }
            } else {
                photos.add(thumbnails, to: 0)
            }
        }
        return photos
    }

    private func enclosures() -> [ImageReference] {
        var result: [ImageReference] = []
        for node in item.children {
            var url: String?
            if isAtom {
                guard node.lists.contains(.atom) else { continue }
                if node.name == "link", node.attribute("rel")?.trimmingSpaces.lowercased() == "enclosure" {
                    url = node.attribute("href")
                } else if node.name == "content", let source = node.attribute("src") {
                    let type = node.attribute("type")
                    if type?.lowercased().hasPrefix("image/") == true || (type == nil && HTMLScanner.hasImageExtension(source)) {
                        url = source
                    }
                }
            } else if node.isElement("enclosure", in: .rss) {
                url = node.attribute("url")
            } else if node.isElement("enclosure", in: .modEnclosure) {
                url = node.attribute("resource") ?? node.attribute("url")
            }
            guard let raw = url?.nonEmptyURL else { continue }
            // Only an element that names a URL is asked for its type and length.
            let type = node.attribute("type")
            let length = node.attribute("length")
            if let type = type?.trimmingSpaces.lowercased(), !type.isEmpty {
                guard type.hasPrefix("image/") else { continue }
            } else if FeedScanner.hasMediaExtension(raw) {
                continue
            }
            result.append(
                resolved(
                    ImageReference(
                        url: raw, titleSource: .catalog,
                        declaredLength: length.flatMap { Int64($0.trimmingSpaces) }.flatMap { $0 > 0 ? $0 : nil },
                        declaredType: type?.nonEmpty, size: RenditionSize(role: .full)), in: node))
        }
        return result
    }

    private func mediaContent(_ node: FeedNode, group: FeedNode?) -> ImageReference? {
        guard let raw = node.attribute("url")?.nonEmptyURL else { return nil }
        var reference = resolved(
            ImageReference(
                url: raw, titleSource: .catalog,
                declaredLength: node.integer("fileSize").map(Int64.init), declaredType: node.attribute("type")?.nonEmpty,
                size: RenditionSize(role: .full, width: node.integer("width"), height: node.integer("height"))), in: node)
        let title = node.child("title", in: .media) ?? group?.child("title", in: .media)
        reference.title = title.flatMap(Self.mediaText)
        let description =
            node.child("description", in: .media)
            ?? group?.child("description", in: .media)
        if let text = description.flatMap({ FeedScanner.plainText($0.text) }) { reference.metadata["description"] = text }
        return reference
    }

    private func thumbnail(_ node: FeedNode) -> ImageReference? {
        guard let raw = node.attribute("url")?.nonEmptyURL else { return nil }
        return resolved(
            ImageReference(
                url: raw, titleSource: .catalog,
                size: RenditionSize(role: .thumbnail, width: node.integer("width"), height: node.integer("height"))), in: node)
    }

    private func isImageMedia(_ node: FeedNode) -> Bool {
        if let medium = node.attribute("medium")?.trimmingSpaces.lowercased(), !medium.isEmpty { return medium == "image" }
        if let type = node.attribute("type")?.trimmingSpaces.lowercased(), !type.isEmpty { return type.hasPrefix("image/") }
        return !FeedScanner.hasMediaExtension(node.attribute("url") ?? "")
    }

    /// The images of the item's HTML, grouped as the HTML reader groups them, each URL once.
    private func contentPhotos() -> PhotoSet {
        var photos = PhotoSet()
        for node in item.children {
            guard let html = htmlContent(of: node), FeedScanner.contains(UInt8(ascii: "<"), in: html),
                let scan = try? HTMLScanner.scan(Array(html.utf8), url: "", encoding: "UTF-8", isFragment: true)
            else { continue }
            var fragment = PhotoSet()
            var byNumber: [Int: Int] = [:]
            for reference in scan.images where !reference.url.isEmpty {
                let reference = resolved(reference, in: node)
                if let number = reference.photo, let index = byNumber[number] {
                    fragment.add(reference, to: index)
                } else if let index = fragment.add(reference), let number = reference.photo {
                    byNumber[number] = index
                }
            }
            photos.add(fragment)
        }
        return photos
    }

    /// The HTML an element of the item carries, if it is one that holds the item's HTML.
    private func htmlContent(of node: FeedNode) -> String? {
        if isAtom {
            guard node.lists.contains(.atom), node.name == "content" || node.name == "summary",
                node.attribute("src") == nil
            else { return nil }
            return Self.atomHTML(node)
        }
        if node.isElement("description", in: .rss)
            || node.isElement("encoded", in: .contentModule)
        {
            return node.text
        }
        if node.isElement("body", in: .xhtml) { return node.childrenAsHTML }
        return nil
    }

    /// The HTML of an Atom text construct: `type="html"` (escaped), `type="xhtml"` (inline),
    /// and Atom 0.3's MIME types with `mode="escaped"`, `"base64"` or `"xml"` (inline). Plain
    /// text has none.
    static func atomHTML(_ node: FeedNode) -> String? {
        let type = node.attribute("type")?.trimmingSpaces.lowercased() ?? ""
        let mode = node.attribute("mode")?.trimmingSpaces.lowercased()
        let isHTML = type == "html" || type == "xhtml" || type.contains("html")
        switch mode {
        case "base64":
            guard isHTML, let data = Data(base64Encoded: node.text, options: .ignoreUnknownCharacters) else { return nil }
            return String(decoding: data, as: UTF8.self)
        case "escaped":
            return isHTML ? node.text : nil
        default:
            if !node.children.isEmpty { return type == "text" || type == "text/plain" ? nil : node.childrenAsHTML }
            return type.contains("html") ? node.text : nil
        }
    }

    // MARK: Catalog text

    private var itemTitle: String? {
        let own =
            isAtom
            ? item.child("title", in: .atom).flatMap(Self.atomText)
            : (item.child("title", in: .rss) ?? item.child("title", in: .dublinCore))
                .flatMap { FeedScanner.verbatimText($0.fullText) }
        return own ?? item.child("title", in: .media).flatMap(Self.mediaText)
    }

    /// The text of an Atom text construct: tags stripped from html and xhtml; text (the
    /// default type) verbatim, whatever it looks like.
    private static func atomText(_ node: FeedNode) -> String? {
        if let html = atomHTML(node) { return FeedScanner.plainText(html, isHTML: true) }
        return FeedScanner.verbatimText(node.children.isEmpty ? node.text : node.allText)
    }

    /// The text of a Media RSS `title` or `description`: verbatim unless its `type` says html.
    private static func mediaText(_ node: FeedNode) -> String? {
        node.attribute("type")?.lowercased().trimmingSpaces == "html"
            ? FeedScanner.plainText(node.text, isHTML: true) : FeedScanner.verbatimText(node.text)
    }

    private var itemMetadata: [String: String] {
        var metadata: [String: String] = [:]
        let description: String?
        if isAtom {
            description =
                (item.child("summary", in: .atom) ?? item.child("content", in: .atom))
                .flatMap(Self.atomText)
        } else {
            description = item.child("description", in: .rss).flatMap {
                FeedScanner.plainText($0.fullText, isHTML: true)
            }
        }
        if let description = description
            ?? item.child("description", in: .media).flatMap({ FeedScanner.plainText($0.text, isHTML: true) }
            )
        {
            metadata["description"] = description
        }
        let author = item.child("author", in: .atom)?.child("name", in: .atom)
        let creator =
            item.child("creator", in: .dublinCore) ?? author
            ?? (isAtom ? nil : item.child("author", in: .rss))
            ?? item.child("credit", in: .media)
        if let text = creator.flatMap({ FeedScanner.verbatimText($0.text) }) { metadata["creator"] = text }
        let dates = isAtom ? Self.atomDates : Self.rssDates
        for (name, lists) in dates {
            if let date = item.child(name, in: lists)?.text.nonEmpty {
                metadata["date"] = date
                break
            }
        }
        return metadata
    }

    /// The elements that date an entry, in order of preference.
    private static let atomDates: [(String, FeedNamespaces)] = [
        ("published", .atom), ("updated", .atom), ("issued", .atom), ("modified", .atom), ("created", .atom),
        ("date", .dublinCore),
    ]
    private static let rssDates: [(String, FeedNamespaces)] = [("pubDate", .rss), ("date", .dublinCore)]
}
