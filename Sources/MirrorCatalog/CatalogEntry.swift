import MirrorCore
import MirrorCrawl
import MirrorMarkup

/// Everything the run knows about one key: merged catalog text, verdict, and outcome.
///
/// The collection alone changes it (`CollectorStateMachine`); the stages after it read it
/// (`PhotoGroups`, and `PublishPlan`, which is told the smaller renditions it rejects).
///
/// A class, not a struct: the catalog holds one per key (10,000 and more), a dictionary of large
/// inline values keeps its empty slots that large too, and sorting it copied every entry.
///
/// The catalog holds every entry to the end of the plan, so their size is most of a large run's
/// memory: the fields are declared largest first (Swift lays them out in that order, and the
/// one-byte fields between the others cost 7 bytes of padding each), and a key's first sighting
/// is kept inline (`Sightings`).
package final class CatalogEntry {
    package var key: CanonicalURL
    package var title: String?
    var declaredType: String?
    package var verdict: Verdict
    var metadata: [String: String]
    /// Where the key was seen: each document and photo of that document it is a rendition of.
    package var sightings = Sightings()
    /// What the loader answered, without the stored image itself (see `Outcome`).
    package var outcome: Outcome?
    package var declaredLength: Int64?
    var titleSource: ImageReference.TitleSource
    /// Whether the engine has asked the loader for this key (deferred keys wait until the crawl ends).
    package var isSentToLoader = false
    /// Whether a document shows the key as an image (`ImageReference.isGuess` clear on some
    /// sighting), or it answered with an image on an earlier run (it is in the store). A key
    /// that is only guessed fails nothing: its failure is `unconfirmed`, its page a page.
    package var isShown: Bool
    /// Whether a guess created this entry and its load settles that guess (`GuessedPages`).
    package var settlesGuess = false

    /// The sightings of a key: the first inline, since most keys have one (an array of one was
    /// a 96-byte allocation of its own for every key), any more in an array.
    package struct Sightings: RandomAccessCollection, MutableCollection {
        private var head: Sighting?
        private var tail: [Sighting] = []

        package var startIndex: Int { 0 }
        package var endIndex: Int { head == nil ? 0 : 1 + tail.count }

        package subscript(index: Int) -> Sighting {
            get {
                if index == 0, let head { return head }
                return tail[index - 1]
            }
            set {
                if index == 0, head != nil { head = newValue } else { tail[index - 1] = newValue }
            }
        }

        mutating func append(_ sighting: Sighting) {
            if head == nil { head = sighting } else { tail.append(sighting) }
        }
    }

    /// One sighting of a key: in which document, as a rendition of which of its photos, and how
    /// large the document says it is.
    ///
    /// Stored in 48 bytes (numbers as 32 bits, "none" as `Int32.min` or NaN): a key has one or
    /// more, and the plain fields with their optionals, twice the size, were a visible part of
    /// the peak. Numbers beyond 32 bits are clamped, which no ranking can tell apart.
    package struct Sighting {
        private(set) var title: String?
        private var storedDensity: Double
        private let storedDocument: Int32
        private let storedPhoto: Int32
        private var storedWidth: Int32
        private var storedHeight: Int32
        private var storedRole: RenditionSize.Role
        private(set) var titleSource: ImageReference.TitleSource
        let isDecoration: Bool
        /// Found in a data file the page loads, not in its markup.
        let isFromDataFile: Bool
        /// The document only suggested the key is an image here (`ImageReference.isGuess`).
        let isGuess: Bool

        init(
            document: Int, photo: Int?, size: RenditionSize, isDecoration: Bool, isFromDataFile: Bool, title: String?,
            titleSource: ImageReference.TitleSource, isGuess: Bool = false
        ) {
            storedDocument = Int32(clamping: document)
            storedPhoto = photo.map { Self.number($0) } ?? .min
            (storedRole, storedWidth, storedHeight, storedDensity) = (.display, .min, .min, .nan)
            self.isDecoration = isDecoration
            self.isFromDataFile = isFromDataFile
            self.isGuess = isGuess
            self.title = title
            self.titleSource = titleSource
            self.size = size
        }

        package var document: Int { Int(storedDocument) }
        /// Which photo of its document this is a rendition of; nil for a photo of its own.
        var photo: Int? { storedPhoto == .min ? nil : Int(storedPhoto) }
        var size: RenditionSize {
            get {
                RenditionSize(
                    role: storedRole, width: storedWidth == .min ? nil : Int(storedWidth),
                    height: storedHeight == .min ? nil : Int(storedHeight), density: storedDensity.isNaN ? nil : storedDensity)
            }
            set {
                storedRole = newValue.role
                storedWidth = newValue.width.map { Self.number($0) } ?? .min
                storedHeight = newValue.height.map { Self.number($0) } ?? .min
                storedDensity = newValue.density ?? .nan
            }
        }

        /// `value` in 32 bits, clamped; `Int32.min` stands for none.
        private static func number(_ value: Int) -> Int32 { max(Int32.min + 1, Int32(clamping: value)) }

        /// Gives the sighting a title, when it has none.
        mutating func name(_ title: String?, source: ImageReference.TitleSource) {
            guard self.title == nil else { return }
            (self.title, titleSource) = (title, source)
        }
    }

    /// The loader's answer for a key, as the catalog keeps it: a stored image is a row of
    /// `state.sqlite`, read back when the publish plan is made (`DiskStorage.records(_:)`).
    /// Holding each image's record here, with its path, hash and validators, cost memory in
    /// proportion to the catalog from the end of the crawl to the end of the run.
    package enum Outcome: Equatable {
        /// In the store; `staged` while its file waits for this run's publish step.
        case stored(staged: Bool)
        /// Boxed: a failure is 32 bytes, and rare; inline it made every entry that much larger.
        indirect case failed(FetchFailure)
        /// The store itself failed (the run stops).
        case storeFailed
        /// A dry run found the key new or changed.
        case probed
        /// The key answered with an HTML page (read as a page when it was only guessed).
        case page
    }

    /// The largest size any sighting gives the key.
    package var largestSize: RenditionSize {
        sightings.map(\.size).max() ?? RenditionSize()
    }

    /// Records where `discovery` saw the key (once per document and photo).
    package func see(_ discovery: Discovery) {
        let sighting = Sighting(
            document: discovery.document, photo: discovery.reference.photo, size: discovery.reference.size,
            isDecoration: discovery.reference.isDecoration, isFromDataFile: discovery.reference.isFromDataFile,
            title: discovery.reference.title,
            titleSource: discovery.reference.titleSource, isGuess: discovery.reference.isGuess)
        if let last = sightings.last, last.document == sighting.document, last.photo == sighting.photo {
            if last.size < sighting.size { sightings[sightings.count - 1].size = sighting.size }
            sightings[sightings.count - 1].name(sighting.title, source: sighting.titleSource)
            return
        }
        sightings.append(sighting)
    }

    package init(key: CanonicalURL, reference: ImageReference, verdict: Verdict) {
        self.key = key
        self.title = reference.title
        self.titleSource = reference.titleSource
        self.metadata = reference.metadata
        self.declaredLength = reference.declaredLength
        self.declaredType = reference.declaredType
        self.verdict = verdict
        self.isShown = !reference.isGuess
    }

    /// Adds what another sighting of the key says: a title from a better source replaces the
    /// current one; other fields fill gaps (first sighting wins on conflicts, so the result
    /// does not depend on anything but document order).
    package func merge(_ reference: ImageReference) {
        if let newTitle = reference.title, title == nil || reference.titleSource > titleSource {
            if let oldTitle = title, oldTitle != newTitle, metadata["alt"] == nil, titleSource == .attribute {
                metadata["alt"] = oldTitle
            }
            title = newTitle
            titleSource = reference.titleSource
        }
        metadata.merge(reference.metadata) { current, _ in current }
        declaredLength = declaredLength ?? reference.declaredLength
        declaredType = declaredType ?? reference.declaredType
        if !reference.isGuess { isShown = true }
    }

    /// The reason this key is not published, if it is not. A key only guessed to be an image
    /// that answered with anything else, or failed, is `unconfirmed`; one that answered with a
    /// page is a page, not a rejected key (nil), unless a document shows it as an image.
    var rejection: RejectionReason? {
        if case .rejected(let reason) = verdict { return reason }
        switch outcome {
        case .failed(let failure) where !isShown && !failure.reason.isPolicy: return .unconfirmed
        case .failed(let failure): return failure.reason
        case .page: return isShown ? .notAnImage : nil
        case .storeFailed: return .networkError
        default: return nil
        }
    }

    /// Whether the key is a page that a document only guessed to be an image (a photo's own
    /// page, linked where its image is shown): a link to that page, not a rendition.
    var isGuessedPage: Bool { outcome == .page && !isShown }

    /// Whether the key was only guessed to be an image and answered with something else (a
    /// page, a document, an error): no rendition of any photo.
    var isFailedGuess: Bool {
        guard !isShown else { return false }
        switch outcome {
        case .page, .failed: return true
        default: return false
        }
    }

    /// Whether the key may still be a rendition of a photo: accepted, and not found to be
    /// something else (a page, or a failed guess).
    package var mayBeRendition: Bool {
        guard verdict == .accepted else { return false }
        switch outcome {
        case .page: return false
        case .failed: return isShown
        default: return true
        }
    }

    /// Whether a document links the key as content, not only shows it: the target of a link,
    /// a feed's enclosure, an original a page names, or an image a data file lists.
    package var isLinkedAsContent: Bool {
        sightings.contains { $0.size.role >= .full || $0.isFromDataFile }
    }

    /// Whether the key's image is in the store.
    var isStored: Bool {
        if case .stored = outcome { return true }
        return false
    }
}

extension CatalogEntry {
    /// `entries` in key order, the manifest's (the keys' bytes). The keys' bytes are packed
    /// into one buffer and positions sorted with a `memcmp` a comparison: sorting the entries
    /// by `entry.key`, or positions by keys held in an array, copied two keys a comparison (a
    /// class's `var`, then a struct of a string), with their retains and releases, and that
    /// was the part of a sync that grew faster than n (Benchmarks/results/history.md,
    /// "Entries sorted by their keys' bytes").
    package static func sortedByKey(_ entries: some Sequence<CatalogEntry>) -> [CatalogEntry] {
        let entries = Array(entries)
        var keys = PackedBytes()
        for entry in entries { keys.append(entry.key.string.utf8) }
        return keys.byteOrder().map { entries[$0] }
    }
}
