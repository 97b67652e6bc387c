import Foundation

/// `manifest.json`, as docs/reference.md fixes it (`catalog-mirror/manifest@1`).
public struct Manifest: Codable, Sendable, Equatable {
    /// The value of `schema` this version writes and reads.
    public static let schemaName = "catalog-mirror/manifest@1"

    /// One published image.
    public struct Item: Codable, Sendable, Equatable {
        /// The image's canonical URL.
        public var key: String
        /// Where the file is, relative to the mirror directory (`images/<name>`).
        public var path: String
        /// SHA-256 of the file's bytes, lower-case hex.
        public var sha256: String
        /// The file's size in bytes.
        public var bytes: Int64
        /// The media type the bytes were checked to be (`image/png`...).
        public var contentType: String
        /// The photo's title, as the source gives it.
        public var title: String?
        /// Other catalog text the source gives (price, caption, alt...); nil when there is none.
        public var metadata: [String: String]?
        /// The canonical URL of the page (in crawl order) where the photo was first found.
        public var album: String?
        /// On a smaller rendition of a photo: the key of that photo's largest published rendition.
        public var variantOf: String?
        /// The `ETag` the server last sent, for conditional requests.
        public var etag: String?
        /// The `Last-Modified` the server last sent.
        public var lastModified: String?
        /// When a run first published this key.
        public var firstSeen: Date
        /// When a run last confirmed the file current (downloaded or answered 304).
        public var lastChecked: Date
        /// The image's width in pixels as shown (read from its header); nil when unknown.
        public var width: Int? = nil
        /// The image's height in pixels as shown; nil when unknown.
        public var height: Int? = nil
        /// When the photo was taken, from its file (`EmbeddedMetadata.taken`): ISO 8601, with
        /// its offset when the file gives one.
        public var taken: String? = nil
        /// The camera the file names.
        public var camera: String? = nil
        /// The lens the file names.
        public var lens: String? = nil
        /// Focal length, aperture, exposure time and ISO, as the file gives them.
        public var exposure: EmbeddedMetadata.Exposure? = nil
        /// The file's keywords.
        public var keywords: [String]? = nil
        /// Who made the photo, as the file says.
        public var creator: String? = nil
        /// The file's copyright notice.
        public var copyright: String? = nil
        /// Where the photo was taken, in decimal degrees; never written with `--strip-location`.
        public var location: EmbeddedMetadata.Location? = nil
        /// Where `title` came from: the source's pages, the file's own metadata, or its name.
        public var titleFrom: TextSource? = nil
        /// The perceptual signature of the image's pixels (224 hex digits: a 256-bit difference
        /// hash, which of its bits are edges, and a 4 × 4 colour layout; `MirrorPixels.PixelFingerprint`), where it was
        /// computed: for the images compared with another rendition of their photo.
        public var fingerprint: String? = nil
        /// Where the caption in `metadata` came from: the source's pages or the file's own
        /// metadata (`metadata["caption"]`); nil when the photo has none.
        public var captionFrom: TextSource? = nil

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
    public enum TextSource: String, Codable, Sendable, Equatable {
        /// The source's pages, feeds or listings: the photo's own text there.
        case page
        /// The image file's own metadata (IPTC or XMP; a caption also EXIF's description).
        case file
        /// Words made from the file's name (titles only).
        case name
    }

    /// A page of the source that holds a published photo.
    public struct Album: Codable, Sendable, Equatable {
        /// The page's canonical URL.
        public var url: String
        /// The page's title, as the source titles it.
        public var title: String?
        /// The key of the image the source shows for the album where it links to it (its cover,
        /// on the page above it): the album's picture on the generated site. Nil when the source
        /// shows none; left out of the file then.
        public var cover: String? = nil

        package init(url: String, title: String? = nil, cover: String? = nil) {
            self.url = url
            self.title = title
            self.cover = cover
        }
    }

    /// One key seen and not published.
    public struct Rejection: Codable, Sendable, Equatable {
        /// The key's canonical URL.
        public var key: String
        /// Why it was not published: a kebab-case reason (`not-an-image`, `http-404`...).
        public var reason: String

        package init(key: String, reason: String) {
            self.key = key
            self.reason = reason
        }
    }

    /// `catalog-mirror/manifest@1`.
    public var schema: String = Manifest.schemaName
    /// The source URL the mirror was made from.
    public var source: String
    /// The source's title (its start page's `<title>`), when it has one.
    public var title: String?
    /// When the run that wrote the manifest started publishing.
    public var generatedAt: Date
    /// Sorted by key in byte order.
    public var items: [Item] {
        get { Array(table) }
        set { table = ItemTable(newValue) }
    }
    /// The items as a run holds them: packed (`ItemTable`), each made whole when it is read.
    package var table: ItemTable
    /// Sorted by key in byte order.
    public var rejected: [Rejection]
    /// Every page that holds a published photo, in crawl order. Nil in manifests written before
    /// albums were kept.
    public var albums: [Album]?

    public init(
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
    public func encoded() throws -> Data {
        var output = Data()
        try write { output.append(contentsOf: $0) }
        return output
    }

    /// Hands the encoded manifest to `sink` piece by piece: the skeleton (every field, no
    /// items) from `JSONCoding`, the items written into it by `JSONStream` in the encoder's exact
    /// format (`Item.write(into:)`). The result equals `JSONCoding.encode(self)` (tested).
    public func write(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
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

    /// Reads the manifest at `url`.
    /// - Throws: a file or JSON error, or `StoreError` for a schema this version does not know.
    public static func read(from url: URL) throws -> Manifest {
        let manifest = try JSONCoding.decode(Manifest.self, from: Data(contentsOf: url))
        guard manifest.schema == schemaName else {
            throw StoreError(.format, "unknown manifest schema \"\(manifest.schema)\" (expected \(schemaName))")
        }
        return manifest
    }
}

extension Manifest.Item {
    /// The item as `JSONCoding` writes it inside the manifest's `items` (indented four spaces,
    /// its fields six), appended to `out`.
    ///
    /// Written by hand because `JSONEncoder` first builds a tree of boxed values for every item
    /// and then sorts each object's keys, work a schema fixed here does not need, on every
    /// item of every sync. The format is the encoder's (FoundationEssentials `JSONWriter`):
    /// `"key" : value`, keys in UTF-8 byte order, fields that are nil left out, `/` not escaped,
    /// control characters as `\b \f \n \r \t` or `\u00XX`, everything else as its UTF-8 bytes.
    /// `PublishTests` checks the output against the encoder's on awkward values.
    func write(into out: inout [UInt8]) {
        var first = true
        func field(_ name: StaticString) {
            out.append(contentsOf: first ? Self.openObject : Self.nextField)
            first = false
            out.append(0x22)
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: Self.separator)
        }
        func string(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            field(name)
            JSONText.appendQuoted(value, to: &out)
        }
        // In UTF-8 byte order of the names, as `.sortedKeys` puts them.
        func number(_ value: Double) {
            out.append(contentsOf: JSONText.number(value).utf8)
        }
        /// A member of a nested object, up to its value: `"name" : `.
        func member(_ name: StaticString, first: inout Bool) {
            out.append(contentsOf: first ? Self.openNested : Self.nextNested)
            first = false
            out.append(0x22)
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: Self.separator)
        }
        string("album", album)
        field("bytes")
        out.append(contentsOf: String(bytes).utf8)
        string("camera", camera)
        string("captionFrom", captionFrom?.rawValue)
        string("contentType", contentType)
        string("copyright", copyright)
        string("creator", creator)
        string("etag", etag)
        if let exposure {
            field("exposure")
            out.append(0x7B)
            var firstMember = true
            if let aperture = exposure.aperture {
                member("aperture", first: &firstMember)
                number(aperture)
            }
            if let time = exposure.exposureTime {
                member("exposureTime", first: &firstMember)
                JSONText.appendQuoted(time, to: &out)
            }
            if let focal = exposure.focalLength {
                member("focalLength", first: &firstMember)
                number(focal)
            }
            if let iso = exposure.iso {
                member("iso", first: &firstMember)
                out.append(contentsOf: String(iso).utf8)
            }
            out.append(contentsOf: firstMember ? Self.emptyNested : Self.closeNested)
        }
        string("fingerprint", fingerprint)
        string("firstSeen", Timestamp.string(firstSeen))
        if let height {
            field("height")
            out.append(contentsOf: String(height).utf8)
        }
        string("key", key)
        if let keywords {
            field("keywords")
            out.append(0x5B)
            if keywords.isEmpty {
                out.append(contentsOf: [0x0A, 0x0A, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x5D])
            } else {
                for (index, keyword) in keywords.enumerated() {
                    out.append(contentsOf: index == 0 ? Self.openNested : Self.nextNested)
                    JSONText.appendQuoted(keyword, to: &out)
                }
                out.append(contentsOf: Self.closeList)
            }
        }
        string("lastChecked", Timestamp.string(lastChecked))
        string("lastModified", lastModified)
        string("lens", lens)
        if let location {
            field("location")
            out.append(0x7B)
            var firstMember = true
            member("latitude", first: &firstMember)
            number(location.latitude)
            member("longitude", first: &firstMember)
            number(location.longitude)
            out.append(contentsOf: Self.closeNested)
        }
        if let metadata {
            field("metadata")
            out.append(0x7B)
            if metadata.isEmpty {
                out.append(contentsOf: [0x0A, 0x0A, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x7D])
            } else {
                var firstEntry = true
                for (name, value) in metadata.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                    out.append(contentsOf: firstEntry ? Self.openNested : Self.nextNested)
                    firstEntry = false
                    JSONText.appendQuoted(name, to: &out)
                    out.append(contentsOf: [0x20, 0x3A, 0x20])
                    JSONText.appendQuoted(value, to: &out)
                }
                out.append(contentsOf: Self.closeNested)
            }
        }
        string("path", path)
        string("sha256", sha256)
        string("taken", taken)
        string("title", title)
        string("titleFrom", titleFrom?.rawValue)
        string("variantOf", variantOf)
        if let width {
            field("width")
            out.append(contentsOf: String(width).utf8)
        }
        out.append(contentsOf: Self.closeObject)
    }

    /// `    {` and the first field's indent.
    private static let openObject = Array("    {\n      ".utf8)
    private static let nextField = Array(",\n      ".utf8)
    private static let separator = Array("\" : ".utf8)
    private static let closeObject = Array("\n    }".utf8)
    private static let openNested = Array("\n        ".utf8)
    private static let nextNested = Array(",\n        ".utf8)
    private static let closeNested = Array("\n      }".utf8)
    private static let closeList = Array("\n      ]".utf8)
    /// The inside and end of an empty nested object, as the encoder writes it.
    private static let emptyNested = Array("\n\n      }".utf8)
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
