import MirrorCore

/// The original a CMS's resized copy is made from, read off the copy's URL: the one rendition
/// relation that no markup states, because the page that shows a thumbnail links it to a page
/// (a file page, an attachment page), not to the file.
///
/// - MediaWiki: `/images/thumb/a/ab/Name.jpg/120px-Name.jpg` (also `lossy-page1-120px-…`,
///   and `120px-Name.svg.png`) is made from `/images/a/ab/Name.jpg`.
/// - WordPress: `name-300x188.jpg` and the cropped `name-150x150.jpg` are made from
///   `name.jpg`, or, for an upload wider than 2560 pixels, from the `name-scaled.jpg` that
///   WordPress publishes in its place; `name-scaled.jpg` and `name-rotated.jpg` from `name.jpg`.
///
/// - Any site: a name that is another's stem with a size or a rendition's word after it
///   (`garden-x900.jpg`, `garden-1200w.jpg`, `garden-640px.jpg`, `garden_thumb.jpg`,
///   `garden-small.jpg`) or a Hugo resource's hash (`IMG_2041_hu_3d03a0….jpg`) may be made from
///   `garden.jpg` or `IMG_2041.jpg` in the same folder.
///
/// These only propose: `PhotoGroups` puts a key and the first of these candidates that the
/// catalog holds to their pixels, and joins them only when the pixels match. A site whose file
/// names only look like these loses nothing, and two different photos with related names stay
/// two photos.
enum RenditionFamily {
    /// The keys `key` may be a resized copy of, most likely first (same origin, no query).
    static func originals(of key: CanonicalURL) -> [String] {
        let path = key.path
        guard let slash = path.lastIndex(of: "/") else { return [] }
        let name = path[path.index(after: slash)...]
        let folder = path[..<slash]
        let origin = String(key.string.prefix(key.string.utf8.count - key.pathAndQuery.utf8.count))
        var found: [String] = []
        if let original = mediaWikiOriginal(folder: folder, name: name) { found.append(origin + original) }
        found += wordPressOriginals(name: name).map { origin + folder + "/" + $0 }
        found += stemOriginals(name: name).map { origin + folder + "/" + $0 }.filter { !found.contains($0) }
        return found
    }

    /// `/images/thumb/a/ab/Name.jpg` + `120px-Name.jpg` → `/images/a/ab/Name.jpg`.
    private static func mediaWikiOriginal(folder: Substring, name: Substring) -> String? {
        guard let slash = folder.lastIndex(of: "/") else { return nil }
        let file = folder[folder.index(after: slash)...]
        let parent = folder[..<slash]
        // Asked of every key: the byte-wise test first, Foundation's `range(of:)` (which bridges
        // the text) only for the few paths that have the marker.
        guard !file.isEmpty, parent.includes("/thumb/"), let marker = parent.range(of: "/thumb/") else { return nil }
        // The copy's name: a size ("120px-"), after an optional qualifier ("lossy-page1-"),
        // then the file's own name, and an extension when the copy changes format.
        guard name.includes("px-"), let px = name.range(of: "px-") else { return nil }
        let digits = name[..<px.lowerBound].reversed().prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, name[px.upperBound...].hasPrefix(file) else { return nil }
        let rest = name[px.upperBound...].dropFirst(file.count)
        guard rest.isEmpty || (rest.first == "." && !rest.dropFirst().contains(".")) else { return nil }
        // `/images/thumb/a/ab` → `/images/a/ab`.
        return String(parent[..<marker.lowerBound]) + "/" + parent[marker.upperBound...] + "/" + file
    }

    /// `name-300x188.jpg` → `name.jpg`, `name-scaled.jpg`; `name-scaled.jpg` → `name.jpg`.
    private static func wordPressOriginals(name: Substring) -> [String] {
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return [] }
        let stem = name[..<dot]
        let ext = name[dot...]
        guard let dash = stem.lastIndex(of: "-") else { return [] }
        let base = stem[..<dash]
        let suffix = stem[stem.index(after: dash)...]
        guard !base.isEmpty else { return [] }
        if suffix == "scaled" || suffix == "rotated" { return [String(base + ext)] }
        let sides = suffix.split(separator: "x", omittingEmptySubsequences: false)
        let isSize =
            sides.count == 2
            && sides.allSatisfy { side in !side.isEmpty && side.count <= 5 && side.allSatisfy(\.isWholeNumberDigit) }
        guard isSize else { return [] }
        return [String(base + ext), String(base) + "-scaled" + String(ext)]
    }
}

extension RenditionFamily {
    /// Words a site adds to a file's stem for one of its renditions.
    private static let renditionWords: Set<Substring> = [
        "thumb", "thumbnail", "small", "medium", "large", "preview", "sm", "md", "lg", "web", "display",
    ]

    /// `garden-x900.jpg`, `garden_thumb.jpg`, `IMG_2041_hu_3d03a0.jpg` → `garden.jpg`, `IMG_2041.jpg`.
    static func stemOriginals(name: Substring) -> [String] {
        guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return [] }
        let stem = name[..<dot]
        let ext = name[dot...]
        // Hugo: `_hu` and a hash, then its processing's words, to the end of the stem.
        if stem.includes("_hu"), let hugo = stem.range(of: "_hu"), hugo.lowerBound > stem.startIndex,
            stem[hugo.upperBound...].first.map({ $0 == "_" || $0.isHexDigit }) == true
        {
            return [String(stem[..<hugo.lowerBound] + ext)]
        }
        guard let separator = stem.lastIndex(where: { $0 == "-" || $0 == "_" }), separator > stem.startIndex else {
            return []
        }
        let base = stem[..<separator]
        let suffix = stem[stem.index(after: separator)...].lowercased()[...]
        func digits(_ text: Substring) -> Bool { !text.isEmpty && text.count <= 5 && text.allSatisfy(\.isWholeNumberDigit) }
        let isSize =
            (suffix.hasPrefix("x") && digits(suffix.dropFirst()))
            || (suffix.hasSuffix("px") && digits(suffix.dropLast(2)))
            || (suffix.hasSuffix("w") && digits(suffix.dropLast()))
        guard isSize || renditionWords.contains(suffix) else { return [] }
        return [String(base + ext)]
    }
}

extension Character {
    /// An ASCII digit.
    fileprivate var isWholeNumberDigit: Bool { isASCII && isNumber }
}
