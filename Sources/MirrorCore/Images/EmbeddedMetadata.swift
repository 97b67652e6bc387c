import Foundation

/// What a photo says about itself in its own file: when it was taken, with what camera, lens and
/// exposure, where, and the title, caption, keywords, creator and copyright its author wrote
/// into it (EXIF, IPTC-IIM and XMP; `EmbeddedMetadataReader` reads them).
///
/// Read once, when the file is stored, and kept in the store's index with the file's row, so a
/// 304 keeps it; the manifest's items carry it as optional fields (docs/reference.md). Every
/// text is trimmed, free of control characters and at most `longestText` characters; a value a
/// file gives in a form that cannot be read (a date that is no date, a zero denominator, a
/// position off the globe) is left out, not guessed.
package struct EmbeddedMetadata: Sendable, Equatable, Hashable, Codable {
    /// When the photo was taken, ISO 8601 (`2008-01-22T03:28:22`), with its offset from UTC
    /// (`+01:00`) when the file gives one; nil when unknown.
    package var taken: String?
    /// The camera: its model, preceded by its maker when the model does not name it
    /// (`Canon EOS 350D DIGITAL`, `NIKON CORPORATION NIKON D700`).
    package var camera: String?
    /// The lens, as the file names it (`EF-S18-55mm f/3.5-5.6`).
    package var lens: String?
    /// The exposure: focal length, aperture, exposure time, ISO; nil when none is known.
    package var exposure: Exposure?
    /// Keywords (IPTC 2:25, XMP `dc:subject`), in the file's order, each once.
    package var keywords: [String]?
    /// Who made the photo (XMP `dc:creator`, IPTC By-line, EXIF Artist).
    package var creator: String?
    /// The copyright notice (XMP `dc:rights`, IPTC CopyrightNotice, EXIF Copyright).
    package var copyright: String?
    /// Where the photo was taken (EXIF GPS, or XMP `exif:GPSLatitude`/`GPSLongitude`).
    package var location: Location?
    /// The photo's title in the file (XMP `dc:title`, IPTC ObjectName): used only where the
    /// source gives the photo none.
    package var title: String?
    /// The photo's caption in the file (XMP `dc:description`, IPTC Caption-Abstract, EXIF
    /// ImageDescription): used only where the source gives none.
    package var caption: String?
    /// True when the file has a position that was not kept (`--strip-location`): a later run
    /// without the option reads the file again to keep it.
    package var locationWithheld: Bool?
    /// Why part of the file's metadata could not be read (damaged or hostile), in a few words;
    /// nil when all of it could. What could be read is kept all the same.
    package var problem: String?

    /// No metadata at all.
    package init() {}

    /// An exposure, each part nil when the file does not give it.
    package struct Exposure: Sendable, Equatable, Hashable, Codable {
        /// Focal length in millimetres (`107`, `4.3`).
        package var focalLength: Double?
        /// Aperture as an f-number (`5.6` for f/5.6).
        package var aperture: Double?
        /// Exposure time in seconds, as photographers write it: `1/80`, `0.3`, `2`.
        package var exposureTime: String?
        /// ISO speed (`400`).
        package var iso: Int?

        /// An exposure of the parts given.
        package init(focalLength: Double? = nil, aperture: Double? = nil, exposureTime: String? = nil, iso: Int? = nil) {
            self.focalLength = focalLength
            self.aperture = aperture
            self.exposureTime = exposureTime
            self.iso = iso
        }

        /// True when no part is known.
        package var isEmpty: Bool { focalLength == nil && aperture == nil && exposureTime == nil && iso == nil }
    }

    /// A position in decimal degrees, north and east positive.
    package struct Location: Sendable, Equatable, Hashable, Codable {
        /// -90...90.
        package var latitude: Double
        /// -180...180.
        package var longitude: Double

        /// A position, or nil when it is off the globe or not a number.
        package init?(latitude: Double, longitude: Double) {
            guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
            // Seven decimals (about a centimetre): what a rational of degrees, minutes and
            // seconds gives beyond that is noise of the division, not of the position.
            self.latitude = (latitude * 1e7).rounded() / 1e7
            self.longitude = (longitude * 1e7).rounded() / 1e7
        }

        /// A position as a manifest wrote it, kept bit for bit (as the decoder keeps it).
        package init(written latitude: Double, _ longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// True when the file said nothing this type keeps (a problem aside).
    package var isEmpty: Bool {
        taken == nil && camera == nil && lens == nil && exposure == nil && keywords == nil && creator == nil
            && copyright == nil && location == nil && title == nil && caption == nil && locationWithheld != true
    }

    /// The longest text kept, in characters: longer ones are cut there (a caption is a
    /// paragraph, not a document).
    static let longestText = 2_000
    /// The most keywords kept.
    package static let mostKeywords = 100

    /// `text` as a value: control characters (a C string's NUL padding, tabs, line breaks)
    /// become spaces, spaces around it are trimmed, runs of spaces are one, and it is cut at
    /// `longestText`; nil when nothing is left.
    package static func cleaned(_ text: String?) -> String? {
        guard let text else { return nil }
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return cleanedASCII(text) }
        var out = ""
        var pendingSpace = false
        var count = 0
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar.properties.isWhitespace {
                pendingSpace = !out.isEmpty
                continue
            }
            // Unassigned and private code points, and the byte-order mark, say nothing.
            if scalar == "\u{FEFF}" || scalar.properties.generalCategory == .unassigned { continue }
            if pendingSpace {
                out.unicodeScalars.append(" ")
                pendingSpace = false
            }
            out.unicodeScalars.append(scalar)
            count += 1
            if count >= longestText { break }
        }
        return out.isEmpty ? nil : out
    }

    /// `cleaned` for text that is all ASCII, the common case (camera names, dates, most
    /// captions), without looking up each character's Unicode properties: there, the control
    /// characters are below 0x20 and 0x7F, and the white space is 0x09–0x0D and the space.
    private static func cleanedASCII(_ text: String) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(min(text.utf8.count, longestText))
        var pendingSpace = false
        var count = 0
        for byte in text.utf8 {
            if byte <= 0x20 || byte == 0x7F {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace {
                out.append(0x20)
                pendingSpace = false
            }
            out.append(byte)
            count += 1
            if count >= longestText { break }
        }
        return out.isEmpty ? nil : String(decoding: out, as: UTF8.self)
    }

    /// Fills each field that is nil here from `other` (the fields of a source read earlier win).
    package mutating func fillGaps(from other: EmbeddedMetadata) {
        taken = taken ?? other.taken
        camera = camera ?? other.camera
        lens = lens ?? other.lens
        if let theirs = other.exposure {
            var exposure = self.exposure ?? Exposure()
            exposure.focalLength = exposure.focalLength ?? theirs.focalLength
            exposure.aperture = exposure.aperture ?? theirs.aperture
            exposure.exposureTime = exposure.exposureTime ?? theirs.exposureTime
            exposure.iso = exposure.iso ?? theirs.iso
            self.exposure = exposure.isEmpty ? nil : exposure
        }
        keywords = keywords ?? other.keywords
        creator = creator ?? other.creator
        copyright = copyright ?? other.copyright
        location = location ?? other.location
        title = title ?? other.title
        caption = caption ?? other.caption
        if let problem = other.problem { self.problem = self.problem.map { $0 + "; " + problem } ?? problem }
    }

    /// The metadata without its position (`--strip-location`): a file that had one is marked
    /// `locationWithheld`, so a run without the option reads it again.
    package func withholdingLocation() -> EmbeddedMetadata {
        guard location != nil else { return self }
        var copy = self
        copy.location = nil
        copy.locationWithheld = true
        return copy
    }

    /// The year the photo was taken (`2008`), for search.
    package var year: String? {
        guard let taken, taken.utf8.count >= 4, taken.utf8.prefix(4).allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return String(taken.prefix(4))
    }
}
