/// What a script names: photos, each a list of renditions (not yet numbered), and the JSON
/// documents it loads (`'data.json'`), as written.
package struct ScriptFindings: Sendable, Equatable {
    package var photos: [[ImageReference]] = []
    package var dataFiles: [String] = []
    /// False when the script was too long or too costly to read whole (`ScriptLiteralReader`).
    package var isComplete = true

    package init(photos: [[ImageReference]] = [], dataFiles: [String] = [], isComplete: Bool = true) {
        self.photos = photos
        self.dataFiles = dataFiles
        self.isComplete = isComplete
    }

    /// The warning an incomplete reading of the script at `origin` (a page or a file) gets.
    package static func incompleteWarning(_ origin: String) -> String {
        "\(origin): a script too long or too tangled to read whole; images named past that point are not found"
    }
}

/// Reads the image URLs of a script without running it (image keys include the string values in
/// inline scripts, JavaScript or JSON, `application/ld+json` included).
///
/// The script's object and array literals (`ScriptLiteralReader`) are walked as JSON is
/// (`ImageValueWalker`): the image fields of one object are the renditions of one photo
/// (galleria's `{thumb, image, big, title}`), its other fields the photo's title and metadata.
/// A string literal outside every literal that names an image file is a photo of its own.
/// Strings naming a `.json` file are the script's data files, for the crawler to fetch.
///
/// A script of the page's own (inline) is read whole. A script file the page loads is mostly
/// library code whose strings are its own interface (fgallery's `'back.png'`, a map's marker
/// icons): only its records that carry a title, and its data files, are read from it.
package enum ScriptReader {
    /// Where a script comes from.
    package enum Origin: Sendable {
        /// A `<script>` element's text.
        case inline
        /// A `<script src>` file.
        case external
    }

    /// Data files kept per script at most.
    static let maxDataFiles = 16

    /// The photos and data files of one script.
    package static func read(_ source: [UInt8], origin: Origin) -> ScriptFindings {
        let literals = ScriptLiteralReader(source: source)
        var photos = PhotoSet()
        for literal in literals.literals {
            var walker = ImageValueWalker()
            walker.walk(literal)
            photos.add(walker.photos)
        }
        var findings = ScriptFindings(isComplete: literals.isComplete)
        // A script's strings only suggest images (`ImageReference.isGuess`): its server decides.
        photos.update { $0.isGuess = true }
        switch origin {
        case .inline:
            for text in literals.looseStrings {
                guard let url = ImageValueWalker.imageURL(text, field: nil, strong: false) else { continue }
                var reference = ImageReference(url: url)
                reference.isGuess = true
                photos.add([reference])
            }
            findings.photos = photos.photos
        case .external:
            findings.photos = photos.photos.filter { $0.contains { $0.title != nil } }
        }
        var seen: Set<String> = []
        for text in literals.strings where findings.dataFiles.count < maxDataFiles {
            guard let file = dataFile(text), seen.insert(file).inserted else { continue }
            findings.dataFiles.append(file)
        }
        return findings
    }

    /// `text` when it is the URL or path of a JSON document: no white space, a path ending in
    /// `.json` (query and fragment aside), no scheme but http(s).
    static func dataFile(_ text: String) -> String? {
        let value = text.trimmingSpaces
        guard value.utf8.count > 5, value.utf8.count <= 2048, !value.unicodeScalars.contains(where: \.properties.isWhitespace)
        else { return nil }
        let path = value.prefix { $0 != "?" && $0 != "#" }
        guard path.lowercased().hasSuffix(".json"), path.count > 5, path.dropLast(5).last != "/" else { return nil }
        if let colon = path.firstIndex(of: ":") {
            let scheme = path[..<colon].lowercased()
            guard scheme == "http" || scheme == "https" else { return nil }
        }
        return value
    }
}

extension PageScan {
    /// Adds photos found beside the page's markup (its scripts, the data files they load),
    /// numbered after the page's own.
    ///
    /// `fromScript`: the photos are a script's (inline or a file the page loads). A script's
    /// photo that is one URL gets no number: a number makes it one of the page's photos, and a
    /// per-photo page whose only other photo is the one it shows joins the two as renditions of
    /// one (`PhotoGroups`). igal2 and jigl preload the next slide from a script on every slide,
    /// and that chained a whole gallery into one photo. Its server decides what it is; which
    /// photo it is, the script does not say. A data file's or an API's URL keeps its number:
    /// WordPress's API names a photo's unscaled upload, which its attachment page joins.
    package mutating func addPhotos(_ photos: [[ImageReference]], fromScript: Bool = false) {
        var next = (images.lazy.compactMap(\.photo).max() ?? -1) + 1
        for photo in photos where !photo.isEmpty {
            if fromScript, photo.count == 1, var alone = photo.first {
                alone.photo = nil
                images.append(alone)
                continue
            }
            for var rendition in photo {
                rendition.photo = next
                images.append(rendition)
            }
            next += 1
        }
    }

    /// Reads the page's inline scripts into its photos and data files.
    mutating func readScripts() {
        var seen = Set(dataFiles)
        for script in scripts {
            let findings = ScriptReader.read(Array(script.utf8), origin: .inline)
            if !findings.isComplete { scriptsIncomplete = true }
            addPhotos(findings.photos, fromScript: true)
            for file in findings.dataFiles where seen.insert(file).inserted { dataFiles.append(file) }
        }
    }
}
