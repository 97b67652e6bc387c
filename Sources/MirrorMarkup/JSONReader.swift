import Foundation

/// Reads the image references of any JSON document: a JSON Feed 1.0/1.1 by its own rules, any
/// other JSON (a gallery's listing, fgallery's `data.json`, an API answer) by
/// `ImageValueWalker`'s: every string that is an image URL, the image fields of one object
/// being renditions of one photo, its other fields the photo's title and metadata.
package enum JSONReader {
    /// Nesting accepted (deeper documents are refused before decoding).
    static let maxNesting = 256

    /// Why a document could not be read as JSON.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, in one line.
        package let description: String
    }

    /// The references of a JSON document, photos numbered from 0 in document order. Throws
    /// when `bytes` is not JSON; JSON without images gives none.
    package static func read(_ bytes: [UInt8]) throws(Failure) -> [ImageReference] {
        var next = 0
        let value = try decode(bytes)
        return photos(in: value, strict: isAPIDocument(value)).references(numberingFrom: &next)
    }

    /// The photos of a JSON document, each a list of renditions (not numbered), and the
    /// document's own title: the top-level `title` or `name` (what fgallery's script makes the
    /// page's title).
    ///
    /// An API's answer (`isAPIDocument`) is not a listing of images: it is read strictly
    /// (`ImageValueWalker.isStrict`), its references are guesses, and it gives no title.
    package static func photosAndTitle(_ bytes: [UInt8]) throws(Failure) -> (photos: [[ImageReference]], title: String?) {
        let value = try decode(bytes)
        if isAPIDocument(value) { return (photos(in: value, strict: true).photos, nil) }
        let title = (value["title"] ?? value["name"])?.string.flatMap { FeedScanner.verbatimText($0) }
        return (photos(in: value).photos, title)
    }

    /// Whether `value` is an API's answer about something else than images, not a listing of
    /// them: its records carry hypermedia links (`_links` or `_embedded`, as HAL and
    /// WordPress's REST API write every post, page, comment and attachment), or it is an oEmbed
    /// answer (`version` with a `type` of `photo`, `video`, `link` or `rich`). Such a document
    /// names pages, comments and other API documents under image-like field names (`href`,
    /// `link`, `guid`, `source_url`), and file names relative to folders it does not name.
    static func isAPIDocument(_ value: JSONValue) -> Bool {
        func isHypermedia(_ record: JSONValue?) -> Bool {
            guard case .object(let members)? = record else { return false }
            return members.contains { $0.key == "_links" || $0.key == "_embedded" }
        }
        switch value {
        case .object:
            if isHypermedia(value) { return true }
            if value["version"]?.scalarText != nil, let type = value["type"]?.string,
                ["photo", "video", "link", "rich"].contains(type)
            {
                return true
            }
            return false
        case .array(let elements):
            return isHypermedia(elements.first)
        default:
            return false
        }
    }

    private static func isJSONFeed(_ value: JSONValue) -> Bool {
        guard let version = value["version"]?.string else { return false }
        return version.hasPrefix("https://jsonfeed.org/version/") || version.hasPrefix("http://jsonfeed.org/version/")
    }

    private static func decode(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        if isWideUnicode(bytes) {
            // UTF-16 or UTF-32 (RFC 8259 allows only UTF-8, and JSONDecoder reads them): rare
            // enough to leave to the decoder.
            guard JSONValue.nesting(of: bytes, limit: maxNesting) <= maxNesting else {
                throw Failure(description: "not readable JSON (nested deeper than \(maxNesting) levels)")
            }
            do {
                return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            } catch {
                throw Failure(description: "not valid JSON (\(describe(error)))")
            }
        }
        do {
            return try JSONParser(maxDepth: maxNesting).parse(bytes)
        } catch {
            throw Failure(description: "not valid JSON (\(error.description))")
        }
    }

    /// True for text in UTF-16 or UTF-32: a byte order mark of theirs, or a NUL among the first
    /// four bytes (JSON text starts with ASCII).
    private static func isWideUnicode(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) { return true }
        return bytes.prefix(4).contains(0)
    }

    /// The photos of a decoded document (also what a script's JSON-LD gives).
    static func photos(in value: JSONValue, strict: Bool = false) -> PhotoSet {
        if isJSONFeed(value) { return JSONFeedReader.photos(in: value) }
        // A listing's text is the catalog's own, kept as written; an API's is not a catalog.
        var walker = ImageValueWalker(strict: strict, verbatim: !strict)
        walker.walk(value)
        return walker.photos
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return (underlying ?? context.debugDescription).collapsingWhitespace
        }
        return "\(error)".collapsingWhitespace
    }
}

/// JSON Feed 1.0 and 1.1: per item, its image `attachments` (full size), `image` (the display
/// image: the same photo when the item has at most one attachment image) and `banner_image`
/// (a photo of its own unless it is one of those), and the images of `content_html`, grouped
/// as `FeedItemReader` groups an RSS item's.
enum JSONFeedReader {
    static func photos(in feed: JSONValue) -> PhotoSet {
        guard case .array(let items)? = feed["items"] else { return PhotoSet() }
        var photos = PhotoSet()
        for item in items { photos.add(itemPhotos(item)) }
        return photos
    }

    private static func itemPhotos(_ item: JSONValue) -> PhotoSet {
        var photos = PhotoSet()
        if case .array(let attachments)? = item["attachments"] {
            for attachment in attachments {
                guard let url = attachment["url"]?.string?.nonEmpty else { continue }
                let type = attachment["mime_type"]?.string?.trimmingSpaces.lowercased()
                guard type?.hasPrefix("image/") ?? HTMLScanner.hasImageExtension(url) else { continue }
                var reference = ImageReference(
                    url: url, titleSource: .catalog, declaredLength: attachment["size_in_bytes"]?.positiveInteger.map(Int64.init),
                    declaredType: type, size: RenditionSize(role: .full))
                reference.title = attachment["title"]?.string?.nonEmpty
                photos.add([reference])
            }
        }
        if let url = item["image"]?.string?.nonEmpty {
            let image = ImageReference(url: url, titleSource: .catalog)
            if photos.count == 1 { photos.add([image], to: 0) } else { photos.add([image]) }
        }
        if let url = item["banner_image"]?.string?.nonEmpty { photos.add([ImageReference(url: url, titleSource: .catalog)]) }
        if let html = item["content_html"]?.string, html.utf8.contains(UInt8(ascii: "<")),
            let scan = try? HTMLScanner.scan(Array(html.utf8), url: "", encoding: "UTF-8", isFragment: true)
        {
            var content = PhotoSet()
            var byNumber: [Int: Int] = [:]
            for reference in scan.images where !reference.url.isEmpty {
                if let number = reference.photo, let index = byNumber[number] {
                    content.add([reference], to: index)
                } else if let index = content.add([reference]), let number = reference.photo {
                    byNumber[number] = index
                }
            }
            if photos.count == 1 && content.count == 1 { photos.add(content.photos[0], to: 0) } else { photos.add(content) }
        }
        // Plain text by JSON Feed's own rules, kept verbatim; only `content_html` is HTML.
        let title = item["title"]?.string.flatMap { FeedScanner.verbatimText($0) }
        var metadata: [String: String] = [:]
        let description =
            item["summary"]?.string.flatMap { FeedScanner.verbatimText($0) } ?? item["content_text"]?.string.flatMap {
                FeedScanner.verbatimText($0)
            } ?? item["content_html"]?.string.flatMap { FeedScanner.plainText($0, isHTML: true) }
        if let description { metadata["description"] = description }
        let author: JSONValue? = {
            if case .array(let authors)? = item["authors"] { return authors.first }
            return item["author"]
        }()
        if let name = author?["name"]?.string.flatMap({ FeedScanner.verbatimText($0) }) { metadata["creator"] = name }
        if let date = (item["date_published"] ?? item["date_modified"])?.string?.nonEmpty { metadata["date"] = date }
        photos.update { reference in
            if let title {
                reference.title = title
                reference.titleSource = .catalog
            }
            reference.metadata.merge(metadata) { _, item in item }
        }
        return photos
    }
}
