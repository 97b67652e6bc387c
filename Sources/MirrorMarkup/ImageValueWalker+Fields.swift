import Foundation

/// What the names and values of fields mean to `ImageValueWalker`.
extension ImageValueWalker {
    /// Field names (normalized: lower case, no `_`, `-` or `data` prefix) that hold an image
    /// URL, by the rendition they name.
    static let fieldRoles: [String: RenditionSize.Role] = {
        var roles: [String: RenditionSize.Role] = [:]
        let thumbnail = [
            "thumb", "thumbs", "thumbnail", "thumbnails", "thumbnailurl", "thumburl", "thumbsrc", "thumbimage", "small",
            "smallurl", "smallimage", "preview", "previewurl", "mini", "tiny", "icon", "blur", "placeholder", "lqip", "square",
        ]
        let full = [
            "full", "fullurl", "fullsize", "fullimage", "fullsrc", "big", "bigurl", "bigimage", "original", "originalurl", "orig",
            "large", "largeurl", "largeimage", "xl", "xlarge", "file", "fileurl", "contenturl", "download", "downloadurl",
            "hires",
            "highres", "zoom", "zoomimage", "zoomurl", "raw", "master",
        ]
        let display = [
            "img", "image", "images", "imageurl", "imgurl", "imgsrc", "src", "url", "uri", "href", "link", "medium", "mediumurl",
            "photo", "photourl", "picture", "pic", "display", "regular", "standard", "banner", "bannerimage", "cover",
            "coverimage", "poster", "source", "path", "location", "loc", "featuredimage", "ogimage",
        ]
        for name in thumbnail { roles[name] = .thumbnail }
        for name in full { roles[name] = .full }
        for name in display { roles[name] = .display }
        return roles
    }()

    /// Fields holding a blurred or tiny stand-in shown while the real image loads (fgallery's
    /// `blur`): decoration, not a rendition a visitor looks at.
    static let placeholderFields: Set<String> = ["blur", "blurred", "placeholder", "lqip", "blurhash"]

    /// Image-named fields that as often hold a page's address: beside a real image field, their
    /// value counts only when it ends in an image extension; in JSON-LD, only in an `ImageObject`.
    static let weakFields: Set<String> = ["url", "uri", "href", "link", "source", "path", "location", "loc"]

    /// Fields whose object maps sizes to renditions of the enclosing photo.
    static let containerFields: Set<String> = [
        "sizes", "renditions", "variants", "versions", "formats", "urls", "srcset", "media", "imagesizes", "resolutions",
    ]

    /// Fields that title a photo, best first.
    static let titleFields = ["title", "name", "headline", "caption", "alt", "label"]
    /// Fields whose value is a photo's caption (as the catalog's `PhotoText.captionNames`).
    static let captionFields: Set<String> = ["description", "caption", "summary", "comment", "content", "alt"]
    /// Fields that are bookkeeping, not catalog text (fgallery's `stamp`, a file time in
    /// seconds): never metadata.
    static let bookkeepingFields: Set<String> = ["stamp", "timestamp", "mtime", "ctime", "atime"]
    /// Fields giving the file's length in bytes.
    static let lengthFields: Set<String> = ["bytes", "size", "length", "filesize", "sizeinbytes", "contentsize"]
    /// Fields giving the file's media type.
    static let typeFields: Set<String> = ["type", "mimetype", "contenttype", "encodingformat"]

    /// Extensions of documents and media that an image-named field's value cannot be.
    static let documentExtensions: Set<String> = FeedScanner.mediaExtensions.union([
        "html", "htm", "xhtml", "shtml", "json", "xml", "rss", "atom", "js", "css", "txt", "md",
    ])

    static func normalized(_ key: String) -> String {
        // Most names are already normal (`url`, `thumbnail`, `title`): handed back as they are.
        let isNormal =
            key.utf8.withContiguousStorageIfAvailable { bytes in
                bytes.allSatisfy { byte in
                    byte < 0x80 && !(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) && byte != UInt8(ascii: "_")
                        && byte != UInt8(ascii: "-") && byte != UInt8(ascii: " ")
                } && !(bytes.count > 4 && bytes[0] == UInt8(ascii: "d") && bytes[1] == UInt8(ascii: "a"))
            } ?? false
        if isNormal { return key }
        var name = key.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " }
        if name.hasPrefix("data"), name.count > 4, fieldRoles[String(name.dropFirst(4))] != nil { name.removeFirst(4) }
        return name
    }

    static func isStrongField(_ name: String) -> Bool { fieldRoles[name] != nil }

    static func role(_ name: String) -> RenditionSize.Role { fieldRoles[name] ?? .display }

    /// `text` as an image URL, or nil: a URL or path whose file has an image extension, or
    /// (when `named`, the field being named for an image) any URL or path that is not a
    /// document's.
    ///
    /// `strict` (an API's document): only an image file's URL that is absolute or from the
    /// server's root, whatever the field's name.
    static func imageURL(_ text: String, field: String?, strong named: Bool, strict: Bool = false) -> String? {
        let value = text.trimmingSpaces
        guard !value.isEmpty, value.utf8.count <= 4096, !hasWhiteSpace(value) else { return nil }
        if hasInertScheme(value) { return nil }
        if strict { return isImageFile(value) && isAbsoluteOrRooted(value) ? value : nil }
        if isImageFile(value) { return value }
        guard named, looksLikeURL(value), !extensionIn(value, documentExtensions) else { return nil }
        return value
    }

    /// True when `text` holds white space (Unicode's), looked for byte by byte in ASCII.
    private static func hasWhiteSpace(_ text: String) -> Bool {
        let ascii = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            for byte in bytes {
                if byte >= 0x80 { return nil }
                if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) { return true }
            }
            return false
        }
        if let answer = ascii ?? nil { return answer }
        return text.unicodeScalars.contains(where: \.isWhiteSpace)
    }

    /// Schemes (and a bare fragment) that never name an image file to fetch.
    private static let inertSchemes = ["data:", "javascript:", "mailto:", "tel:", "about:", "blob:", "#"].map { Array($0.utf8) }

    private static func hasInertScheme(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            inertSchemes.contains { scheme in
                scheme.count <= bytes.count
                    && scheme.indices.allSatisfy { offset in
                        let byte = bytes[offset]
                        return (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == scheme[offset]
                    }
            }
        }
    }

    /// True when the last path segment is a file name with an image extension (`.jpg` alone is not).
    static func isImageFile(_ url: String) -> Bool {
        guard HTMLScanner.hasImageExtension(url) else { return false }
        var url = url
        return url.withUTF8 { bytes in
            let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
            let start = bytes[..<end].lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            return !(start < end && bytes[start] == UInt8(ascii: "."))
        }
    }

    /// True for a URL with a scheme (`https:`), a network path (`//host/...`) or a path from the
    /// server's root (`/...`): an address that means the same whatever document holds it.
    static func isAbsoluteOrRooted(_ value: String) -> Bool {
        if value.hasPrefix("/") { return true }
        guard let colon = value.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let scheme = value.utf8[..<colon]
        return !scheme.isEmpty
            && scheme.allSatisfy { byte in
                let lower = byte | 0x20
                return (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            }
    }

    /// A URL or a path: it has a scheme, a slash or a query, and is not just a number.
    static func looksLikeURL(_ value: String) -> Bool {
        let bytes = value.utf8
        guard bytes.contains(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: ":") })
        else { return false }
        return bytes.contains { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }
    }

    /// True when the last path segment ends in one of `extensions`.
    static func extensionIn(_ url: String, _ extensions: Set<String>) -> Bool {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return false }
        return extensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// A value that is an address or a file name rather than catalog text.
    static func isAddressLike(_ value: String) -> Bool {
        guard !hasWhiteSpace(value) else { return false }
        let slashOrWeb =
            value.utf8.withContiguousStorageIfAvailable { bytes in
                bytes.contains(UInt8(ascii: "/")) || bytes.contains(UInt8(ascii: "\\"))
                    || (bytes.count >= 4 && bytes[0] | 0x20 == UInt8(ascii: "w") && bytes[1] | 0x20 == UInt8(ascii: "w")
                        && bytes[2] | 0x20 == UInt8(ascii: "w") && bytes[3] == UInt8(ascii: "."))
            } ?? (value.contains("/") || value.contains("\\") || value.lowercased().hasPrefix("www."))
        if slashOrWeb { return true }
        guard let dot = value.lastIndex(of: "."), value.index(after: dot) < value.endIndex else { return false }
        let suffix = value[value.index(after: dot)...]
        return suffix.count <= 5 && suffix.contains { $0.isLetter } && suffix.allSatisfy { $0.isLetter || $0.isNumber }
    }

    /// The title, metadata, length and type an object's fields (those not consumed as images
    /// or sizes) give its photos. `verbatim`: the text is the catalog's own (a listing's),
    /// kept as written (`FeedScanner.verbatimText`); a title or caption field is kept whatever
    /// it looks like, and only another field holding an address is left out (a record's page).
    static func catalogText(_ members: [JSONValue.Member], names: [String], consumed: Set<Int>, verbatim: Bool = false) -> (
        title: String?, metadata: [String: String], length: Int64?, type: String?
    ) {
        var texts: [String: (key: String, parts: [String])] = [:]
        var metadata: [String: String] = [:]
        var length: Int64?
        var type: String?
        for (index, member) in members.enumerated() where !consumed.contains(index) && !member.key.hasPrefix("@") {
            let name = names[index]
            if bookkeepingFields.contains(name) { continue }
            var parts: [String] = []
            let isText = verbatim && (titleFields.contains(name) || captionFields.contains(name))
            func clean(_ text: String) -> String? {
                guard verbatim else { return cleanText(text) }
                guard let kept = FeedScanner.verbatimText(text), isText || !isAddressLike(kept) else { return nil }
                return kept
            }
            switch member.value {
            case .string(let text):
                if let clean = clean(text) { parts = [clean] }
            case .number, .bool:
                if lengthFields.contains(name), let value = member.value.positiveInteger {
                    length = length ?? Int64(value)
                    continue
                }
                parts = [member.value.scalarText ?? ""]
            case .array(let elements) where elements.count <= 50 && elements.allSatisfy({ $0.scalarText != nil }):
                parts = elements.compactMap { $0.scalarText.flatMap(clean) }
            default:
                continue
            }
            guard !parts.isEmpty else { continue }
            if typeFields.contains(name), parts.count == 1, parts[0].contains("/") {
                type = type ?? parts[0].lowercased()
                continue
            }
            texts[name] = (member.key, parts)
        }
        var title: String?
        if let name = titleFields.first(where: { texts[$0] != nil }), let entry = texts.removeValue(forKey: name) {
            // fgallery's "caption": [title, description].
            title = entry.parts[0]
            if entry.parts.count > 1, texts["description"] == nil {
                metadata["description"] = entry.parts.dropFirst().joined(separator: " ")
            }
        }
        for (_, entry) in texts { metadata[entry.key] = entry.parts.joined(separator: ", ") }
        return (title, metadata, length, type)
    }

    /// Catalog text from a string: tags stripped, white space collapsed; nil when empty or an
    /// address or file name.
    private static func cleanText(_ text: String) -> String? {
        guard let clean = FeedScanner.plainText(text), !isAddressLike(clean) else { return nil }
        return clean
    }
}
