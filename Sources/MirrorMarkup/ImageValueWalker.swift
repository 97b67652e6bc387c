import Foundation

/// Finds the photos in a JSON value tree (a JSON document, or the literals of a script).
///
/// Every string that is an image URL becomes a rendition: one whose path ends in an image
/// extension, or the value of a field named for an image (`img`, `image`, `src`, `thumb`,
/// `url`, `file`, `big`, `full`, `original`...) that looks like a URL or path. The image
/// fields of one object are renditions of one photo, their role from the field's name
/// (`thumb`/`small` a thumbnail, `full`/`big`/`original`/`large`/`file` the full size,
/// `img`/`image`/`src`/`url` the display size), sized by `width`/`height` fields
/// (`thumbWidth`, `thumb_height`... for one rendition) or by fgallery's `[url, [w, h]]` pairs.
/// An object under an image-named field (`"image": {"url": ..., "width": ...}`, JSON-LD's
/// `ImageObject`, `"sizes": {"small": ..., "large": ...}`) adds its renditions to its
/// parent's photo; any other nested object or array holds photos of its own. The object's
/// other scalar fields are the photo's title (`title`, `name`, `headline`, `caption`, `alt`,
/// `label`, first found) and metadata; URLs, file paths and empty strings are never metadata.
/// A blurred or tiny stand-in (`blur`, `placeholder`, `lqip`) is marked as decoration.
///
/// A strict walker (`isStrict`, for an API's documents: WordPress's `/wp-json/`, oEmbed) takes
/// only values that are image URLs by themselves: a path ending in an image extension, absolute
/// or from the server's root. A field's name says nothing there (`href`, `link` and `guid` name
/// pages, comments and other API documents), and a bare file name (`"file": "2024/05/a.jpg"`)
/// is relative to a folder the document does not name. Every reference it finds is a guess.
struct ImageValueWalker {
    /// Nesting followed (deeper values are ignored).
    static let maxDepth = 64

    private(set) var photos = PhotoSet()
    /// Whether only self-evident image URLs count (an API's document). Default: false.
    var isStrict = false
    /// Whether the records' text is the catalog's own (a JSON listing's), kept as written
    /// whatever it looks like: a title such as "../cm-escape" or "&lt;img&gt;" is the source's
    /// to give, and the site escapes it. Otherwise (a script's literals) markup is read as
    /// text and an address is no text. Default: false.
    var keepsTextVerbatim = false

    /// A walker; `strict` as `isStrict`, `verbatim` as `keepsTextVerbatim`.
    init(strict: Bool = false, verbatim: Bool = false) {
        isStrict = strict
        keepsTextVerbatim = verbatim
    }

    /// Walks `value`, found under `key` (nil at the top level or in an array).
    mutating func walk(_ value: JSONValue, key: String? = nil, depth: Int = 0) {
        guard depth < Self.maxDepth else { return }
        switch value {
        case .object(let members):
            photos.add(Self.record(members, depth: depth, strict: isStrict, verbatim: keepsTextVerbatim))
        case .array(let elements):
            // A listing's records have a photo or two each, of a rendition or two.
            photos.reserveCapacity(renditions: elements.count * 2)
            for element in elements { walk(element, key: key, depth: depth + 1) }
        case .string(let text):
            let name = key.map(Self.normalized)
            if let url = Self.imageURL(text, field: name, strong: name.map(Self.isStrongField) ?? false, strict: isStrict) {
                var reference = ImageReference(url: url, size: RenditionSize(role: name.map(Self.role) ?? .display))
                reference.isDecoration = name.map(Self.placeholderFields.contains) ?? false
                reference.isGuess = isStrict
                photos.add([reference])
            }
        default:
            break
        }
    }

    // MARK: One object

    /// The photos of one object: its own (the renditions of its image fields), then those of
    /// nested objects and arrays.
    static func record(_ members: [JSONValue.Member], depth: Int, strict: Bool = false, verbatim: Bool = false) -> PhotoSet {
        let names = members.map { normalized($0.key) }
        let isLinkedData = members.contains { $0.key == "@type" || $0.key == "@context" }
        let type = members.first { $0.key == "@type" }?.value.scalarText?.lowercased()
        let isImageObject = type.map { ["imageobject", "photograph", "mediaobject"].contains($0) } ?? false
        var renditions: [(field: String, reference: ImageReference)] = []
        var own = PhotoSet()
        var nested = PhotoSet()
        var extra: [ImageReference] = []
        var consumed = Set<Int>()
        var hasStrongImage = false
        for (index, member) in members.enumerated() {
            let name = names[index]
            let strong = isStrongField(name) && !(isLinkedData && !isImageObject && weakFields.contains(name))
            switch member.value {
            case .string(let text):
                guard let url = imageURL(text, field: name, strong: strong || (isImageObject && name == "url"), strict: strict)
                else { continue }
                renditions.append((name, ImageReference(url: url, size: RenditionSize(role: role(name)))))
                consumed.insert(index)
                if strong && !weakFields.contains(name) { hasStrongImage = true }
            case .array(let elements):
                if let pair = sizedURL(elements), let url = imageURL(pair.url, field: name, strong: strong, strict: strict) {
                    // fgallery: "thumb": ["thumbs/a.jpg", [150, 112]]
                    let size = RenditionSize(role: role(name), width: pair.width, height: pair.height)
                    renditions.append((name, ImageReference(url: url, size: size)))
                    consumed.insert(index)
                    hasStrongImage = hasStrongImage || strong
                } else if elements.allSatisfy({ $0.string != nil }) {
                    let urls = elements.compactMap {
                        $0.string.flatMap { imageURL($0, field: name, strong: strong, strict: strict) }
                    }
                    guard !urls.isEmpty else { continue }
                    // Several images in one field are several photos, described by this object.
                    extra += urls.map { ImageReference(url: $0, size: RenditionSize(role: role(name))) }
                    consumed.insert(index)
                } else {
                    var walker = ImageValueWalker(strict: strict, verbatim: verbatim)
                    walker.walk(member.value, key: member.key, depth: depth + 1)
                    nested.add(walker.photos)
                    consumed.insert(index)
                }
            case .object(let inner):
                let found = record(inner, depth: depth + 1, strict: strict, verbatim: verbatim)
                consumed.insert(index)
                if found.count == 1, isStrongField(name) || containerFields.contains(name) {
                    // An image object or a map of sizes: renditions of this object's photo.
                    let fieldRole = role(name)
                    own.add(
                        found.photos[0].map { rendition in
                            var rendition = rendition
                            if rendition.size.role == .display, fieldRole != .display, !containerFields.contains(name) {
                                rendition.size.role = fieldRole
                            }
                            return rendition
                        })
                } else {
                    nested.add(found)
                }
            default:
                continue
            }
        }
        // A weak field (`url`, `file`, `link`) beside a real image field is the record's page, not an image.
        renditions.removeAll {
            hasStrongImage && weakFields.contains($0.field) && !HTMLScanner.hasImageExtension($0.reference.url)
        }
        applySizes(members, names: names, to: &renditions, consumed: &consumed, imageObject: isImageObject)
        for index in renditions.indices where placeholderFields.contains(renditions[index].field) {
            renditions[index].reference.isDecoration = true
        }
        var text = catalogText(members, names: names, consumed: consumed, verbatim: verbatim)
        if own.count == 1, let inner = own.photos[0].first {
            if text.title == nil, let title = inner.title { text.title = title }
            text.metadata.merge(inner.metadata) { mine, _ in mine }
        }
        var photos = PhotoSet()
        if !renditions.isEmpty || !own.isEmpty {
            photos.add(renditions.map(\.reference))
            if photos.isEmpty {
                photos.add(own.photos[0])
            } else {
                for photo in own.photos { photos.add(photo, to: 0) }
            }
        }
        for reference in extra { photos.add([reference]) }
        photos.update { reference in
            if let title = text.title {
                reference.title = title
                reference.titleSource = .catalog
            }
            reference.metadata.merge(text.metadata) { _, mine in mine }
            if reference.declaredLength == nil { reference.declaredLength = text.length }
            if reference.declaredType == nil { reference.declaredType = text.type }
            if strict { reference.isGuess = true }
        }
        photos.add(nested)
        return photos
    }

    /// Dimensions: `thumbWidth`/`thumb_height` size the rendition of that field, plain
    /// `width`/`height` the display (or only, or JSON-LD `contentUrl`) rendition.
    private static func applySizes(
        _ members: [JSONValue.Member], names: [String], to renditions: inout [(field: String, reference: ImageReference)],
        consumed: inout Set<Int>, imageObject: Bool
    ) {
        guard !renditions.isEmpty else { return }
        for (index, name) in names.enumerated() {
            let isWidth = name.hasSuffix("width")
            guard isWidth || name.hasSuffix("height"),
                let value = members[index].value.positiveInteger ?? quantity(members[index].value)
            else { continue }
            let prefix = String(name.dropLast(isWidth ? 5 : 6))
            let target: Int?
            if prefix.isEmpty {
                target =
                    renditions.count == 1
                    ? 0
                    : (imageObject ? renditions.firstIndex { $0.field == "contenturl" } : nil)
                        ?? renditions.firstIndex { role($0.field) == .display }
                        ?? renditions.firstIndex { $0.reference.size.width == nil }
            } else {
                target = renditions.firstIndex { $0.field == prefix || $0.field.hasPrefix(prefix) }
            }
            guard let target else { continue }
            if isWidth {
                renditions[target].reference.size.width = renditions[target].reference.size.width ?? value
            } else {
                renditions[target].reference.size.height = renditions[target].reference.size.height ?? value
            }
            consumed.insert(index)
        }
    }

    /// JSON-LD's `{"@type": "QuantitativeValue", "value": 800}`.
    private static func quantity(_ value: JSONValue) -> Int? {
        value["value"]?.positiveInteger
    }

    /// fgallery's `["imgs/a.jpg", [1200, 800]]`.
    private static func sizedURL(_ elements: [JSONValue]) -> (url: String, width: Int?, height: Int?)? {
        guard elements.count == 2, let url = elements[0].string, case .array(let size) = elements[1], size.count == 2 else {
            return nil
        }
        return (url, size[0].positiveInteger, size[1].positiveInteger)
    }
}
