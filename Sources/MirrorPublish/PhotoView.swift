import Foundation
import MirrorCatalog
import MirrorCore
import MirrorMarkup

/// Where the generated site shows one photo, and what it shows of it: the photo view's URL (the
/// card's anchor on its album's page), the tile the grid shows, the `srcset` of its renditions,
/// its label, caption and metadata. `feed.atom` and the search index link photos through here.
///
/// The photo view is the album page with the photo's anchor (`albums/nature.html#photo-aqua-3f2a9c1b0e`):
/// the page's script opens the view for the photo the URL names, so the link opens the photo in
/// a fresh tab, and Back closes it. Without JavaScript the same link scrolls to the photo's
/// card, whose image links to the full-size file. One page per album page, not one per photo:
/// a 100,000-photo mirror stays about 1,700 files, not 100,000 more.
enum PhotoView {
    /// The `id` of the photo's card: `photo-` and the file name of its largest rendition
    /// without the extension (file names are `[a-z0-9-]` and unique in the mirror, and stay
    /// the same while the bytes do).
    static func anchor(of photo: SitePlan.Photo) -> String {
        "photo-" + anchorName(ofPath: photo.original.path)
    }

    /// The file name of `path` without its folder and extension.
    static func anchorName(ofPath path: String) -> String {
        var name = lastRun(of: path[...], without: "/").map(String.init) ?? path
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        return name
    }

    /// The photo view's URL relative to the mirror's root, given the file of the page that
    /// shows its card (`SitePlan.Page.fileName`).
    static func href(of photo: SitePlan.Photo, onPage fileName: String) -> String {
        fileName + "#" + anchor(of: photo)
    }

    /// The photo's label: its title, else its smallest rendition's, else its file name without
    /// the image extension; a label that is only the file's name (`autumn-maple`, as sigal
    /// captions a photo with no title) reads as words (`Autumn maple`).
    static func title(of photo: SitePlan.Photo) -> String {
        let item = photo.original
        guard let given = item.title ?? photo.display.title else {
            // No title: the file's name, which is always a file name.
            return PhotoText.nameTitle(item.key)
        }
        // Only a label of one word can be a file name; most titles stop here.
        guard !given.contains(" ") else { return given }
        let displayKey = photo.display.key
        guard
            sameIgnoringCase(given, MirrorPublisher.fileTitle(item.key))
                || (displayKey != item.key && sameIgnoringCase(given, MirrorPublisher.fileTitle(displayKey)))
        else { return given }
        return words(ofFileName: given)
    }

    /// The first run of `text` without `separator` (`PhotoText.firstRun`).
    static func firstRun(of text: Substring, without separator: Character) -> Substring? {
        PhotoText.firstRun(of: text, without: separator)
    }

    /// The last run of `text` without `separator` (`PhotoText.lastRun`).
    static func lastRun(of text: Substring, without separator: Character) -> Substring? {
        PhotoText.lastRun(of: text, without: separator)
    }

    /// Whether `a` and `b` differ at most in case (`PhotoText.sameIgnoringCase`).
    static func sameIgnoringCase(_ a: String, _ b: String) -> Bool { PhotoText.sameIgnoringCase(a, b) }

    /// `name` as words (`PhotoText.words(ofFileName:)`).
    static func words(ofFileName name: String) -> String { PhotoText.words(ofFileName: name) }

    /// The rendition the grid's tile shows: the smallest (its `srcset` offers the larger ones
    /// to screens that need them).
    static func tile(of photo: SitePlan.Photo) -> SitePlan.Item { photo.display }

    /// `path W w` for each rendition whose width is known, narrowest first, one per width; nil
    /// unless there are two or more (one candidate tells the browser nothing `src` does not).
    static func srcset(of photo: SitePlan.Photo, up: String) -> String? {
        guard photo.renditions > 1 else { return nil }
        var byWidth: [Int: String] = [:]
        for item in photo.renditionItems {
            guard let width = item.dimensions?.width else { continue }
            let path = item.path
            // Of two renditions of one width, the smaller file.
            if let held = byWidth[width], held <= path { continue }
            byWidth[width] = path
        }
        guard byWidth.count > 1 else { return nil }
        return byWidth.keys.sorted().map { "\(up)\(byWidth[$0] ?? "") \($0)w" }.joined(separator: ", ")
    }

    /// Metadata names whose value is the photo's caption (`PhotoText.captionNames`).
    static let captionNames = PhotoText.captionNames

    /// The photo's caption and its other metadata, as the photo view shows them: real values
    /// only (a value that repeats the title or the album's title, a file name, or one with no
    /// letter or digit is left out), the caption from the first of `captionNames` the metadata
    /// has, the fields by name.
    static func details(of photo: SitePlan.Photo, albumTitle: String? = nil)
        -> (caption: String?, fields: [(name: String, value: String)])
    {
        details(of: photo, title: nil, albumTitle: albumTitle)
    }

    /// The same, given the photo's `title(of:)` when it is already known (nil: worked out here
    /// if needed).
    static func details(of photo: SitePlan.Photo, title known: String?, albumTitle: String? = nil)
        -> (caption: String?, fields: [(name: String, value: String)])
    {
        guard let metadata = photo.original.metadata, !metadata.isEmpty else { return (nil, []) }
        let title = known ?? title(of: photo)
        var captions: [(rank: Int, name: String, value: String)] = []
        var fields: [(name: String, value: String)] = []
        for (name, value) in metadata {
            let value = value.trimmingSpaces
            guard value.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil }),
                !sameIgnoringCase(value, title),
                albumTitle.map({ !sameIgnoringCase(value, $0) }) ?? true,
                value.contains(" ") || !HTMLScanner.hasImageExtension(value)
            else { continue }
            if let rank = captionNames.firstIndex(of: name.lowercased()) {
                captions.append((rank, name, value))
            } else {
                fields.append((name, value))
            }
        }
        captions.sort { ($0.rank, $0.name) < ($1.rank, $1.name) }
        let caption = captions.first?.value
        // Another caption-like value is a field of its own; alt text only ever a caption.
        for other in captions.dropFirst() where other.name.lowercased() != "alt" && other.value != caption {
            fields.append((other.name, other.value))
        }
        fields.sort { $0.name < $1.name }
        return (caption, fields)
    }

    // MARK: - What the file says

    /// What the photo's file says about itself: its largest rendition's, else the first
    /// rendition's that says something (a site's smaller renditions are often its own resizes,
    /// which keep nothing, or the other way round).
    static func embedded(of photo: SitePlan.Photo) -> EmbeddedMetadata? {
        if let own = photo.original.embedded { return own }
        guard photo.renditions > 1 else { return nil }
        return photo.renditionItems.lazy.compactMap(\.embedded).first
    }

    /// The card's names for what the file says, in the order the photo view shows them, each
    /// only when known: `takenISO` and `taken` (the date as ISO 8601 and as words), `camera`,
    /// `lens`, `exposure`, `location` (text coordinates only), `keywords`, `creator`,
    /// `copyright`.
    static func embeddedDetails(of photo: SitePlan.Photo) -> [(name: String, value: String)] {
        guard let metadata = embedded(of: photo) else { return [] }
        var shown: [(name: String, value: String)] = []
        if let taken = metadata.taken, let text = takenText(taken) {
            shown.append(("takenISO", taken))
            shown.append(("taken", text))
        }
        if let camera = metadata.camera { shown.append(("camera", camera)) }
        if let lens = metadata.lens { shown.append(("lens", lens)) }
        if let exposure = metadata.exposure.flatMap(exposureText) { shown.append(("exposure", exposure)) }
        if let location = metadata.location { shown.append(("location", locationText(location))) }
        if let keywords = metadata.keywords, !keywords.isEmpty { shown.append(("keywords", keywords.joined(separator: ", "))) }
        if let creator = metadata.creator { shown.append(("creator", creator)) }
        if let copyright = metadata.copyright { shown.append(("copyright", copyright)) }
        return shown
    }

    private static let months = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    /// `2008-01-22T03:28:22+01:00` as `22 January 2008, 03:28 (UTC+01:00)`: the time as the
    /// camera's clock showed it, and its offset when the file gives one. Nil for text that is
    /// not such a date.
    static func takenText(_ iso: String) -> String? {
        let bytes = Array(iso.utf8)
        guard bytes.count >= 10, let year = Int(iso.prefix(4)), let month = Int(iso.dropFirst(5).prefix(2)),
            let day = Int(iso.dropFirst(8).prefix(2)), (1...12).contains(month)
        else { return nil }
        var text = "\(day) \(months[month - 1]) \(year)"
        guard bytes.count >= 16 else { return text }
        text += ", " + iso.dropFirst(11).prefix(5)
        let offset = iso.dropFirst(19)
        if offset == "Z" { text += " (UTC)" } else if offset.count == 6 { text += " (UTC\(offset))" }
        return text
    }

    /// `107 mm · f/5.6 · 1/80 s · ISO 400` (no-break spaces inside each part), of the parts
    /// known; nil when none is.
    static func exposureText(_ exposure: EmbeddedMetadata.Exposure) -> String? {
        var parts: [String] = []
        // A part never breaks across lines (no-break spaces inside it); the line breaks between parts.
        if let focal = exposure.focalLength { parts.append(JSONText.number(focal) + "\u{A0}mm") }
        if let aperture = exposure.aperture { parts.append("f/" + JSONText.number(aperture)) }
        if let time = exposure.exposureTime { parts.append(time + "\u{A0}s") }
        if let iso = exposure.iso { parts.append("ISO\u{A0}\(iso)") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// `48.85837° N, 2.29448° E`: five decimals (about a metre), as text only; the site
    /// fetches no map.
    static func locationText(_ location: EmbeddedMetadata.Location) -> String {
        func degrees(_ value: Double, _ positive: String, _ negative: String) -> String {
            let scaled = Int((abs(value) * 100_000).rounded())
            let fraction = String(scaled % 100_000)
            return "\(scaled / 100_000).\(String(repeating: "0", count: 5 - fraction.count))\(fraction)° "
                + (value < 0 ? negative : positive)
        }
        return degrees(location.latitude, "N", "S") + ", " + degrees(location.longitude, "E", "W")
    }
}
