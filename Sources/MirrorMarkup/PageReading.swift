import Foundation
import MirrorCore

/// One pass over a page's elements, in document order (`HTMLScanner.scan`): turns each element
/// into image references, links, feeds and text, and at the end ties the renditions of each
/// photo together.
///
/// A photo is an `<img>` (its `src`, lazy source, `srcset` candidates and image-URL `data-*`
/// attributes), with the image its enclosing link points to and that link's image-URL `data-*`
/// attributes, and the `<source>`s of its `<picture>`. An image link without an image inside,
/// `og:image`, `link rel=image_src` and inline background images are photos of their own.
package struct PageReading {
    private var scan = PageScan()
    /// The scan's images while the page is read (`scan.images` is filled in `finish`).
    private var images = References()
    /// The photo number of each `<img>` already numbered (the link around an image is visited
    /// before the image, and both need the number).
    /// Elements are numbered in document order (`PageElement.serial`); the table holds only the
    /// images of the subtree being read (`endOfSubtree`), since no lookup reaches beyond it.
    private var photoOfImage: [Int: Int] = [:]
    private var photoCount = 0
    /// The best title seen for each photo, and where it came from.
    private var titles: [Int: (text: String, source: ImageReference.TitleSource)] = [:]
    /// Catalog fields of each photo (first value wins).
    private var metadata: [Int: [String: String]] = [:]
    /// `src` values of lazy images (the image that shows until a script swaps in the real
    /// one), by photo: a placeholder shared by several photos is dropped in `finish`.
    private var lazyPlaceholders: [(photo: Int, url: String)] = []
    private var scriptBytes = 0
    /// The photo of the last `<img>` read: a caption element after it titles it.
    private var lastImagePhoto: Int?
    /// The serial numbers of that image and of its nearest ancestors (`captionReach` of them):
    /// a caption titles it only from within one of them (its own cell, block or line) or right
    /// after it (`captionGap`), never from across the page (a comment form's heading after a
    /// post's last photo).
    private var lastImageSerial = 0
    /// That image's `src`: a caption that only restates its file's name is no caption.
    private var lastImageSource: String?
    private var lastImageAncestors: [Int] = []
    /// How many of an image's ancestors its caption may share (the gallery cell of a
    /// `<li><div><a><img>` holds its `<div class="gallerytext">`).
    static let captionReach = 3
    /// How many elements may come between an image and a caption after it (llgal's slide puts
    /// `<p class="caption">` right after the table its image is in).
    static let captionGap = 3
    /// Photos a caption element already titled (the first caption after an image is its own).
    private var captioned: Set<Int> = []
    /// The text nearest the last `<img>` read, while it is being looked for (`text(_:in:)`).
    private var nearText: NearText?
    /// The text nearest each image (its own cell's, or the first block's after it), by photo:
    /// its caption when the page shows that one photo (`finish`).
    private var nearTexts: [Int: String] = [:]
    /// The photos of the page's `<img>` elements that are not its furniture or decoration.
    private var shownPhotos: Set<Int> = []
    /// How many elements may open between an image and the element holding its nearest text
    /// (jigl's slide puts the caption in the cell of a table after the image's table, eight
    /// elements on).
    static let nearTextGap = 12
    /// The longest text that is a caption rather than prose (a paragraph after a photo).
    static let nearTextLength = 200
    /// Elements whose text is a caption when it is nearest an image: a cell, a paragraph, a
    /// heading, a block or a line of text (never a list, a form or a navigation's item).
    private static let nearTextHosts: Set<String> = [
        "td", "th", "p", "div", "center", "font", "span", "small", "em", "i", "b", "strong", "h2", "h3", "h4", "h5",
        "h6", "dd", "figcaption", "body",
    ]

    /// The text after one image, gathered from the element that holds its first words (and
    /// what that element holds) until the page moves past it.
    private struct NearText {
        var photo: Int
        /// The image's `src`, for what only restates its file's name.
        var source: String?
        var imageSerial: Int
        /// The image's own cell or block and the one around it: text in them after the image is
        /// the image's (`<td><img><br>Water drop</td>`).
        var ownBlocks: [Int]
        /// The element whose text is gathered, once found.
        var host: Int?
        var bytes: [UInt8] = []
        /// A photo shown as an element's CSS background (a full-width "hero"): only a heading
        /// right after that element, in the same block, is its caption, and it is one on a
        /// page of many such photos too.
        var backgroundParent: Int?
    }
    /// Inline script text kept per page at most; the rest is ignored. The inline data of a
    /// 100,000-photo gallery is about 10 MB; reading a script is linear and bounded
    /// (`JavaScriptTokenizer.maxTokens`), so the limit is the page's memory, not its time.
    static let maxScriptBytes = 32 << 20
    /// The inline script text this reading keeps (`maxScriptBytes`; smaller in tests).
    var scriptBudget = PageReading.maxScriptBytes
    /// Whether the markup is a page, which may be a photo's own page (its one photo's caption
    /// is the text nearest it), rather than HTML inside a feed item, whose text says what the
    /// item says. Default: true.
    var readsOwnPage = true

    /// Whether reading `element` looks past its own attributes (`visit` asks for its text, its
    /// children or its descendants, or an `<img>` below it for its `<figure>`'s caption, or a
    /// `<source>` in it for its sibling `<img>`): such an element is read once it has closed,
    /// with what it holds (`PageStream`); any other as soon as it opens.
    static func readsSubtree(_ element: PageElement) -> Bool {
        switch element.name {
        case "script", "title", "h1", "a", "area", "figure", "picture", "video", "audio": return true
        default: return element.attribute("class").map(isCaptionClass) ?? false
        }
    }

    /// Says that the element or subtree just read is done: the photo numbers of its images are
    /// forgotten (what links and sources look up is always within the subtree being read).
    mutating func endOfSubtree() {
        if !photoOfImage.isEmpty { photoOfImage.removeAll(keepingCapacity: true) }
    }

    /// Whether the reader wants the text of the elements it reads as they open (`text(_:in:)`):
    /// only while it looks for the text nearest an image.
    var wantsText: Bool { nearText != nil }

    /// Takes text written directly in `element` (an element read as it opens, outside every
    /// element read whole), in document order: the first words after an image, in its own cell
    /// or in an element right after it, are the text nearest it.
    mutating func text(_ bytes: UnsafeBufferPointer<UInt8>, in element: PageElement) {
        guard var near = nearText else { return }
        if let host = near.host {
            guard Self.isWithin(element, serial: host) else {
                endNearText()
                return
            }
            near.bytes.append(contentsOf: bytes)
            nearText = near
            return
        }
        // Blank text (spaces, a no-break space a layout cell holds) says nothing yet.
        guard !String(decoding: bytes, as: UTF8.self).unicodeScalars.allSatisfy(\.properties.isWhitespace) else { return }
        if let block = near.backgroundParent {
            // The heading right after the photo's element in its block, or inside the element
            // (a hero's title over its background, as prosopopee writes it).
            let isNext = element.parent?.serial == block || Self.isWithin(element, serial: near.imageSerial)
            guard Self.headings.contains(element.name), isNext,
                element.serial - near.imageSerial <= Self.backgroundHeadingGap
            else {
                endNearText()
                return
            }
        }
        let isAfter = element.serial > near.imageSerial && element.serial - near.imageSerial <= Self.nearTextGap
        guard isAfter || near.ownBlocks.contains(element.serial), Self.nearTextHosts.contains(element.name),
            element.name == "body" ? near.ownBlocks.contains(element.serial) : true, !Self.isFurniture(element),
            !["header", "footer", "nav", "aside"].contains(element.name)
        else {
            // The first words after the image are elsewhere (a list, a form, a navigation,
            // a block far around it): the image has no nearest text.
            endNearText()
            return
        }
        near.host = element.serial
        near.bytes.append(contentsOf: bytes)
        nearText = near
    }

    /// Whether `element` is the element numbered `serial` or inside it.
    private static func isWithin(_ element: PageElement, serial: Int) -> Bool {
        var current: PageElement? = element
        while let node = current, node.serial >= serial {
            if node.serial == serial { return true }
            current = node.parent
        }
        return false
    }

    /// Ends the search for the text nearest the last image: what was gathered, as a label
    /// without its "(1/25)" position, is that image's nearest text.
    private mutating func endNearText() {
        guard let near = nearText else { return }
        nearText = nil
        guard !near.bytes.isEmpty, nearTexts[near.photo] == nil else { return }
        let text = Self.removingPositions(String(decoding: near.bytes, as: UTF8.self)).collapsingWhitespace
        guard text.count <= Self.nearTextLength, let label = Self.label(text),
            !(near.source.map { Self.restatesFileName(label, of: $0) } ?? false)
        else { return }
        if near.backgroundParent != nil {
            offer(label, .caption, photo: near.photo)
        } else {
            nearTexts[near.photo] = label
        }
    }

    /// Elements that are headings.
    private static let headings: Set<String> = ["h1", "h2", "h3", "h4", "h5", "h6"]
    /// How many elements may open between a background photo's element and its heading (the
    /// two wrappers of a title over the background).
    static let backgroundHeadingGap = 4

    /// Looks for the heading right after `node`, whose CSS background is `photo`: its caption.
    private mutating func watchForHeading(after node: PageElement, photo: Int, source: String) {
        guard readsOwnPage, !Self.isFurniture(node), let parent = node.parent?.serial else { return }
        endNearText()
        nearText = NearText(
            photo: photo, source: source, imageSerial: node.serial, ownBlocks: [], backgroundParent: parent)
    }

    /// Reads one element; returns false to skip its subtree.
    mutating func visit(_ node: PageElement) -> Bool {
        if let near = nearText {
            if let host = near.host {
                if !Self.isWithin(node, serial: host) { endNearText() }
            } else if node.serial - near.imageSerial > Self.nearTextGap {
                endNearText()
            }
        }
        switch node.name {
        case "script":
            readScript(node)
            return false
        case "style", "template":
            return false
        case "title":
            if scan.title == nil { scan.title = node.text.collapsingWhitespace.nonEmpty }
            return false
        case "h1":
            if scan.heading == nil { scan.heading = node.text.collapsingWhitespace.nonEmpty }
            // A hero's title (read whole, as every `h1` is): its background photo's caption.
            if var near = nearText, let block = near.backgroundParent, near.host == nil,
                node.parent?.serial == block || Self.isWithin(node, serial: near.imageSerial),
                node.serial - near.imageSerial <= Self.backgroundHeadingGap
            {
                near.bytes = Array(node.text.utf8)
                near.host = node.serial
                nearText = near
                endNearText()
            }
        case "base":
            if scan.baseHref == nil, let href = node.attribute("href")?.nonEmptyURL { scan.baseHref = href }
        case "link":
            readLink(node)
        case "meta":
            readMeta(node)
        case "a", "area":
            readAnchor(node)
        case "img":
            readImage(node)
        case "source":
            readSource(node)
        case "iframe", "frame":
            if let src = node.attribute("src")?.nonEmptyURL { scan.links.append(.init(href: src)) }
        default:
            break
        }
        if let classes = node.attribute("class"), Self.isCaptionClass(classes) { readCaption(node) }
        for (name, value) in node.attributes where value.includesASCIICaseInsensitive("url(") {
            if name == "style" {
                // One element's backgrounds are one photo's proposed renditions (prosopopee's
                // album cover: `url(a-x1366.jpg), url(a-x900.jpg)`); their pixels decide.
                let urls = HTMLScanner.backgroundImages(inStyle: value)
                if let first = urls.first {
                    let photo = newPhoto()
                    for url in urls { add(url, photo: photo, guess: true) }
                    watchForHeading(after: node, photo: photo, source: first)
                }
            } else {
                // Lazy loaders keep the background in an attribute of their own until the image
                // scrolls into view (`data-bg="url(photo.jpg)"`, `data-style`): read as `style`.
                let urls = HTMLScanner.cssURLs(inValue: value)
                if let first = urls.first {
                    let photo = newPhoto()
                    for url in urls { add(url, photo: photo, guess: true) }
                    watchForHeading(after: node, photo: photo, source: first)
                }
            }
        }
        return true
    }

    /// The scan, with every reference of a photo carrying the photo's best title and metadata.
    /// Takes the scan out of the reader, which is left empty.
    mutating func finish() -> PageScan {
        endNearText()
        // A page that shows one photo and labels it nowhere else is that photo's own page as a
        // generator writes it: the text nearest the photo is its caption (jigl's table cell,
        // igal2's paragraph under the slide). On a page of several, the text after each is as
        // likely the next one's, or the page's; where the page labels its photo (a figcaption,
        // an alt) or names it in its heading (a WordPress attachment page), the paragraph after
        // it is the post's prose or the photo's description.
        if shownPhotos.count == 1, scan.heading == nil, let photo = shownPhotos.first, let text = nearTexts[photo],
            titles[photo] == nil
        {
            offer(text, .caption, photo: photo)
        }
        var placeholderUses: [String: Set<Int>] = [:]
        for (photo, url) in lazyPlaceholders { placeholderUses[url, default: []].insert(photo) }
        let shared = Set(placeholderUses.filter { $0.value.count > 1 }.keys)
        let placeholders = Set(lazyPlaceholders.filter { shared.contains($0.url) }.map { "\($0.photo) \($0.url)" })
        // In place: the references are most of a page's memory once its tree is gone, and a
        // second array of them (a `compactMap` while the reader still held the first) added
        // to its peak.
        var result = scan
        scan = PageScan()
        result.images = images.joined()
        if !placeholders.isEmpty {
            result.images.removeAll { reference in
                reference.photo.map { placeholders.contains("\($0) \(reference.url)") } ?? false
            }
        }
        for index in result.images.indices {
            guard let photo = result.images[index].photo else { continue }
            if let title = titles[photo] {
                result.images[index].title = title.text
                result.images[index].titleSource = title.source
            }
            if let fields = metadata[photo] { result.images[index].metadata = fields }
        }
        return result
    }

    // MARK: - Elements

    private mutating func readScript(_ node: PageElement) {
        if let src = node.attribute("src") {
            if let source = src.nonEmptyURL { scan.scriptSources.append(source) }
            return
        }
        let type = (node.attribute("type") ?? "").lowercased().trimmingSpaces
        guard type.isEmpty || type.includes("javascript") || type.includes("json") || type == "module" else { return }
        let text = node.rawText
        guard !text.isEmpty, scriptBytes + text.utf8.count <= scriptBudget else {
            if !text.isEmpty { scan.scriptsIncomplete = true }
            return
        }
        scriptBytes += text.utf8.count
        scan.scripts.append(text)
        // A script longer than the budget was kept up to it: its start is read, with a warning.
        if node.isTextCut { scan.scriptsIncomplete = true }
    }

    private mutating func readLink(_ node: PageElement) {
        guard let href = node.attribute("href")?.nonEmptyURL else { return }
        let rel = Self.relTokens(node)
        if rel.contains("alternate"), let type = node.attribute("type")?.lowercased().nonEmpty,
            HTMLScanner.feedTypes.contains(type.split(separator: ";")[0].trimmingSpaces)
        {
            scan.feeds.append(.init(href: href, type: type))
        }
        if rel.contains("next") || rel.contains("prev") || rel.contains("previous") {
            scan.links.append(.init(href: href))
        }
        if rel.contains("image_src") { add(href, photo: newPhoto(), guess: true) }
    }

    /// Social-card images: `og:image` (and its `:url`/`:secure_url` forms) and `twitter:image`.
    static let metaImageProperties: Set<String> = [
        "og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src",
    ]

    private mutating func readMeta(_ node: PageElement) {
        if node.attribute("http-equiv")?.lowercased().trimmingSpaces == "refresh",
            let target = Self.refreshTarget(node.attribute("content") ?? "")
        {
            scan.links.append(.init(href: target))
            return
        }
        let name = (node.attribute("property") ?? node.attribute("name") ?? "").lowercased().trimmingSpaces
        guard Self.metaImageProperties.contains(name), let content = node.attribute("content")?.nonEmptyURL else { return }
        add(content, photo: newPhoto(), guess: true)
    }

    /// The URL of `<meta http-equiv="refresh" content="5; url=next.html">`, if it names one.
    static func refreshTarget(_ content: String) -> String? {
        guard let separator = content.firstIndex(where: { $0 == ";" || $0 == "," }) else { return nil }
        var rest = content[content.index(after: separator)...].trimmingSpaces[...]
        guard rest.lowercased().hasPrefix("url") else { return nil }
        rest = rest.dropFirst(3).drop { $0 == " " }
        guard rest.first == "=" else { return nil }
        var value = rest.dropFirst().trimmingSpaces
        if let quote = value.first, quote == "'" || quote == "\"" {
            value = String(value.dropFirst().prefix { $0 != quote })
        }
        return value.nonEmptyURL
    }

    private mutating func readAnchor(_ node: PageElement) {
        let href = node.attribute("href")?.nonEmptyURL
        let image = node.name == "a" ? node.firstDescendant(named: "img") : nil
        let linkedImages = Self.imageAttributes(of: node)
        if let href, href.first != "#", HTMLScanner.hasImageExtension(href) {
            // An image link: with an image inside, the original of that image; alone, a photo.
            let photo = image.map { photoNumber(of: $0) } ?? newPhoto()
            add(href, photo: photo, size: .init(role: .full), guess: true)
            for (url, role) in linkedImages { add(url, photo: photo, size: .init(role: role), guess: true) }
            describeLink(node, photo: photo, isAlone: image == nil)
            return
        }
        if !linkedImages.isEmpty {
            let photo = image.map { photoNumber(of: $0) } ?? newPhoto()
            for (url, role) in linkedImages { add(url, photo: photo, size: .init(role: role), guess: true) }
            describeLink(node, photo: photo, isAlone: image == nil)
        } else if let image {
            describeLink(node, photo: photoNumber(of: image), isAlone: false)
        }
        guard let href, !Self.isInertLink(href) else { return }
        scan.links.append(.init(href: href, photo: image.map { photoNumber(of: $0) }))
    }

    /// A link's title and data fields describe the photo it holds or points to; its text only
    /// when it is the photo's only label (a text link to an image file).
    /// A label that only restates the name of the linked file or of the image inside is none.
    private mutating func describeLink(_ node: PageElement, photo: Int, isAlone: Bool) {
        let files = [node.attribute("href"), node.firstDescendant(named: "img")?.attribute("src")].compactMap {
            $0.flatMap { HTMLScanner.hasImageExtension($0) ? $0 : nil }
        }
        func own(_ raw: String?) -> String? {
            guard let label = Self.label(raw) else { return nil }
            return files.contains { Self.restatesFileName(label, of: $0) } ? nil : label
        }
        if let title = own(node.attribute("title")) { offer(title, .attribute, photo: photo) }
        if let title = own(node.attribute("data-title")) { offer(title, .attribute, photo: photo) }
        if isAlone, let text = own(node.text) { offer(text, .attribute, photo: photo) }
        merge(Self.dataFields(of: node), photo: photo)
    }

    private mutating func readImage(_ node: PageElement) {
        let photo = photoNumber(of: node)
        let first = images.count
        let isFurniture = Self.isDecorative(node) || Self.isFurniture(node)
        defer {
            if isFurniture {
                for index in first..<images.count { images[index].isDecoration = true }
            }
        }
        endNearText()
        lastImageSource = node.attribute("src")?.nonEmptyURL
        if !isFurniture, readsOwnPage {
            shownPhotos.insert(photo)
            nearText = NearText(
                photo: photo, source: lastImageSource, imageSerial: node.serial,
                ownBlocks: Self.ancestorSerials(of: node, count: 2))
        }
        lastImagePhoto = photo
        lastImageSerial = node.serial
        lastImageAncestors = Self.ancestorSerials(of: node, count: Self.captionReach)
        let lazy = HTMLScanner.lazySourceAttributes.compactMap { node.attribute($0)?.nonEmptyURL }
        let lazySrcset = ["data-srcset", "data-lazy-srcset"].contains { node.attribute($0)?.nonEmpty != nil }
        let width = node.attribute("width").flatMap { Int($0.trimmingSpaces) }
        let height = node.attribute("height").flatMap { Int($0.trimmingSpaces) }
        for url in lazy { add(url, photo: photo, size: .init(role: .display, width: width, height: height)) }
        if let src = node.attribute("src")?.nonEmptyURL {
            if !lazy.isEmpty || lazySrcset || node.attribute("data-original") != nil {
                // What shows until a script loads the real image: a placeholder or a preview.
                lazyPlaceholders.append((photo, src))
                add(src, photo: photo, size: .init(role: .thumbnail))
            } else {
                add(src, photo: photo, size: .init(role: .display, width: width, height: height))
            }
        }
        addSrcsets(of: node, photo: photo)
        for (url, role) in Self.imageAttributes(of: node) { add(url, photo: photo, size: .init(role: role), guess: true) }
        describe(image: node, photo: photo)
    }

    /// A caption element (class `caption`, `image_comment`, `photo-caption`...) holding only
    /// text: the title of the image just before it, without a "(2/8)" position.
    private mutating func readCaption(_ node: PageElement) {
        guard let photo = lastImagePhoto, !captioned.contains(photo),
            node.serial - lastImageSerial <= Self.captionGap
                || !Self.ancestorSerials(of: node, count: 2).allSatisfy({ !lastImageAncestors.contains($0) }),
            node.elementChildren.allSatisfy({ Self.inlineElements.contains($0.name) }),
            let text = Self.label(Self.removingPositions(node.text)),
            !(lastImageSource.map { Self.restatesFileName(text, of: $0) } ?? false)
        else { return }
        captioned.insert(photo)
        offer(text, .caption, photo: photo)
    }

    /// Class words that mark an image as the site's furniture rather than a photo.
    private static let decorationWords = ["spinner", "loader", "loading", "icon", "emoji", "logo", "avatar", "sprite", "arrow"]

    /// Whether an image sits in the site's furniture: the page's own header or footer (not an
    /// article's), a sidebar or a widget area, by element, ARIA role or class/id word. An image
    /// there that is content (linked to its own larger file, or captioned in its figure) is not.
    static func isFurniture(_ image: PageElement) -> Bool {
        var current = image.parent
        var furniture = false
        // Whether the furniture found is a `<header>` or `<footer>` element, which inside an
        // article, the main content or a section is that part's own (a post's featured image).
        var isOwnPart = false
        while let element = current {
            switch element.name {
            case "a":
                if let href = element.attribute("href"), HTMLScanner.hasImageExtension(href) { return false }
            case "figure":
                if element.elementChildren.contains(where: { $0.name == "figcaption" }) { return false }
            case "article", "main", "section":
                if !furniture || isOwnPart { return false }
            case "header", "footer":
                if !furniture { (furniture, isOwnPart) = (true, true) }
            case "aside":
                (furniture, isOwnPart) = (true, false)
            default:
                break
            }
            if isFurnitureRole(element) { (furniture, isOwnPart) = (true, false) }
            current = element.parent
        }
        return furniture
    }

    /// ARIA landmarks of a site's frame, and the class and id words themes give it.
    private static let furnitureRoles: Set<String> = ["banner", "contentinfo", "complementary"]
    private static let furnitureWords = ["footer", "masthead", "site-header", "sidebar", "widget", "site-logo", "poweredby"]

    private static func isFurnitureRole(_ element: PageElement) -> Bool {
        if let role = element.attribute("role")?.lowercased().trimmingSpaces, furnitureRoles.contains(role) { return true }
        for name in ["id", "class"] {
            guard let value = element.attribute(name), !value.isEmpty else { continue }
            let words = value.lowercased().split(whereSeparator: { $0.isWhitespace })
            if words.contains(where: { word in furnitureWords.contains(where: word.includes) }) { return true }
        }
        return false
    }

    static func isDecorative(_ image: PageElement) -> Bool {
        guard let classes = image.attribute("class")?.lowercased() else { return false }
        return classes.split(whereSeparator: { $0.isWhitespace }).contains { token in
            decorationWords.contains(where: token.includes)
        }
    }

    private static let inlineElements: Set<String> = ["br", "em", "i", "b", "strong", "span", "small", "q", "cite", "p"]

    /// The serial numbers of `node`'s nearest `count` ancestors, nearest first.
    private static func ancestorSerials(of node: PageElement, count: Int) -> [Int] {
        var serials: [Int] = []
        var current = node.parent
        while let element = current, serials.count < count {
            serials.append(element.serial)
            current = element.parent
        }
        return serials
    }

    /// Whether a class attribute names a caption: a token with "caption" or "comment" in it
    /// (not the technical details some generators list beside it).
    static func isCaptionClass(_ classes: String) -> Bool {
        // Most class attributes are ASCII and name neither word: no lower-casing, no split.
        if classes.utf8.allSatisfy({ $0 < 0x80 }), !classes.includesASCIICaseInsensitive("caption"),
            !classes.includesASCIICaseInsensitive("comment"), !classes.includesASCIICaseInsensitive("gallerytext")
        {
            return false
        }
        return classes.lowercased().split(whereSeparator: { $0.isWhitespace }).contains { token in
            token == "gallerytext"
                || ((token.includes("caption") || token.includes("comment"))
                    && !["tech", "count", "exif", "meta", "form", "author", "link", "reply", "respond"].contains(
                        where: token.includes))
        }
    }

    /// `text` without slide positions like "(2/8)".
    static func removingPositions(_ text: String) -> String {
        // A scan rather than a Regex: a regex literal is parsed again each time it is evaluated.
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "(")) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "("), let end = positionEnd(bytes, from: index + 1) {
                out.append(UInt8(ascii: " "))
                index = end
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The index after the ")" of "  2 / 8 )" starting at `start`, or nil when the text there is
    /// not a position.
    private static func positionEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        func spaces() { while index < bytes.count, bytes[index] == 0x20 || (0x09...0x0D).contains(bytes[index]) { index += 1 } }
        func digits() -> Bool {
            let first = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index > first
        }
        spaces()
        guard digits() else { return nil }
        spaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "/") else { return nil }
        index += 1
        spaces()
        guard digits() else { return nil }
        spaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ")") else { return nil }
        return index + 1
    }

    private mutating func readSource(_ node: PageElement) {
        // A <picture>'s sources are renditions of its <img>. libxml2 2.9 does not know <source>
        // is a void element and nests the following <img> inside it, so search the subtree.
        // A picture (or video, audio) is read once it has closed, with its subtree; a <source>
        // outside those three (invalid HTML) finds no image there and is a photo of its own.
        let image = node.parent?.firstDescendant(named: "img")
        let photo = image.map { photoNumber(of: $0) } ?? newPhoto()
        let before = images.count
        addSrcsets(of: node, photo: photo)
        if let type = node.attribute("type")?.nonEmpty {
            for index in before..<images.count { images[index].declaredType = type }
        }
    }

    private mutating func addSrcsets(of node: PageElement, photo: Int) {
        for attribute in HTMLScanner.srcsetAttributes {
            // As written: the srcset parser splits on ASCII white space only, and collapsing
            // would turn a vertical tab or a no-break space inside a URL into a separator.
            guard let value = node.attribute(attribute), !value.isEmpty else { continue }
            for candidate in Srcset.candidates(value) {
                let size = RenditionSize(
                    role: .display, width: candidate.width, height: candidate.height, density: candidate.density)
                add(candidate.url, photo: photo, size: size)
            }
        }
    }

    /// The catalog text of an `<img>`: figcaption, then its title and alt attributes, then
    /// `data-title`; `data-*` fields of the image and of its enclosing `<figure>`.
    private mutating func describe(image node: PageElement, photo: Int) {
        var fields = Self.dataFields(of: node)
        var figure = node.parent
        var depth = 0
        while let current = figure, current.name != "figure", depth < 4 {
            figure = current.parent
            depth += 1
        }
        // A label that only restates the file's name (igal2's alt "aqua" on aqua.jpg) is no
        // title: the name's own words are the fallback, and a caption near it may say more.
        let source = node.attribute("src")?.nonEmptyURL
        func own(_ raw: String?) -> String? {
            guard let label = Self.label(raw) else { return nil }
            return source.map { Self.restatesFileName(label, of: $0) } == true ? nil : label
        }
        let alt = own(node.attribute("alt"))
        if let figure, figure.name == "figure" {
            fields.merge(Self.dataFields(of: figure)) { own, _ in own }
            if let caption = figure.elementChildren.first(where: { $0.name == "figcaption" }).flatMap({ own($0.text) }) {
                offer(caption, .caption, photo: photo)
                captioned.insert(photo)
                if let alt, alt != caption { fields["alt"] = alt }
            }
        }
        for candidate in [node.attribute("title"), node.attribute("alt"), node.attribute("data-title")] {
            if let title = own(candidate) { offer(title, .attribute, photo: photo) }
        }
        merge(fields, photo: photo)
    }

    // MARK: - Photos

    private mutating func newPhoto() -> Int {
        defer { photoCount += 1 }
        return photoCount
    }

    private mutating func photoNumber(of image: PageElement) -> Int {
        if let known = photoOfImage[image.serial] { return known }
        let photo = newPhoto()
        photoOfImage[image.serial] = photo
        return photo
    }

    /// Adds a rendition of `photo`; `guess`: the page only suggests `url` is an image
    /// (`ImageReference.isGuess`).
    private mutating func add(_ url: String, photo: Int, size: RenditionSize = .init(), guess: Bool = false) {
        var reference = ImageReference(url: url, photo: photo, size: size)
        reference.isGuess = guess
        images.append(reference)
    }

    /// Keeps `title` for `photo` unless a better or equal source already gave one.
    private mutating func offer(_ title: String, _ source: ImageReference.TitleSource, photo: Int) {
        if let current = titles[photo], current.source >= source { return }
        titles[photo] = (title, source)
    }

    private mutating func merge(_ fields: [String: String], photo: Int) {
        guard !fields.isEmpty else { return }
        metadata[photo, default: [:]].merge(fields) { current, _ in current }
    }

    // MARK: - Attributes

    private static func relTokens(_ node: PageElement) -> Set<String> {
        Set((node.attribute("rel") ?? "").lowercased().split(whereSeparator: { $0.isWhitespace }).map(String.init))
    }

    /// Links that lead nowhere to crawl: fragments of this page, scripts, mail.
    static func isInertLink(_ href: String) -> Bool {
        let lowered = href.trimmingSpaces.lowercased()
        return lowered.isEmpty || lowered.hasPrefix("#") || lowered.hasPrefix("javascript:") || lowered.hasPrefix("mailto:")
            || lowered.hasPrefix("tel:") || lowered.hasPrefix("data:")
    }

    /// Words in a `data-*` attribute name that say which rendition its image URL is: the
    /// original (`data-big`, `data-orig-file`, `data-full`), a large size (`data-large-file`),
    /// a thumbnail (`data-thumb`).
    private static let originalWords = ["big", "full", "orig", "zoom", "hires", "hi-res", "highres", "max", "download"]
    private static let largeWords = ["large"]
    private static let thumbnailWords = ["thumb", "small", "tiny", "mini", "preview", "placeholder"]
    /// Words in a `data-*` attribute name that say its value is an image URL even without an
    /// image file extension.
    private static let imageWords =
        ["src", "img", "image", "file", "photo", "picture"] + originalWords + largeWords + thumbnailWords

    /// The `data-*` attributes whose value is an image URL (lazy sources aside), with the
    /// rendition their name says: `data-big`, `data-full`, `data-orig-file`, `data-zoom-image`
    /// are the original, `data-large-file` a large size, `data-thumb` a thumbnail; others the
    /// display size.
    static func imageAttributes(of node: PageElement) -> [(url: String, role: RenditionSize.Role)] {
        guard node.hasAttribute(prefixedBy: "data-") else { return [] }
        var result: [(String, RenditionSize.Role)] = []
        for (name, value) in node.attributes where name.hasPrefix("data-") && name.count > 5 {
            guard !HTMLScanner.lazySourceAttributes.contains(name), !HTMLScanner.srcsetAttributes.contains(name),
                let url = value.nonEmptyURL, looksLikeImageURL(url, attribute: name)
            else { continue }
            let words = name.dropFirst(5)
            let role: RenditionSize.Role =
                if originalWords.contains(where: words.contains) {
                    .original
                } else if largeWords.contains(where: words.contains) {
                    .full
                } else if thumbnailWords.contains(where: words.contains) {
                    .thumbnail
                } else {
                    .display
                }
            result.append((url, role))
        }
        return result
    }

    /// Whether a `data-*` value (as a URL parser reads it) is an image URL. White space around
    /// it (a no-break space the URL keeps) does not count; white space inside makes it text.
    private static func looksLikeImageURL(_ url: String, attribute: String) -> Bool {
        let value = url.trimmingSpaces
        // A CSS `url(...)` (`data-bg`) is read for the URL inside it (`HTMLScanner.cssURLs`).
        guard !value.unicodeScalars.contains(where: { $0.properties.isWhitespace }), !value.hasPrefix("{"),
            !value.hasPrefix("["), !value.hasASCIICaseInsensitivePrefix("url(")
        else { return false }
        if HTMLScanner.hasImageExtension(value) { return true }
        let words = attribute.dropFirst(5)
        return imageWords.contains(where: words.includes) && (value.includes("/") || value.includes("?"))
            && !value.lowercased().hasPrefix("javascript:")
    }

    /// Words gallery generators put around a file name or use alone for a link to an image.
    private static let stockWords: Set<String> = [
        "click", "to", "see", "view", "open", "show", "the", "a", "an", "of", "in", "at", "full", "size", "full-size",
        "fullsize", "scaled", "image", "picture", "photo", "thumbnail", "thumb", "original", "enlarge", "zoom", "file",
        "download", "big", "large", "small", "larger", "version", "previous", "prev", "next", "slide", "return", "for",
        "as",
        "index", "back", "here", "this", "resolution", "high", "hi-res", "fullscreen", "screen",
    ]

    /// Whether `text` says nothing but stock words, or stock words and one file name (or a
    /// name with "thumb" after it, as lazygal writes its thumbnails' `alt`).
    static func isStockText(_ text: String) -> Bool {
        if let answer = text.utf8.withContiguousStorageIfAvailable(asciiStockText), let answer { return answer }
        let words = text.lowercased().split(separator: " ", maxSplits: 9)
        guard (1...8).contains(words.count) else { return false }
        let isThumbnailAlt = words.count == 2 && ["thumb", "thumbnail"].contains(words[1])
        return isStock(words.lazy.map(trimmingPunctuation), thumbnailAlt: isThumbnailAlt)
    }

    /// The words (lower-cased, punctuation trimmed) are stock words and at most one file name,
    /// or "<name> thumb(nail)"; both readings of `isStockText` end here.
    private static func isStock(_ words: some Sequence<String>, thumbnailAlt: Bool) -> Bool {
        var names = 0
        var stock = 0
        for bare in words {
            if stockWords.contains(bare) {
                stock += 1
            } else if HTMLScanner.hasImageExtension(bare) || thumbnailAlt {
                names += 1
            } else {
                return false
            }
        }
        return stock > 0 && names <= 1
    }

    /// `isStockText` for ASCII text, byte by byte, with no array of words; nil for other text.
    /// It runs for every label of a page, where splitting and trimming by `Character` makes an
    /// array of words and breaks graphemes for nothing.
    private static func asciiStockText(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
        func lower(_ byte: UInt8) -> UInt8 { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte }
        // The words, split on spaces as `split(separator: " ")` splits (no empty words): 1 to 8.
        var words: [Range<Int>] = []
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: " ") {
            if index > start {
                guard words.count < 8 else { return false }
                words.append(start..<index)
            }
            start = index + 1
        }
        guard !words.isEmpty else { return false }
        let isThumbnailAlt =
            words.count == 2
            && (equals(bytes, words[1], "thumb", lower) || equals(bytes, words[1], "thumbnail", lower))
        let bares = words.lazy.map { word in
            var first = word.lowerBound
            var end = word.upperBound
            while first < end, asciiPunctuation[Int(bytes[first])] { first += 1 }
            while end > first, asciiPunctuation[Int(bytes[end - 1])] { end -= 1 }
            return String(unsafeUninitializedCapacity: end - first) { out in
                for offset in 0..<(end - first) { out[offset] = lower(bytes[first + offset]) }
                return end - first
            }
        }
        return isStock(bares, thumbnailAlt: isThumbnailAlt)
    }

    private static func equals(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString, _ lower: (UInt8) -> UInt8
    ) -> Bool {
        range.count == word.utf8CodeUnitCount
            && range.allSatisfy { lower(bytes[$0]) == word.utf8Start[$0 - range.lowerBound] }
    }

    /// ASCII characters of Unicode category P, by code (what `trimmingPunctuation` trims).
    private static let asciiPunctuation: [Bool] = (0..<128).map { isPunctuation(Unicode.Scalar(UInt8($0))) }

    /// `word` without punctuation (Unicode category P) at either end.
    private static func trimmingPunctuation(_ word: Substring) -> String {
        let scalars = word.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isPunctuation($0) }),
            let last = scalars.lastIndex(where: { !isPunctuation($0) })
        else { return "" }
        return String(scalars[first...last])
    }

    private static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// Names of `data-*` attributes that are a script's plumbing, not catalog text.
    private static let plumbing: Set<String> = [
        "id", "index", "count", "toggle", "target", "ride", "slide", "slide-to", "lightbox", "gallery", "fancybox",
        "rel", "type", "sizes", "lazy", "loaded", "ll-status", "permalink", "comments-opened", "attachment-id",
        "image-meta", "orig-size", "width", "height", "size", "w", "h", "pswp-width", "pswp-height", "src-set",
    ]

    /// `data-price="12.50"` becomes `price: 12.50`. Only text a person would read: no URLs or
    /// paths (image ones are renditions), no JSON, no script plumbing (ids, indexes, toggles).
    static func dataFields(of node: PageElement) -> [String: String] {
        guard node.hasAttribute(prefixedBy: "data-") else { return [:] }
        var result: [String: String] = [:]
        for (name, value) in node.attributes where name.hasPrefix("data-") && name.count > 5 {
            let field = String(name.dropFirst(5))
            guard !plumbing.contains(field), !field.hasSuffix("-id"), !field.hasSuffix("-index"),
                !HTMLScanner.lazySourceAttributes.contains(name), !HTMLScanner.srcsetAttributes.contains(name),
                field != "title", field != "original",
                let text = label(value, maxLength: 1000)
            else { continue }
            result[field] = text
        }
        return result
    }

    /// Whether `text` only gives a size: "2,560 × 1,600 pixels", "800x600", "320 × 200 px".
    static func isDimensions(_ text: String) -> Bool {
        // A size has a digit (or a character beyond ASCII) and an "x" or "×": most labels lack
        // one and are answered from their bytes without a lower-cased copy.
        guard text.utf8.contains(where: { ($0 >= 0x30 && $0 <= 0x39) || $0 >= 0x80 }),
            text.utf8.contains(where: { $0 == UInt8(ascii: "x") || $0 == UInt8(ascii: "X") || $0 == 0xC3 })
        else { return false }
        let lowered = text.lowercased()
        guard let times = lowered.firstIndex(where: { $0 == "×" || $0 == "x" }) else { return false }
        let width = lowered[..<times].trimmingCharacters(in: .whitespaces)
        let rest = lowered[lowered.index(after: times)...].trimmingCharacters(in: .whitespaces)
        let height = rest.prefix { $0.isNumber || $0 == "," || $0 == "." }
        guard let first = width.first, first.isNumber, width.allSatisfy({ $0.isNumber || $0 == "," || $0 == "." }),
            height.first?.isNumber == true
        else { return false }
        let units = rest.dropFirst(height.count).split { !$0.isLetter }
        return units.allSatisfy { ["pixels", "pixel", "px"].contains($0) }
    }

    /// Month and day names (English, as wikis and blogs print dates), for `isDate`.
    private static let dateWords: Set<String> = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
        "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "monday",
        "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mon", "tue", "wed", "thu", "fri", "sat",
        "sun", "am", "pm", "utc", "gmt", "at", "of", "th", "st", "nd", "rd",
    ]

    /// Whether `text` only gives a date or a time: "04:19, 28 November 2026", "2024-05-12",
    /// "May 2, 2024", beside stock words ("Thumbnail for version as of 04:19, 28 November
    /// 2026", a file history's alt text).
    static func isDate(_ text: String) -> Bool {
        // Most labels are ASCII with no digit, or with a character no date has: those are
        // answered from their bytes, before any word is cut out or looked up (every image's
        // label on every page is asked this).
        var hasDigit = false
        var isASCII = true
        for byte in text.utf8 {
            switch byte {
            case 0x80...:
                hasDigit = true  // not ASCII: the checks below decide
                isASCII = false
            case 0x30...0x39: hasDigit = true
            case 0x41...0x5A, 0x61...0x7A, 0x09...0x0D, 0x20: continue
            case UInt8(ascii: ":"), UInt8(ascii: ","), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "/"),
                UInt8(ascii: "+"), UInt8(ascii: "("), UInt8(ascii: ")"):
                continue
            default: return false
            }
        }
        guard hasDigit else { return false }
        if isASCII { return isASCIIDate(text.utf8) }
        let words = text.lowercased().split { !$0.isLetter }.map(String.init)
        guard text.contains(where: \.isNumber), words.allSatisfy({ dateWords.contains($0) || stockWords.contains($0) }),
            text.unicodeScalars.allSatisfy({ scalar in
                scalar.properties.isAlphabetic || scalar.properties.numericType != nil || scalar.properties.isWhitespace
                    || ":,.-/+()".unicodeScalars.contains(scalar)
            })
        else { return false }
        // A month's name, a time (04:19) or an ISO date (2024-05-12) makes it a date.
        let digitGroups = text.split { !$0.isNumber }
        let hasTime = text.contains(":") && digitGroups.count >= 2
        let hasISODate = digitGroups.first?.count == 4 && text.contains("-") && digitGroups.count >= 3
        return words.contains(where: monthWords.contains) || hasTime || hasISODate
    }

    /// `isDate` for ASCII text of the characters it allows, word by word from the bytes: no
    /// lower-cased copy, no array of words, no Unicode properties ("Image 900" on every
    /// thumbnail of a page is answered at its first word that is neither a date's nor stock).
    private static func isASCIIDate(_ bytes: String.UTF8View) -> Bool {
        var hasMonth = false
        var hasColon = false
        var hasDash = false
        var digitGroups = 0
        var firstGroupLength = 0
        var wordStart: String.UTF8View.Index?
        var groupLength = 0
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        // Ends the word that started at `start`: false when it is neither a date's word nor stock.
        func endWord(at end: String.UTF8View.Index, from start: String.UTF8View.Index) -> Bool {
            // The longest date or stock word has 10 letters; a longer one is neither.
            guard bytes.distance(from: start, to: end) <= 10 else { return false }
            let word = String(decoding: bytes[start..<end].lazy.map { $0 | 0x20 }, as: UTF8.self)
            if monthWords.contains(word) { hasMonth = true }
            return dateWords.contains(word) || stockWords.contains(word)
        }
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if isLetter(byte) {
                if wordStart == nil { wordStart = index }
            } else if let start = wordStart {
                guard endWord(at: index, from: start) else { return false }
                wordStart = nil
            }
            if byte >= 0x30 && byte <= 0x39 {
                groupLength += 1
            } else if groupLength > 0 {
                if digitGroups == 0 { firstGroupLength = groupLength }
                digitGroups += 1
                groupLength = 0
            }
            if byte == UInt8(ascii: ":") { hasColon = true }
            if byte == UInt8(ascii: "-") { hasDash = true }
            index = bytes.index(after: index)
        }
        if let start = wordStart, !endWord(at: bytes.endIndex, from: start) { return false }
        if groupLength > 0 {
            if digitGroups == 0 { firstGroupLength = groupLength }
            digitGroups += 1
        }
        // A month's name, a time (04:19) or an ISO date (2024-05-12) makes it a date.
        return hasMonth || (hasColon && digitGroups >= 2) || (firstGroupLength == 4 && hasDash && digitGroups >= 3)
    }

    private static let monthWords: Set<String> = [
        "january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
        "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
    ]

    /// Names generators put before a rendition's file name (`slides/slide_aqua.jpg`).
    private static let renditionPrefixes = ["slide", "thumb", "thumbnail", "tn", "small", "medium", "large", "web"]

    /// Whether `label` only restates the name of the file at `url`, as a generator writes it
    /// from the name: the name itself, with or without its extension or a rendition prefix, in
    /// any letter case, a counter aside ("aqua" and "aqua (1/25)" for `slides/slide_aqua.jpg`,
    /// "by-the-water" for `by%2Dthe%2Dwater.jpg`). Words a person spelled out of it ("Desert
    /// Dunes" for `desert-dunes.jpg`, sigal's title from its metadata) are a title.
    package static func restatesFileName(_ label: String, of url: String) -> Bool {
        // Asked of every image's label: the cheap answers first, no array of segments.
        let path = url.utf8.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        let start = path.lastIndex(of: UInt8(ascii: "/")).map { path.index(after: $0) } ?? path.startIndex
        guard start < path.endIndex, let last = String(path[start...]) else { return false }
        // A label longer than the name (decoded, it is no longer than written) restates none of it.
        let stripped = label.utf8.contains(UInt8(ascii: "(")) ? removingPositions(label) : label
        guard let said = stripped.collapsingWhitespace.nonEmpty, said.utf8.count <= last.utf8.count else { return false }
        let name = (last.utf8.contains(UInt8(ascii: "%")) ? PercentEncoding.decode(last) : last).lowercased()
        let stem = name.lastIndex(of: ".").map { String(name[..<$0]) } ?? name
        let lowered = said.lowercased()
        if lowered == stem || lowered == name { return true }
        return renditionPrefixes.contains { prefix in
            ["_", "-", "."].contains { stem == prefix + $0 + lowered || name == prefix + $0 + lowered }
        }
    }

    /// Text fit to show as a label: white space collapsed, not empty, and not a file name, path
    /// or URL (a name only the file system chose is no title), nor a generator's stock words
    /// around one ("Scaled image fern.jpg", "Click to see full size fern.jpg", "fern thumb",
    /// "Original picture").
    package static func label(_ raw: String?, maxLength: Int = 300) -> String? {
        guard let raw, let text = raw.collapsingWhitespace.nonEmpty else { return nil }
        if HTMLScanner.hasImageExtension(text) || text.hasPrefix("{") || text.hasPrefix("[") { return nil }
        if isStockText(text) { return nil }
        // A counter restates nothing: "Image: aqua.jpg (1/25)" (jigl's slide title) is stock
        // words around a file name.
        if text.utf8.contains(UInt8(ascii: "(")) {
            let bare = removingPositions(text).collapsingWhitespace
            if bare != text, bare.isEmpty || HTMLScanner.hasImageExtension(bare) || isStockText(bare) { return nil }
        }
        // No character but "K" (Kelvin) lower-cases to ASCII, so a prefix compared in ASCII case is
        // the prefix of the lower-cased text.
        if text.hasASCIICaseInsensitivePrefix("http://") || text.hasASCIICaseInsensitivePrefix("https://")
            || text.hasPrefix("/")
        {
            return nil
        }
        if !text.includes(" "), text.includes("/") { return nil }
        if isDimensions(text) || isDate(text) { return nil }
        // A text of at most `maxLength` bytes has at most as many characters: no copy.
        return text.utf8.count <= maxLength ? text : String(text.prefix(maxLength))
    }
}
