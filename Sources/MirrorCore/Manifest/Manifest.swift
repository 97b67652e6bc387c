import Foundation

/// `manifest.json`, as docs/reference.md fixes it (`catalog-mirror/manifest@1`).
public struct Manifest: Codable, Sendable, Equatable {
    /// The value of `schema` this version writes and reads.
    package static let schemaName = "catalog-mirror/manifest@1"

    /// One published image.
    package struct Item: Codable, Sendable, Equatable {
        /// The image's canonical URL.
        package var key: String
        /// Where the file is, relative to the mirror directory (`images/<name>`).
        package var path: String
        /// SHA-256 of the file's bytes, lower-case hex.
        package var sha256: String
        /// The file's size in bytes.
        package var bytes: Int64
        /// The media type the bytes were checked to be (`image/png`...).
        package var contentType: String
        /// The photo's title, as the source gives it.
        package var title: String?
        /// Other catalog text the source gives (price, caption, alt...); nil when there is none.
        package var metadata: [String: String]?
        /// The canonical URL of the page (in crawl order) where the photo was first found.
        package var album: String?
        /// On a smaller rendition of a photo: the key of that photo's largest published rendition.
        package var variantOf: String?
        /// The `ETag` the server last sent, for conditional requests.
        package var etag: String?
        /// The `Last-Modified` the server last sent.
        package var lastModified: String?
        /// When a run first published this key.
        package var firstSeen: Date
        /// When a run last confirmed the file current (downloaded or answered 304).
        package var lastChecked: Date
        /// The image's width in pixels as shown (read from its header); nil when unknown.
        package var width: Int? = nil
        /// The image's height in pixels as shown; nil when unknown.
        package var height: Int? = nil
        /// When the photo was taken, from its file (`EmbeddedMetadata.taken`): ISO 8601, with
        /// its offset when the file gives one.
        package var taken: String? = nil
        /// The camera the file names.
        package var camera: String? = nil
        /// The lens the file names.
        package var lens: String? = nil
        /// Focal length, aperture, exposure time and ISO, as the file gives them.
        package var exposure: EmbeddedMetadata.Exposure? = nil
        /// The file's keywords.
        package var keywords: [String]? = nil
        /// Who made the photo, as the file says.
        package var creator: String? = nil
        /// The file's copyright notice.
        package var copyright: String? = nil
        /// Where the photo was taken, in decimal degrees; never written with `--strip-location`.
        package var location: EmbeddedMetadata.Location? = nil
        /// Where `title` came from: the source's pages, the file's own metadata, or its name.
        package var titleFrom: TextSource? = nil
        /// The perceptual signature of the image's pixels (224 hex digits: a 256-bit difference
        /// hash, which of its bits are edges, and a 4 × 4 colour layout; `MirrorPixels.PixelFingerprint`), where it was
        /// computed: for the images compared with another rendition of their photo.
        package var fingerprint: String? = nil
        /// Where the caption in `metadata` came from: the source's pages or the file's own
        /// metadata (`metadata["caption"]`); nil when the photo has none.
        package var captionFrom: TextSource? = nil

        /// The fields, declared once (`Field`, in ItemFields.swift).
        typealias CodingKeys = Field

        package init(
            key: String, path: String, sha256: String, bytes: Int64, contentType: String, title: String? = nil,
            metadata: [String: String]? = nil, album: String? = nil, variantOf: String? = nil, etag: String? = nil,
            lastModified: String? = nil, firstSeen: Date, lastChecked: Date, width: Int? = nil, height: Int? = nil,
            taken: String? = nil, camera: String? = nil, lens: String? = nil, exposure: EmbeddedMetadata.Exposure? = nil,
            keywords: [String]? = nil, creator: String? = nil, copyright: String? = nil,
            location: EmbeddedMetadata.Location? = nil, titleFrom: TextSource? = nil, captionFrom: TextSource? = nil,
            fingerprint: String? = nil
        ) {
            self.key = key
            self.path = path
            self.sha256 = sha256
            self.bytes = bytes
            self.contentType = contentType
            self.title = title
            self.metadata = metadata
            self.album = album
            self.variantOf = variantOf
            self.etag = etag
            self.lastModified = lastModified
            self.firstSeen = firstSeen
            self.lastChecked = lastChecked
            self.width = width
            self.height = height
            self.taken = taken
            self.camera = camera
            self.lens = lens
            self.exposure = exposure
            self.keywords = keywords
            self.creator = creator
            self.copyright = copyright
            self.location = location
            self.titleFrom = titleFrom
            self.captionFrom = captionFrom
            self.fingerprint = fingerprint
        }

        /// Width and height together, when both are known.
        var dimensions: ImageDimensions? {
            guard let width, let height else { return nil }
            return ImageDimensions(width: width, height: height)
        }
    }

    /// Where a photo's title or caption came from.
    package enum TextSource: String, Codable, Sendable, Equatable {
        /// The source's pages, feeds or listings: the photo's own text there.
        case page
        /// The image file's own metadata (IPTC or XMP; a caption also EXIF's description).
        case file
        /// Words made from the file's name (titles only).
        case name
    }

    /// A page of the source that holds a published photo.
    package struct Album: Codable, Sendable, Equatable {
        /// The page's canonical URL.
        package var url: String
        /// The page's title, as the source titles it.
        package var title: String?
        /// The key of the image the source shows for the album where it links to it (its cover,
        /// on the page above it): the album's picture on the generated site. Nil when the source
        /// shows none; left out of the file then.
        package var cover: String? = nil

        package init(url: String, title: String? = nil, cover: String? = nil) {
            self.url = url
            self.title = title
            self.cover = cover
        }
    }

    /// One key seen and not published.
    package struct Rejection: Codable, Sendable, Equatable {
        /// The key's canonical URL.
        package var key: String
        /// Why it was not published: a kebab-case reason (`not-an-image`, `http-404`...).
        package var reason: String

        package init(key: String, reason: String) {
            self.key = key
            self.reason = reason
        }
    }

    /// `catalog-mirror/manifest@1`.
    package var schema: String = Manifest.schemaName
    /// The source URL the mirror was made from.
    public var source: String
    /// The source's title (its start page's `<title>`), when it has one.
    package var title: String?
    /// When the run that wrote the manifest started publishing.
    package var generatedAt: Date
    /// Sorted by key in byte order.
    package var items: [Item] {
        get { Array(table) }
        set { table = ItemTable(newValue) }
    }
    /// The items as a run holds them: packed (`ItemTable`), each made whole when it is read.
    package var table: ItemTable
    /// Sorted by key in byte order.
    package var rejected: [Rejection]
    /// Every page that holds a published photo, in crawl order. Nil in manifests written before
    /// albums were kept.
    package var albums: [Album]?

    package init(
        source: String, title: String? = nil, generatedAt: Date, items: [Item], rejected: [Rejection],
        albums: [Album]? = nil
    ) {
        self.init(
            source: source, title: title, generatedAt: generatedAt, table: ItemTable(items), rejected: rejected, albums: albums)
    }

    package init(
        source: String, title: String? = nil, generatedAt: Date, table: ItemTable, rejected: [Rejection],
        albums: [Album]? = nil
    ) {
        self.source = source
        self.title = title
        self.generatedAt = generatedAt
        self.table = table
        self.rejected = rejected
        self.albums = albums
    }

    private enum CodingKeys: String, CodingKey {
        case schema, source, title, generatedAt, items, rejected, albums
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schema = try container.decode(String.self, forKey: .schema)
        source = try container.decode(String.self, forKey: .source)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        generatedAt = try container.decode(Date.self, forKey: .generatedAt)
        table = ItemTable(try container.decode([Item].self, forKey: .items))
        rejected = try container.decode([Rejection].self, forKey: .rejected)
        albums = try container.decodeIfPresent([Album].self, forKey: .albums)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(schema, forKey: .schema)
        try container.encode(source, forKey: .source)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encode(generatedAt, forKey: .generatedAt)
        try container.encode(items, forKey: .items)
        try container.encode(rejected, forKey: .rejected)
        try container.encodeIfPresent(albums, forKey: .albums)
    }

    /// Pretty, key-sorted JSON with second-precision UTC dates: byte-identical for equal input.
    /// The manifest as `JSONCoding` writes it, byte for byte.
    package func encoded() throws -> Data {
        var output = Data()
        try write { output.append(contentsOf: $0) }
        return output
    }

    /// Hands the encoded manifest to `sink` piece by piece: the skeleton (every field, no
    /// items) from `JSONCoding`, the items written into it by `JSONStream` in the encoder's exact
    /// format (`Item.write(into:)`). The result equals `JSONCoding.encode(self)` (tested).
    package func write(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        var skeleton = self
        skeleton.table = ItemTable()
        try JSONStream.write(
            skeleton: JSONCoding.encode(skeleton),
            filling: [JSONStream.List("items", indent: 2, elements: table)],
            element: { item, out in item.write(into: &out) },
            whole: { try JSONCoding.encode(self) },
            into: sink
        )
    }

    /// Reads the manifest at `url`: a piece at a time (`JSONMemberScanner`), each item read by
    /// `Item.read` into the table, the other members (a few, and `rejected`) by the decoder.
    /// Decoded whole, `JSONDecoder` kept a map of every value of the file while it made every
    /// item: most of a no-op sync's time in reading, and the peak of a worker that starts from
    /// a bucket's manifest.
    /// - Throws: a file error, or `StoreError` for a file that is not a manifest this version
    ///   reads (not JSON, an item or member that does not decode, another schema).
    public static func read(from url: URL) throws -> Manifest {
        var table = ItemTable()
        var manifest: Manifest
        do {
            let members = try JSONMemberScanner.scan(file: url, arrays: ["items"]) { _, element in
                do {
                    table.append(try Item.read(element))
                } catch {
                    throw StoreError(.format, "item \(table.count + 1): \(JSONCoding.describe(error))")
                }
            }
            guard members["items"] != nil else { throw StoreError(.format, "no items") }
            // The other members as they were, with `items` empty: the manifest's own decoder reads them.
            var skeleton = Array("{".utf8)
            for (name, value) in members {
                if skeleton.count > 1 { skeleton.append(UInt8(ascii: ",")) }
                skeleton.append(contentsOf: "\"\(name)\":".utf8)
                skeleton.append(contentsOf: name == "items" ? Array("[]".utf8) : value)
            }
            skeleton.append(UInt8(ascii: "}"))
            do {
                manifest = try JSONCoding.decode(Manifest.self, from: Data(skeleton))
            } catch {
                throw StoreError(.format, JSONCoding.describe(error))
            }
        } catch let malformed as JSONMemberScanner.Malformed {
            throw StoreError(.format, "not well-formed JSON (\(malformed))")
        }
        guard manifest.schema == schemaName else {
            throw StoreError(.format, "unknown manifest schema \"\(manifest.schema)\" (expected \(schemaName))")
        }
        manifest.table = table
        return manifest
    }
}

extension Manifest.Item {
    /// The item's fields of what its file says about itself, as one value; nil when it has none.
    /// Setting it sets each of those fields (nil clears them).
    package var embedded: EmbeddedMetadata? {
        get {
            var metadata = EmbeddedMetadata()
            metadata.taken = taken
            metadata.camera = camera
            metadata.lens = lens
            metadata.exposure = exposure
            metadata.keywords = keywords
            metadata.creator = creator
            metadata.copyright = copyright
            metadata.location = location
            return metadata.isEmpty ? nil : metadata
        }
        set {
            taken = newValue?.taken
            camera = newValue?.camera
            lens = newValue?.lens
            exposure = newValue?.exposure
            keywords = newValue?.keywords
            creator = newValue?.creator
            copyright = newValue?.copyright
            location = newValue?.location
        }
    }
}
