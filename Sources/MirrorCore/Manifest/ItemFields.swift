import Foundation

extension Manifest.Item {
    /// The fields of an item as `manifest.json` names them: the one list of them. It is the
    /// item's `CodingKeys`, so `JSONEncoder` and `JSONDecoder` use it; the writer writes the
    /// fields in its order (`write(into:)`), the reader reads a member into its field
    /// (`read(_:from:)`), and `ItemTable` keeps and gives back each field (`store`, `load`),
    /// each through a `switch` with no `default`: a new case is one edit here, and the compiler
    /// names every place that must say how it is written, read and kept. `ManifestFieldTests`
    /// checks that each field survives every one of them.
    ///
    /// In UTF-8 byte order of the names, the order `.sortedKeys` writes them in, and at most 64
    /// (a bit each in `members`): both tested.
    package enum Field: String, CodingKey, CaseIterable, Sendable {
        case album, bytes, camera, captionFrom, contentType, copyright, creator, etag, exposure, fingerprint, firstSeen
        case height, key, keywords, lastChecked, lastModified, lens, location, metadata, path, sha256, taken, title
        case titleFrom, variantOf, width

        /// Every field, in order (`allCases` makes a new array each time it is asked).
        package static let all = allCases
        /// The UTF-8 bytes of each field's name, by its number in `all`.
        static let names = all.map { Array($0.rawValue.utf8) }
        /// The fields an item must have, a bit each by number.
        static let required = all.enumerated().reduce(UInt64(0)) { $1.element.isRequired ? $0 | 1 << $1.offset : $0 }

        /// Whether every item has the field; the others are left out of the file when nil.
        var isRequired: Bool {
            switch self {
            case .bytes, .contentType, .firstSeen, .key, .lastChecked, .path, .sha256: true
            case .album, .camera, .captionFrom, .copyright, .creator, .etag, .exposure, .fingerprint, .height, .keywords,
                .lastModified, .lens, .location, .metadata, .taken, .title, .titleFrom, .variantOf, .width:
                false
            }
        }

        /// Reads the object at `cursor` (an element of `items`), handing `body` each member that
        /// names a field with the cursor at its value, which `body` must read or skip; members
        /// that name no field are skipped. Returns the fields seen, a bit each by number.
        package static func members(
            of cursor: inout JSONCursor, _ body: (Field, inout JSONCursor) throws -> Void
        ) throws -> UInt64 {
            var seen: UInt64 = 0
            var next = 0
            try cursor.object { name, cursor in
                guard let number = number(named: name, guess: next) else { return try cursor.skipValue() }
                seen |= 1 << number
                next = number + 1
                try body(all[number], &cursor)
            }
            return seen
        }

        /// The number of the field called `name`: `guess` first (the field after the last one,
        /// as the writer orders them), then any.
        private static func number(named name: UnsafeBufferPointer<UInt8>, guess: Int) -> Int? {
            func isNamed(_ number: Int) -> Bool {
                names[number].count == name.count
                    && names[number].withUnsafeBufferPointer { memcmp($0.baseAddress!, name.baseAddress!, name.count) == 0 }
            }
            if guess < names.count, isNamed(guess) { return guess }
            return names.indices.first(where: isNamed)
        }
    }

    /// A member of an item that is not what this version writes (wrong type, a field missing):
    /// what makes `read` hand the element to the decoder.
    private struct Unexpected: Error {}

    /// The item of one element of `items`: read with `JSONCursor` when it has the shape this
    /// version writes (any member order, spacing and escapes), by `JSONDecoder` otherwise (a
    /// `null`, a number written as text...), whose error says what is wrong.
    package static func read(_ element: ArraySlice<UInt8>) throws -> Manifest.Item {
        do {
            return try readWritten(element)
        } catch {
            return try JSONCoding.decode(Manifest.Item.self, from: Data(element))
        }
    }

    /// `read` without the decoder: throws for anything it does not read.
    package static func readWritten(_ element: ArraySlice<UInt8>) throws -> Manifest.Item {
        var item = Manifest.Item(
            key: "", path: "", sha256: "", bytes: 0, contentType: "", firstSeen: .distantPast, lastChecked: .distantPast)
        let seen = try JSONCursor.reading(element) { cursor in
            try Field.members(of: &cursor) { field, cursor in try item.read(field, from: &cursor) }
        }
        guard seen & Field.required == Field.required else { throw Unexpected() }
        return item
    }

    /// Reads the value at `cursor` into `field`.
    mutating func read(_ field: Field, from cursor: inout JSONCursor) throws {
        func date() throws -> Date {
            guard let date = Timestamp.date(try cursor.string()) else { throw Unexpected() }
            return date
        }
        func source() throws -> Manifest.TextSource {
            guard let source = Manifest.TextSource(rawValue: try cursor.string()) else { throw Unexpected() }
            return source
        }
        switch field {
        case .album: album = try cursor.string()
        case .bytes: bytes = try cursor.integer()
        case .camera: camera = try cursor.string()
        case .captionFrom: captionFrom = try source()
        case .contentType: contentType = try cursor.string()
        case .copyright: copyright = try cursor.string()
        case .creator: creator = try cursor.string()
        case .etag: etag = try cursor.string()
        case .exposure:
            var exposure = EmbeddedMetadata.Exposure()
            try cursor.object { name, cursor in
                switch String(decoding: name, as: UTF8.self) {
                case "aperture": exposure.aperture = try cursor.double()
                case "exposureTime": exposure.exposureTime = try cursor.string()
                case "focalLength": exposure.focalLength = try cursor.double()
                case "iso": exposure.iso = try cursor.integer()
                default: throw Unexpected()
                }
            }
            self.exposure = exposure
        case .fingerprint: fingerprint = try cursor.string()
        case .firstSeen: firstSeen = try date()
        case .height: height = try cursor.integer()
        case .key: key = try cursor.string()
        case .keywords:
            var keywords: [String] = []
            try cursor.array { keywords.append(try $0.string()) }
            self.keywords = keywords
        case .lastChecked: lastChecked = try date()
        case .lastModified: lastModified = try cursor.string()
        case .lens: lens = try cursor.string()
        case .location:
            var latitude: Double?
            var longitude: Double?
            try cursor.object { name, cursor in
                switch String(decoding: name, as: UTF8.self) {
                case "latitude": latitude = try cursor.double()
                case "longitude": longitude = try cursor.double()
                default: throw Unexpected()
                }
            }
            guard let latitude, let longitude else { throw Unexpected() }
            location = EmbeddedMetadata.Location(written: latitude, longitude)
        case .metadata:
            var metadata: [String: String] = [:]
            try cursor.object { name, cursor in
                guard let name = String(validating: name, as: UTF8.self) else { throw Unexpected() }
                metadata[name] = try cursor.string()
            }
            self.metadata = metadata
        case .path: path = try cursor.string()
        case .sha256: sha256 = try cursor.string()
        case .taken: taken = try cursor.string()
        case .title: title = try cursor.string()
        case .titleFrom: titleFrom = try source()
        case .variantOf: variantOf = try cursor.string()
        case .width: width = try cursor.integer()
        }
    }

    /// The item as `JSONCoding` writes it inside the manifest's `items` (indented four spaces,
    /// its fields six), appended to `out`: each field of `Field.all` that has a value, in that
    /// order.
    ///
    /// Written by hand because `JSONEncoder` first builds a tree of boxed values for every item
    /// and then sorts each object's keys, work a schema fixed here does not need, on every
    /// item of every sync. The format is the encoder's (FoundationEssentials `JSONWriter`):
    /// `"key" : value`, keys in UTF-8 byte order, fields that are nil left out, `/` not escaped,
    /// control characters as `\b \f \n \r \t` or `\u00XX`, everything else as its UTF-8 bytes.
    /// `ManifestTests` checks the output against the encoder's on awkward values.
    func write(into out: inout [UInt8]) {
        var first = true
        for (number, field) in Field.all.enumerated() {
            let start = out.count
            out.append(contentsOf: first ? Self.openObject : Self.nextField)
            out.append(0x22)
            out.append(contentsOf: Field.names[number])
            out.append(contentsOf: Self.separator)
            if write(field, into: &out) {
                first = false
            } else {
                out.removeLast(out.count - start)
            }
        }
        out.append(contentsOf: Self.closeObject)
    }

    /// Appends the value of `field`; false, with nothing appended, when it has none.
    private func write(_ field: Field, into out: inout [UInt8]) -> Bool {
        func string(_ value: String?) -> Bool {
            guard let value else { return false }
            JSONText.appendQuoted(value, to: &out)
            return true
        }
        func integer(_ value: (some BinaryInteger)?) -> Bool {
            guard let value else { return false }
            out.append(contentsOf: String(value).utf8)
            return true
        }
        func number(_ value: Double) { out.append(contentsOf: JSONText.number(value).utf8) }
        /// A member of a nested object, up to its value: `"name" : `.
        func member(_ name: StaticString, first: inout Bool) {
            out.append(contentsOf: first ? Self.openNested : Self.nextNested)
            first = false
            out.append(0x22)
            out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            out.append(contentsOf: Self.separator)
        }
        switch field {
        case .album: return string(album)
        case .bytes: return integer(bytes)
        case .camera: return string(camera)
        case .captionFrom: return string(captionFrom?.rawValue)
        case .contentType: return string(contentType)
        case .copyright: return string(copyright)
        case .creator: return string(creator)
        case .etag: return string(etag)
        case .exposure:
            guard let exposure else { return false }
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
            return true
        case .fingerprint: return string(fingerprint)
        case .firstSeen: return string(Timestamp.string(firstSeen))
        case .height: return integer(height)
        case .key: return string(key)
        case .keywords:
            guard let keywords else { return false }
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
            return true
        case .lastChecked: return string(Timestamp.string(lastChecked))
        case .lastModified: return string(lastModified)
        case .lens: return string(lens)
        case .location:
            guard let location else { return false }
            out.append(0x7B)
            var firstMember = true
            member("latitude", first: &firstMember)
            number(location.latitude)
            member("longitude", first: &firstMember)
            number(location.longitude)
            out.append(contentsOf: Self.closeNested)
            return true
        case .metadata:
            guard let metadata else { return false }
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
            return true
        case .path: return string(path)
        case .sha256: return string(sha256)
        case .taken: return string(taken)
        case .title: return string(title)
        case .titleFrom: return string(titleFrom?.rawValue)
        case .variantOf: return string(variantOf)
        case .width: return integer(width)
        }
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
