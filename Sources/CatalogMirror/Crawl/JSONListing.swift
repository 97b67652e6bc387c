import Foundation

/// Reads a JSON listing shaped like `[{"name": ..., "url": ..., "price": ...}]` (or an object
/// holding such an array): `url` (or `src`, `image`) is the key, `name` (or `title`) the title,
/// and every other scalar field goes into `metadata`.
public enum JSONListing {
    static let urlFields = ["url", "src", "image", "href"]
    static let titleFields = ["name", "title"]
    static let lengthFields = ["bytes", "size", "length"]

    public struct NotAListing: Error, CustomStringConvertible {
        public let description: String
    }

    public static func scan(_ bytes: [UInt8]) throws(NotAListing) -> [ImageReference] {
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch {
            throw NotAListing(description: "not valid JSON (\(Self.describe(error)))")
        }
        if case .object(let object) = value, case .string(let version)? = object["version"],
            version.hasPrefix("https://jsonfeed.org/version/")
        {
            return jsonFeedItems(object)
        }
        guard let entries = value.listingEntries else {
            throw NotAListing(description: "JSON with no array of objects to read images from")
        }
        return entries.compactMap(reference)
    }

    /// JSON Feed 1.x: each item's `image` and its image `attachments`, titled by the item.
    private static func jsonFeedItems(_ feed: [String: JSONValue]) -> [ImageReference] {
        guard case .array(let items)? = feed["items"] else { return [] }
        var references: [ImageReference] = []
        for case .object(let item) in items {
            let title = item["title"]?.scalarText?.nonEmpty
            var metadata: [String: String] = [:]
            if let summary = (item["summary"] ?? item["content_text"])?.scalarText?.nonEmpty {
                metadata["description"] = String(summary.collapsingWhitespace.prefix(1000))
            }
            if let image = item["image"]?.scalarText?.nonEmpty {
                references.append(ImageReference(url: image, title: title, titleSource: .catalog, metadata: metadata))
            }
            guard case .array(let attachments)? = item["attachments"] else { continue }
            for case .object(let attachment) in attachments {
                guard let url = attachment["url"]?.scalarText?.nonEmpty else { continue }
                let type = attachment["mime_type"]?.scalarText?.lowercased()
                guard type?.hasPrefix("image/") ?? HTMLScanner.hasImageExtension(url) else { continue }
                references.append(
                    ImageReference(
                        url: url, title: attachment["title"]?.scalarText?.nonEmpty ?? title, titleSource: .catalog,
                        metadata: metadata, declaredLength: attachment["size_in_bytes"]?.integer, declaredType: type))
            }
        }
        return references
    }

    private static func reference(_ object: [String: JSONValue]) -> ImageReference? {
        guard let url = urlFields.lazy.compactMap({ object[$0]?.scalarText?.nonEmpty }).first else { return nil }
        let title = titleFields.lazy.compactMap { object[$0]?.scalarText?.nonEmpty }.first
        var metadata: [String: String] = [:]
        for (name, value) in object where !urlFields.contains(name) && !titleFields.contains(name) {
            if let text = value.scalarText?.nonEmpty { metadata[name] = text }
        }
        let length = lengthFields.lazy.compactMap { object[$0]?.integer }.first
        let type = object["type"]?.scalarText ?? object["mimeType"]?.scalarText
        return ImageReference(
            url: url, title: title, titleSource: .catalog, metadata: metadata,
            declaredLength: length.flatMap { $0 > 0 ? $0 : nil },
            declaredType: type.flatMap { $0.utf8.contains(UInt8(ascii: "/")) ? $0 : nil })
    }

    private static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            return (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
                ?? context.debugDescription
        }
        return "\(error)"
    }
}

/// Any JSON value; numbers keep the text they print as.
enum JSONValue: Decodable {
    case string(String)
    case integer(Int64)
    case number(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    var scalarText: String? {
        switch self {
        case .string(let text): text
        case .integer(let value): String(value)
        case .number(let value): String(value)
        case .bool(let value): String(value)
        default: nil
        }
    }

    var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .string(let text): Int64(text)
        default: nil
        }
    }

    /// The array of objects a listing holds: the top-level array, or the first array of
    /// objects among a top-level object's values (`images`, `items`, ... tried first).
    var listingEntries: [[String: JSONValue]]? {
        switch self {
        case .array(let values):
            let objects = values.compactMap { if case .object(let object) = $0 { object } else { nil } }
            return objects.isEmpty && !values.isEmpty ? nil : objects
        case .object(let object):
            for name in ["images", "items", "data", "results"] + object.keys.sorted() {
                if case .array = object[name], let entries = object[name]?.listingEntries, !entries.isEmpty {
                    return entries
                }
            }
            return nil
        default:
            return nil
        }
    }
}
