import Foundation

/// The items of a manifest, packed column by column: the texts of every item (path, ETag,
/// Last-Modified) back to back in 1 MB chunks, each hash in 32 bytes, numbers and dates in
/// arrays of their own.
///
/// A run holds every item it publishes from the publish plan to the end of publishing. As
/// `[Manifest.Item]` that was the value, and its path, hash and date strings in an allocation
/// each. Packed it is less than half that, with no allocation of its own per item: the key
/// strings share the catalog's storage, an album is a number, and `variantOf` the number of the
/// item it names. An item is made whole only when asked for (`subscript`), one at a time.
package struct ItemTable: Sendable, Equatable, RandomAccessCollection {
    package private(set) var keys: [String] = []
    /// Path, ETag and Last-Modified of each item, back to back, in chunks of `chunkSize` bytes
    /// (an item's texts are never split). A chunk never grows past its first capacity: one
    /// buffer doubled as it filled was up to twice the size of the texts, and both copies were
    /// live while it grew.
    private var chunks: [[UInt8]] = []
    /// Per item: its chunk (high 32 bits) and where its texts start in it.
    private var textStarts: [UInt64] = []
    /// Per item: the lengths of its path, ETag and Last-Modified.
    private var textLengths: [UInt32] = []
    private static let chunkSize = 1 << 20
    /// Bit 0: the item has an ETag; bit 1: a Last-Modified (an empty one is not none).
    private var flags: [UInt8] = []
    /// 32 bytes an item; a hash that is not 64 lower-case hex digits is kept whole in `oddHashes`.
    private var hashes: [UInt8] = []
    private var oddHashes: [Int32: String] = [:]
    private var byteCounts: [Int64] = []
    /// Media types by number: a run has a handful.
    private var contentTypes: [UInt16] = []
    private var typeNames: [String] = []
    private var typeNumbers: [String: UInt16] = [:]
    private var titles: [String?] = []
    /// Only the items that have metadata.
    private var metadata: [Int32: [String: String]] = [:]
    /// Albums by number (a run has one per page that holds a photo); -1 for none.
    private var albums: [Int32] = []
    private var albumNames: [String] = []
    private var albumNumbers: [String: Int32] = [:]
    /// `variantOf` as the number of the item it names; -1 for none, -2 for one given as text
    /// (an item appended whole), kept as written in `variantTexts`.
    private var variants: [Int32] = []
    private var variantTexts: [Int32: String] = [:]
    private var firstSeen: [Date] = []
    private var lastChecked: [Date] = []
    /// Width and height of each item, two numbers an item; 0 for unknown.
    private var sizes: [UInt32] = []
    /// Per item: where its title came from (bits 0-1: 0 none, then `TextSource` 1 page, 2 file,
    /// 3 name) and its caption (bits 2-3, the same numbers).
    private var sources: [UInt8] = []
    /// What the files say about themselves (the manifest's fields of it only), for the items
    /// whose file says something.
    private var embedded: [Int32: EmbeddedMetadata] = [:]
    /// The pixels' signature, for the items that have one (those compared with a rendition).
    private var fingerprints: [Int32: String] = [:]

    package init() {}

    init(_ items: some Sequence<Manifest.Item>) {
        for item in items { append(item) }
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { keys.count }

    /// The item at `index`, made whole: each field of `Manifest.Item.Field` loaded from its column.
    package subscript(index: Int) -> Manifest.Item {
        var item = Manifest.Item(
            key: keys[index], path: path(at: index), sha256: sha256(at: index), bytes: byteCounts[index],
            contentType: contentType(at: index), firstSeen: firstSeen[index], lastChecked: lastChecked[index])
        for field in Manifest.Item.Field.all { load(field, into: &item, at: index) }
        return item
    }

    /// Sets `field` of `item` from the columns of the item at `index`.
    private func load(_ field: Manifest.Item.Field, into item: inout Manifest.Item, at index: Int) {
        switch field {
        case .bytes, .contentType, .firstSeen, .key, .lastChecked, .path, .sha256: break  // Every item has them: in the `init`.
        case .camera, .copyright, .creator, .keywords, .lens, .location, .taken: break  // Set with `exposure`.
        case .exposure: if let embedded = embedded[Int32(index)] { item.embedded = embedded }
        case .album: item.album = album(at: index)
        case .captionFrom: item.captionFrom = captionSource(at: index)
        case .etag: item.etag = etag(at: index)
        case .fingerprint: item.fingerprint = fingerprints[Int32(index)]
        case .height: item.height = dimensions(at: index)?.height
        case .lastModified: item.lastModified = lastModified(at: index)
        case .metadata: item.metadata = metadata(at: index)
        case .title: item.title = titles[index]
        case .titleFrom: item.titleFrom = titleSource(at: index)
        case .variantOf: item.variantOf = variantOf(at: index)
        case .width: item.width = dimensions(at: index)?.width
        }
    }

    package mutating func reserveCapacity(_ count: Int) {
        keys.reserveCapacity(count)
        textStarts.reserveCapacity(count)
        textLengths.reserveCapacity(3 * count)
        flags.reserveCapacity(count)
        hashes.reserveCapacity(32 * count)
        byteCounts.reserveCapacity(count)
        contentTypes.reserveCapacity(count)
        titles.reserveCapacity(count)
        albums.reserveCapacity(count)
        variants.reserveCapacity(count)
        firstSeen.reserveCapacity(count)
        lastChecked.reserveCapacity(count)
        sizes.reserveCapacity(2 * count)
        sources.reserveCapacity(count)
    }

    /// Appends `item`: its row (`append(key:…)`), then each field of `Manifest.Item.Field`
    /// that the row does not take.
    package mutating func append(_ item: Manifest.Item) {
        append(
            key: item.key, path: item.path, sha256: item.sha256, bytes: item.bytes, contentType: item.contentType,
            title: item.title, metadata: item.metadata, etag: item.etag, lastModified: item.lastModified,
            firstSeen: item.firstSeen, lastChecked: item.lastChecked, dimensions: item.dimensions, embedded: item.embedded)
        for field in Manifest.Item.Field.all { store(field, of: item, at: count - 1) }
    }

    /// Keeps `field` of `item` as the item at `index`, when its row did not.
    private mutating func store(_ field: Manifest.Item.Field, of item: Manifest.Item, at index: Int) {
        switch field {
        case .bytes, .contentType, .etag, .firstSeen, .height, .key, .lastChecked, .lastModified, .metadata, .path, .sha256,
            .title, .width:
            break  // In the row.
        case .camera, .copyright, .creator, .exposure, .keywords, .lens, .location, .taken:
            break  // In the row's `embedded`.
        case .album: setAlbum(item.album, at: index)
        case .captionFrom: setCaptionSource(item.captionFrom, at: index)
        case .fingerprint: setFingerprint(item.fingerprint, at: index)
        case .titleFrom: setTitle(item.title, from: item.titleFrom, at: index)
        case .variantOf:
            guard let key = item.variantOf else { break }
            variants[index] = -2
            variantTexts[Int32(index)] = key
        }
    }

    package mutating func append(
        key: String, path: String, sha256: String, bytes: Int64, contentType: String, title: String?,
        metadata: [String: String]?, etag: String?, lastModified: String?, firstSeen: Date, lastChecked: Date,
        dimensions: ImageDimensions? = nil, embedded: EmbeddedMetadata? = nil
    ) {
        let index = Int32(keys.count)
        keys.append(key)
        let texts = (path.utf8, (etag ?? "").utf8, (lastModified ?? "").utf8)
        let length = texts.0.count + texts.1.count + texts.2.count
        if chunks.isEmpty || chunks[chunks.count - 1].count + length > Self.chunkSize {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(Swift.max(Self.chunkSize, length))
            chunks.append(chunk)
        }
        let last = chunks.count - 1
        textStarts.append(UInt64(last) << 32 | UInt64(chunks[last].count))
        chunks[last].append(contentsOf: texts.0)
        chunks[last].append(contentsOf: texts.1)
        chunks[last].append(contentsOf: texts.2)
        textLengths.append(UInt32(texts.0.count))
        textLengths.append(UInt32(texts.1.count))
        textLengths.append(UInt32(texts.2.count))
        flags.append((etag == nil ? 0 : 1) | (lastModified == nil ? 0 : 2))
        if !Self.appendHex(sha256, to: &hashes) {
            hashes.append(contentsOf: repeatElement(0, count: 32))
            oddHashes[index] = sha256
        }
        byteCounts.append(bytes)
        if let number = typeNumbers[contentType] {
            contentTypes.append(number)
        } else {
            let number = UInt16(clamping: typeNames.count)
            typeNames.append(contentType)
            typeNumbers[contentType] = number
            contentTypes.append(number)
        }
        titles.append(title)
        if let metadata { self.metadata[index] = metadata }
        albums.append(-1)
        variants.append(-1)
        self.firstSeen.append(firstSeen)
        self.lastChecked.append(lastChecked)
        sizes.append(UInt32(clamping: dimensions?.width ?? 0))
        sizes.append(UInt32(clamping: dimensions?.height ?? 0))
        sources.append(0)
        if let embedded = embedded.map(Self.published), !embedded.isEmpty { self.embedded[index] = embedded }
    }

    /// The fields of `metadata` the manifest publishes (no title, caption or notes).
    private static func published(_ metadata: EmbeddedMetadata) -> EmbeddedMetadata {
        var kept = EmbeddedMetadata()
        kept.taken = metadata.taken
        kept.camera = metadata.camera
        kept.lens = metadata.lens
        kept.exposure = metadata.exposure.flatMap { $0.isEmpty ? nil : $0 }
        kept.keywords = metadata.keywords
        kept.creator = metadata.creator
        kept.copyright = metadata.copyright
        kept.location = metadata.location
        return kept
    }

    // MARK: - Fields

    package func key(at index: Int) -> String { keys[index] }
    package func bytes(at index: Int) -> Int64 { byteCounts[index] }
    package func title(at index: Int) -> String? { titles[index] }
    package func firstSeen(at index: Int) -> Date { firstSeen[index] }

    /// The item's size in pixels, when known.
    package func dimensions(at index: Int) -> ImageDimensions? {
        ImageDimensions.checked(width: Int(sizes[2 * index]), height: Int(sizes[2 * index + 1]))
    }
    /// What the item's file says about itself (the manifest's fields), when it says something.
    package func embedded(at index: Int) -> EmbeddedMetadata? { embedded[Int32(index)] }

    /// The pixels' signature of the item at `index`, where it was computed.
    package func fingerprint(at index: Int) -> String? { fingerprints[Int32(index)] }

    /// Sets the pixels' signature of the item at `index`.
    package mutating func setFingerprint(_ fingerprint: String?, at index: Int) {
        fingerprints[Int32(index)] = fingerprint
    }
    func titleSource(at index: Int) -> Manifest.TextSource? { Self.source(sources[index] & 3) }
    func captionSource(at index: Int) -> Manifest.TextSource? { Self.source(sources[index] >> 2 & 3) }

    private static func source(_ number: UInt8) -> Manifest.TextSource? {
        switch number {
        case 1: .page
        case 2: .file
        case 3: .name
        default: nil
        }
    }

    private static func number(_ source: Manifest.TextSource?) -> UInt8 {
        switch source {
        case nil: 0
        case .page: 1
        case .file: 2
        case .name: 3
        }
    }
    package func album(at index: Int) -> String? { albums[index] < 0 ? nil : albumNames[Int(albums[index])] }

    func variantOf(at index: Int) -> String? {
        switch variants[index] {
        case -1: nil
        case -2: variantTexts[Int32(index)]
        case let item: keys[Int(item)]
        }
    }
    package func contentType(at index: Int) -> String { typeNames[Int(contentTypes[index])] }
    package func metadata(at index: Int) -> [String: String]? { metadata[Int32(index)] }
    package func path(at index: Int) -> String { textField(index, 0) }
    func etag(at index: Int) -> String? { flags[index] & 1 == 0 ? nil : textField(index, 1) }
    func lastModified(at index: Int) -> String? { flags[index] & 2 == 0 ? nil : textField(index, 2) }

    package func sha256(at index: Int) -> String {
        if let odd = oddHashes[Int32(index)] { return odd }
        return hashes[32 * index..<32 * index + 32].hexString
    }

    /// The UTF-8 bytes of the path of the item at `index`, without making it a string.
    package func pathBytes(at index: Int) -> ArraySlice<UInt8> {
        let chunk = Int(textStarts[index] >> 32)
        let start = Int(textStarts[index] & 0xFFFF_FFFF)
        return chunks[chunk][start..<start + Int(textLengths[3 * index])]
    }

    /// The item numbers in key order (byte order of the keys' UTF-8, as SQLite's `BINARY`
    /// collation sorts them): `indices` itself when the items are in that order, as a plan's are.
    package func keyOrder() -> [Int] {
        let inOrder = zip(keys, keys.dropFirst()).allSatisfy { !ByteOrder.precedes($1.utf8, $0.utf8) }
        if inOrder { return Array(indices) }
        return indices.sorted { ByteOrder.precedes(keys[$0].utf8, keys[$1].utf8) }
    }

    /// The number of the item `variantOf` names at `index`, when it was set by number.
    package func variantItem(at index: Int) -> Int? { variants[index] >= 0 ? Int(variants[index]) : nil }

    /// `variantOf` at `index` when it was given as text (items appended whole: a manifest read
    /// from a file, or made in a test), not by number.
    package func variantText(at index: Int) -> String? { variants[index] == -2 ? variantTexts[Int32(index)] : nil }

    /// Whether some `variantOf` was given as text.
    package var hasVariantTexts: Bool { !variantTexts.isEmpty }

    package mutating func setAlbum(_ album: String?, at index: Int) {
        guard let album else {
            albums[index] = -1
            return
        }
        if let number = albumNumbers[album] {
            albums[index] = number
        } else {
            let number = Int32(albumNames.count)
            albumNames.append(album)
            albumNumbers[album] = number
            albums[index] = number
        }
    }

    /// Makes the item at `index` a rendition of the item at `item` (nil: of no other item).
    package mutating func setVariantOf(item: Int?, at index: Int) {
        variantTexts[Int32(index)] = nil
        variants[index] = item.map { Int32($0) } ?? -1
    }
    mutating func setTitle(_ title: String?, at index: Int) { titles[index] = title }

    /// Sets the item's title and where it came from (nil: nowhere, the title is nil too).
    package mutating func setTitle(_ title: String?, from source: Manifest.TextSource?, at index: Int) {
        titles[index] = title
        sources[index] = sources[index] & ~3 | (title == nil ? 0 : Self.number(source))
    }

    /// Sets where the item's caption came from.
    package mutating func setCaptionSource(_ source: Manifest.TextSource?, at index: Int) {
        sources[index] = sources[index] & 3 | Self.number(source) << 2
    }

    /// Drops every item's position (`--strip-location`).
    package mutating func removeLocations() {
        for (index, var metadata) in embedded where metadata.location != nil {
            metadata.location = nil
            embedded[index] = metadata.isEmpty ? nil : metadata
        }
    }
    package mutating func setMetadata(_ value: [String: String]?, at index: Int) { metadata[Int32(index)] = value }

    /// The `field`th text (0 path, 1 ETag, 2 Last-Modified) of the item at `index`.
    private func textField(_ index: Int, _ field: Int) -> String {
        let chunk = Int(textStarts[index] >> 32)
        var start = Int(textStarts[index] & 0xFFFF_FFFF)
        for before in 0..<field { start += Int(textLengths[3 * index + before]) }
        return String(decoding: chunks[chunk][start..<start + Int(textLengths[3 * index + field])], as: UTF8.self)
    }

    /// Appends the 32 bytes `hex` spells when it is 64 lower-case hex digits (what the store
    /// writes); false, with nothing appended, otherwise.
    private static func appendHex(_ hex: String, to bytes: inout [UInt8]) -> Bool {
        guard hex.utf8.count == 64 else { return false }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            default: nil
            }
        }
        let start = bytes.count
        var high: UInt8?
        for digit in hex.utf8 {
            guard let nibble = value(digit) else {
                bytes.removeSubrange(start...)
                return false
            }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return true
    }

    /// Hands `sink` everything the items say but `lastChecked` (the one field a re-sync that
    /// changes nothing changes), column by column, each column and text length-prefixed: two
    /// tables with different contents never hand over the same bytes. Tables with the same
    /// contents filled in another order may (a false difference costs a render, never a page
    /// left stale). What the site is made of (`PageFingerprints.siteInput`), without making an
    /// item whole: most of the bytes come from a few large buffers.
    package func content(excludingLastChecked sink: (UnsafeRawBufferPointer) -> Void) {
        func count(_ value: Int) { withUnsafeBytes(of: Int64(value).littleEndian) { sink($0) } }
        func column<Element: BitwiseCopyable>(_ values: [Element]) {
            count(values.count)
            values.withUnsafeBytes { sink($0) }
        }
        func text(_ value: String?) {
            guard var value else { return count(-1) }
            value.withUTF8 { bytes in
                count(bytes.count)
                sink(UnsafeRawBufferPointer(bytes))
            }
        }
        column(textStarts)
        column(textLengths)
        column(flags)
        column(hashes)
        column(byteCounts)
        column(contentTypes)
        column(albums)
        column(variants)
        column(sizes)
        column(sources)
        column(firstSeen.map(\.timeIntervalSinceReferenceDate))
        count(chunks.count)
        for chunk in chunks { column(chunk) }
        for names in [keys, typeNames, albumNames] {
            count(names.count)
            for name in names { text(name) }
        }
        count(titles.count)
        for title in titles { text(title) }
        for table in [oddHashes, variantTexts] {
            count(table.count)
            for (index, value) in table.sorted(by: { $0.key < $1.key }) {
                count(Int(index))
                text(value)
            }
        }
        count(embedded.count)
        for (index, fields) in embedded.sorted(by: { $0.key < $1.key }) {
            func number(_ value: Double?) { text(value.map { String($0.bitPattern) }) }
            count(Int(index))
            for value in [fields.taken, fields.camera, fields.lens, fields.creator, fields.copyright] { text(value) }
            number(fields.exposure?.focalLength)
            number(fields.exposure?.aperture)
            text(fields.exposure?.exposureTime)
            text(fields.exposure?.iso.map { String($0) })
            number(fields.location?.latitude)
            number(fields.location?.longitude)
            count(fields.keywords?.count ?? -1)
            for keyword in fields.keywords ?? [] { text(keyword) }
        }
        count(metadata.count)
        for (index, fields) in metadata.sorted(by: { $0.key < $1.key }) {
            count(Int(index))
            count(fields.count)
            for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
                text(name)
                text(value)
            }
        }
    }

    /// Equal when every item is equal, however the columns came to be filled.
    package static func == (lhs: ItemTable, rhs: ItemTable) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0 == $1 }
    }
}

extension ItemTable {
    /// An added or replaced key: the number of its item in the published table, or -1 for a
    /// key a dry run only probed.
    package struct Change: Sendable, Equatable {
        package var key: String
        package var item: Int32

        package init(key: String, item: Int32) {
            self.key = key
            self.item = item
        }
    }
}
