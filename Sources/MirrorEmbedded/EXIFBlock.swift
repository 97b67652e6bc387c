import CLibEXIF
import MirrorCore

/// A photo's EXIF block read with libexif: the date taken (with its offset), camera, lens,
/// exposure, GPS position, and the description, artist and copyright of IFD0.
///
/// libexif parses the TIFF structure (byte order, IFDs, offsets, formats, counts); the values
/// it hands back are raw bytes, decoded here by their format, so nothing depends on its
/// localised text forms. It is told neither to drop tags it does not know (`OffsetTimeOriginal`
/// and `LensModel` are newer than some of its tables) nor to "fix" the block to the standard
/// (that adds mandatory tags with made-up values, the current time among them).
enum EXIFBlock {
    /// The metadata of `bytes`: a TIFF structure (`II*\0` or `MM\0*`), with or without the
    /// `Exif\0\0` header a JPEG's APP1 segment puts before it. A block libexif finds nothing in
    /// gives an empty value with a `problem`.
    static func read(_ bytes: ArraySlice<UInt8>) -> EmbeddedMetadata {
        let hasHeader = bytes.starts(with: header)
        let tiff = hasHeader ? bytes.dropFirst(header.count) : bytes
        guard hasTIFFHeader(tiff), let data = exif_data_new() else { return damaged }
        defer { exif_data_unref(data) }
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        // libexif takes the block with its `Exif\0\0` header: a JPEG's APP1 segment has it
        // (handed over as it is), a PNG's `eXIf` and a WebP's `EXIF` chunk do not (copied
        // behind one).
        let block = hasHeader ? bytes : header[...] + tiff
        block.withUnsafeBufferPointer { buffer in
            exif_data_load_data(data, buffer.baseAddress, UInt32(clamping: buffer.count))
        }
        let order = exif_data_get_byte_order(data)
        let ifds = data.pointee.ifd
        let fields = Fields(order: order, main: ifds.0, exif: ifds.2, gps: ifds.3)
        // A valid block may hold no entry at all (GIMP writes an empty IFD0): nothing to say.
        guard fields.hasEntries else { return EmbeddedMetadata() }

        var metadata = EmbeddedMetadata()
        metadata.taken = takenDate(
            fields.text(EXIF_TAG_DATE_TIME_ORIGINAL, in: .exif) ?? fields.text(EXIF_TAG_DATE_TIME_DIGITIZED, in: .exif),
            offset: fields.text(EXIF_TAG_OFFSET_TIME_ORIGINAL, in: .exif)
                ?? fields.text(EXIF_TAG_OFFSET_TIME_DIGITIZED, in: .exif))
        metadata.camera = camera(make: fields.text(EXIF_TAG_MAKE, in: .main), model: fields.text(EXIF_TAG_MODEL, in: .main))
        metadata.lens = EmbeddedMetadata.cleaned(fields.text(EXIF_TAG_LENS_MODEL, in: .exif))
        let exposure = EmbeddedMetadata.Exposure(
            focalLength: fields.rational(EXIF_TAG_FOCAL_LENGTH, in: .exif).flatMap { rounded($0, places: 1) },
            aperture: fields.rational(EXIF_TAG_FNUMBER, in: .exif).flatMap { rounded($0, places: 1) },
            exposureTime: fields.rational(EXIF_TAG_EXPOSURE_TIME, in: .exif).flatMap(exposureTime),
            iso: fields.integer(EXIF_TAG_ISO_SPEED_RATINGS, in: .exif).flatMap { $0 > 0 ? $0 : nil })
        metadata.exposure = exposure.isEmpty ? nil : exposure
        metadata.caption = EmbeddedMetadata.cleaned(fields.text(EXIF_TAG_IMAGE_DESCRIPTION, in: .main)).flatMap {
            placeholderDescriptions.contains($0.uppercased()) ? nil : $0
        }
        metadata.creator = EmbeddedMetadata.cleaned(fields.text(EXIF_TAG_ARTIST, in: .main))
        metadata.copyright = EmbeddedMetadata.cleaned(fields.text(EXIF_TAG_COPYRIGHT, in: .main))
        metadata.location = position(fields)
        return metadata
    }

    private static let header: [UInt8] = Array("Exif".utf8) + [0, 0]

    /// Whether `tiff` starts with a TIFF header (byte order, 42, the offset of IFD0) whose first
    /// IFD lies inside it: what tells a damaged block from one that says nothing.
    static func hasTIFFHeader(_ tiff: ArraySlice<UInt8>) -> Bool {
        guard tiff.count >= 10 else { return false }
        let base = tiff.startIndex
        let little: Bool
        switch (tiff[base], tiff[base + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return false
        }
        func number(_ offset: Int, _ count: Int) -> Int {
            var value = 0
            for index in 0..<count {
                value = value << 8 | Int(tiff[base + offset + (little ? count - 1 - index : index)])
            }
            return value
        }
        let first = number(4, 4)
        return number(2, 2) == 42 && first >= 8 && first + 2 <= tiff.count
    }
    private static var damaged: EmbeddedMetadata {
        var metadata = EmbeddedMetadata()
        metadata.problem = "its EXIF block could not be read"
        return metadata
    }

    /// What cameras write as a description when the photographer wrote none.
    private static let placeholderDescriptions: Set<String> = [
        "OLYMPUS DIGITAL CAMERA", "SONY DSC", "DIGITAL CAMERA", "DCIM", "IMAGE", "SAMSUNG", "DEFAULT",
    ]

    /// The entries of the IFDs read, decoded by their format.
    private struct Fields {
        enum IFD { case main, exif, gps }
        let order: ExifByteOrder
        let main: UnsafeMutablePointer<ExifContent>?
        let exif: UnsafeMutablePointer<ExifContent>?
        let gps: UnsafeMutablePointer<ExifContent>?

        var hasEntries: Bool {
            [main, exif, gps].contains { $0.map { $0.pointee.count > 0 } ?? false }
        }

        func entry(_ tag: ExifTag, in ifd: IFD) -> ExifEntry? {
            let content: UnsafeMutablePointer<ExifContent>?
            switch ifd {
            case .main: content = main
            case .exif: content = exif
            case .gps: content = gps
            }
            guard let content, let entry = exif_content_get_entry(content, tag) else { return nil }
            let value = entry.pointee
            // The bytes must hold every component of the entry's format.
            let size = Int(exif_format_get_size(value.format))
            guard value.data != nil, size > 0, value.components > 0, value.components < 1 << 20,
                Int(value.size) >= Int(value.components) * size
            else { return nil }
            return value
        }

        /// An ASCII (or UNDEFINED, as some writers store text) entry's text, up to its first NUL;
        /// UTF-8 when it is valid UTF-8, else Latin-1.
        func text(_ tag: ExifTag, in ifd: IFD) -> String? {
            guard let entry = entry(tag, in: ifd), entry.format == EXIF_FORMAT_ASCII || entry.format == EXIF_FORMAT_UNDEFINED
            else { return nil }
            let bytes = UnsafeBufferPointer(start: entry.data, count: Int(entry.size)).prefix { $0 != 0 }
            return EmbeddedText.decode(Array(bytes))
        }

        /// The first value of a RATIONAL (or SRATIONAL) entry, nil for a zero denominator.
        func rational(_ tag: ExifTag, in ifd: IFD, at index: Int = 0) -> Double? {
            guard let entry = entry(tag, in: ifd), index < Int(entry.components) else { return nil }
            let at = entry.data + 8 * index
            switch entry.format {
            case EXIF_FORMAT_RATIONAL:
                let value = exif_get_rational(at, order)
                return value.denominator == 0 ? nil : Double(value.numerator) / Double(value.denominator)
            case EXIF_FORMAT_SRATIONAL:
                let value = exif_get_srational(at, order)
                return value.denominator == 0 ? nil : Double(value.numerator) / Double(value.denominator)
            default:
                return nil
            }
        }

        /// The first value of a SHORT or LONG entry.
        func integer(_ tag: ExifTag, in ifd: IFD) -> Int? {
            guard let entry = entry(tag, in: ifd) else { return nil }
            switch entry.format {
            case EXIF_FORMAT_SHORT: return Int(exif_get_short(entry.data, order))
            case EXIF_FORMAT_LONG: return Int(exif_get_long(entry.data, order))
            default: return nil
            }
        }
    }

    /// EXIF's `YYYY:MM:DD HH:MM:SS` as ISO 8601, with `offset` (`+01:00`) when it is one; nil
    /// for a blank or impossible date (cameras write `0000:00:00 00:00:00` when the clock was
    /// never set).
    static func takenDate(_ text: String?, offset: String?) -> String? {
        guard let text else { return nil }
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in bytes[start..<start + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        let colon = UInt8(ascii: ":")
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
            let minute = number(14, 2), let second = number(17, 2),
            bytes[4] == colon || bytes[4] == UInt8(ascii: "-"), bytes[7] == bytes[4], bytes[13] == colon, bytes[16] == colon,
            (1800...2999).contains(year), (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        // `YYYY-MM-DDTHH:MM:SS`: the date's separators become dashes, the space a `T`.
        var iso = bytes[0..<19]
        (iso[4], iso[7], iso[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"))
        let offset = offset.flatMap(isoOffset) ?? ""
        return String(decoding: iso, as: UTF8.self) + offset
    }

    /// `+01:00`, `-05:30` or `Z` as they are; anything else nil.
    static func isoOffset(_ text: String) -> String? {
        let trimmed = text.trimmingSpaces
        if trimmed == "Z" { return "Z" }
        let bytes = Array(trimmed.utf8)
        guard bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"), bytes[3] == UInt8(ascii: ":"),
            [1, 2, 4, 5].allSatisfy({ (0x30...0x39).contains(bytes[$0]) }),
            Int(trimmed.dropFirst().prefix(2)).map({ $0 <= 14 }) ?? false,
            Int(trimmed.suffix(2)).map({ $0 < 60 }) ?? false
        else { return nil }
        return trimmed
    }

    /// The camera's name: the model, after the maker when the model does not start with it.
    static func camera(make: String?, model: String?) -> String? {
        let make = EmbeddedMetadata.cleaned(make)
        guard let model = EmbeddedMetadata.cleaned(model) else { return make }
        guard let make else { return model }
        // "Canon" / "Canon EOS 350D DIGITAL"; "NIKON CORPORATION" / "NIKON D700" (the first
        // word of the maker's name is enough).
        let firstWord = make.prefix { $0 != " " }
        if model.lowercased().hasPrefix(firstWord.lowercased()) { return model }
        return make + " " + model
    }

    /// An exposure time in seconds as exiftool prints it: `1/N` below a quarter second, else
    /// seconds with one decimal (`0.3`, `2.5`, `30`).
    static func exposureTime(_ seconds: Double) -> String? {
        guard seconds.isFinite, seconds > 0, seconds < 100_000 else { return nil }
        if seconds < 0.25001 { return "1/\(Int((1 / seconds).rounded()))" }
        let tenths = Int((seconds * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }

    /// `value` rounded to `places` decimals; nil when it is not a positive finite number, or
    /// rounds to zero (a focal length of 0.04 mm is no focal length, and the manifest's exposure
    /// values are positive).
    static func rounded(_ value: Double, places: Int) -> Double? {
        guard value.isFinite, value > 0, value < 1_000_000 else { return nil }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        return rounded > 0 ? rounded : nil
    }

    /// The GPS position: degrees, minutes and seconds (three rationals) with their N/S and E/W
    /// references. A position of exactly 0, 0 is taken as none: it is what receivers without a
    /// fix write, not a photo taken in the Gulf of Guinea.
    private static func position(_ fields: Fields) -> EmbeddedMetadata.Location? {
        func degrees(_ tag: ExifTag) -> Double? {
            guard let d = fields.rational(tag, in: .gps, at: 0) else { return nil }
            let m = fields.rational(tag, in: .gps, at: 1) ?? 0
            let s = fields.rational(tag, in: .gps, at: 2) ?? 0
            return d + m / 60 + s / 3600
        }
        let latitudeTag = ExifTag(rawValue: 0x0002)
        let longitudeTag = ExifTag(rawValue: 0x0004)
        guard var latitude = degrees(latitudeTag), var longitude = degrees(longitudeTag) else { return nil }
        if fields.text(ExifTag(rawValue: 0x0001), in: .gps)?.uppercased().hasPrefix("S") == true { latitude = -latitude }
        if fields.text(ExifTag(rawValue: 0x0003), in: .gps)?.uppercased().hasPrefix("W") == true { longitude = -longitude }
        guard latitude != 0 || longitude != 0 else { return nil }
        return EmbeddedMetadata.Location(latitude: latitude, longitude: longitude)
    }
}
