import Foundation

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
            let name = MirrorPublisher.fileTitle(item.key)
            return name.contains(" ") ? name : words(ofFileName: name)
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

    /// The first run of `text` without `separator`, as `text.split(separator:).first` gives
    /// it, found without splitting the rest; nil when there is none.
    static func firstRun(of text: Substring, without separator: Character) -> Substring? {
        let rest = text.drop { $0 == separator }
        guard !rest.isEmpty else { return nil }
        return rest[..<(rest.firstIndex(of: separator) ?? rest.endIndex)]
    }

    /// The last run of `text` without `separator`, as `text.split(separator:).last` gives it.
    static func lastRun(of text: Substring, without separator: Character) -> Substring? {
        var end = text.endIndex
        while end > text.startIndex, text[text.index(before: end)] == separator { end = text.index(before: end) }
        guard end > text.startIndex else { return nil }
        let head = text[..<end]
        return head[(head.lastIndex(of: separator).map { head.index(after: $0) } ?? head.startIndex)...]
    }

    /// Whether `a` and `b` differ at most in case, as `caseInsensitiveCompare` says: for printable ASCII
    /// text (most titles and values) compared here letter by letter, without Foundation's
    /// bridging of both strings (a fifth of working out a page's cards).
    static func sameIgnoringCase(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        let fast = a.withUTF8 { a in
            b.withUTF8 { b -> Bool? in
                guard a.allSatisfy({ (0x20..<0x7F).contains($0) }), b.allSatisfy({ (0x20..<0x7F).contains($0) }) else {
                    return nil
                }
                guard a.count == b.count else { return false }
                func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
                return zip(a, b).allSatisfy { lower($0) == lower($1) }
            }
        }
        return fast ?? (a.caseInsensitiveCompare(b) == .orderedSame)
    }

    /// `name` with its `-` and `_` as spaces and its first letter upper-cased, when that leaves
    /// some words; else `name`.
    static func words(ofFileName name: String) -> String {
        let words = name.split(whereSeparator: { $0 == "-" || $0 == "_" }).joined(separator: " ")
        guard let first = words.first, words.contains(where: \.isLetter) else { return name }
        return first.uppercased() + words.dropFirst()
    }

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

    /// Metadata names whose value is the photo's caption, not a field, the first found first.
    /// `alt` comes last: the text the source gave the image where it showed it, a caption only
    /// when it says more than the title.
    static let captionNames = ["description", "caption", "summary", "comment", "content", "alt"]

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
}
