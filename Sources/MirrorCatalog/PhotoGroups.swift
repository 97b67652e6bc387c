import MirrorCore
import MirrorCrawl
import MirrorMarkup

/// Ties the renditions of each photo together once the crawl is over, and says which page each
/// photo belongs to.
///
/// Readers number the photos of each document; two references with one number in one document
/// are renditions of one photo. Across documents, photos are joined when they share a key (the
/// same thumbnail on an album page and on a per-photo page's strip) and when a photo links to a
/// per-photo page whose one main image is another rendition (thumbnail → page → display size
/// and original). A key that would join more than two different photos is a placeholder (a
/// spinner every lazy image shows, a theme image) and joins nothing: it stays a photo of its own.
package struct PhotoGroups {
    /// One photo: its renditions and the page it was first found on.
    package struct Photo {
        /// The renditions, in key order.
        package var entries: [CatalogEntry]
        /// Their numbers: positions in `PhotoGroups.entries`.
        var numbers: ArraySlice<Int32>
        var keys: [CanonicalURL] { entries.map(\.key) }
        /// The document number of the first page (in crawl order) where the photo was found;
        /// nil when it was found in feeds or sitemaps only.
        var album: Int?
        /// The photo's own page (a per-photo page, an attachment or file page): the page, in
        /// crawl order first, that a rendition links to and whose main image the photo is.
        var page: Int?
    }

    /// The photos, in the order of their first key.
    package struct Photos: RandomAccessCollection {
        fileprivate let groups: PhotoGroups
        package var startIndex: Int { 0 }
        package var endIndex: Int { groups.photoAlbum.count }
        package subscript(position: Int) -> Photo { groups.photo(number: position) }
    }

    /// The catalog's entries in key order; a key's number is its position here.
    let entries: [CatalogEntry]
    /// The photos, each with its renditions in key order.
    package var photos: Photos { Photos(groups: self) }
    /// Keys that are the site's decoration, not photos: an image that is a photo of its own (no
    /// other rendition, no per-photo page) on at least 3 pages and at least half of the pages
    /// read (an arrow, a theme's fullscreen button), found in their markup only (not in a feed
    /// or a data file they load). Empty when that would leave no photo.
    package private(set) var decorations: Set<CanonicalURL> = []
    /// The pairs the structure proposed that `evidence` has no answer for: joined as proposed.
    /// The engine compares their pixels and groups again.
    package private(set) var unjudged: [RenditionEvidence.Pair] = []
    /// The pairs proposed only as an album's cover and one of the album's photos: a cover that
    /// is none of them is the usual case, not a pair the pages claimed (not counted as split).
    package private(set) var coverPairs: Set<RenditionEvidence.Pair> = []
    /// Keys whose pixels matched another rendition of their photo: the only ones
    /// `--variants largest` may discard.
    private(set) var confirmed: [Bool] = []
    /// What the pixels said, when they were asked.
    let evidence: RenditionEvidence?
    /// Photos of a document that link to a page of other photos: album covers, whose title
    /// names the album, not the photo; each with the album page it links to.
    private var covers: [Local: CanonicalURL] = [:]
    /// Photos of a document that link to another page of the crawl, with that page's number.
    private var linkedPages: [Local: Int] = [:]

    // Every per-key and per-photo table is an array indexed by number: the dictionaries and
    // per-key arrays this replaced were much of a run's peak (`Benchmarks/results/feed-memory.md`).
    /// The photo each key is a rendition of.
    private var photoOfKey: [Int32] = []
    /// Each photo's keys: `photoKeys[photoStart[p]..<photoStart[p + 1]]`.
    private var photoKeys: [Int32] = []
    private var photoStart: [Int32] = []
    /// Each photo's album, or -1.
    private var photoAlbum: [Int32] = []
    /// Each photo's own page, or -1.
    private var photoPage: [Int32] = []
    /// The original each key is a CMS's resized copy of (`RenditionFamily`), by number, or -1.
    private var copyOf: [Int32] = []

    /// How many keys of one local photo are compared pair by pair; more, each with the largest.
    static let pairwiseLocal = 4
    /// How many photos a key may be shown with, in different company, and still be compared
    /// with each (`eligible`).
    static let placeholderLocals = 64
    /// How many photos of an album page its cover is compared with.
    static let coverCandidates = 32

    /// Whether `sighting` is an album's cover (a thumbnail linking to its album page).
    func isCover(_ sighting: CatalogEntry.Sighting) -> Bool { coveredPage(by: sighting) != nil }

    /// The album page `sighting` links to when it is an album's cover.
    func coveredPage(by sighting: CatalogEntry.Sighting) -> CanonicalURL? {
        guard let photo = sighting.photo else { return nil }
        return covers[Local(document: sighting.document, photo: photo)]
    }

    /// The page of the crawl that `sighting`'s photo links to, by its number, when it links to one.
    func linkedPage(of sighting: CatalogEntry.Sighting) -> Int? {
        guard let photo = sighting.photo else { return nil }
        return linkedPages[Local(document: sighting.document, photo: photo)]
    }

    /// Whether `copy` is a CMS's resized copy of `original` (`RenditionFamily`): smaller,
    /// whatever the pages say of either.
    package func isResizedCopy(_ copy: CanonicalURL, of original: CanonicalURL) -> Bool {
        guard let number = number(of: copy), copyOf[number] >= 0 else { return false }
        let made = copyOf[number]
        return entries[Int(made)].key == original
    }

    /// The photo `key` is a rendition of.
    func photo(of key: CanonicalURL) -> Photo? {
        number(of: key).map { photo(number: Int(photoOfKey[$0])) }
    }

    private func number(of key: CanonicalURL) -> Int? {
        let index = entries.partitioningIndex { !($0.key < key) }
        return index < entries.count && entries[index].key == key ? index : nil
    }

    private func photo(number: Int) -> Photo {
        let numbers = photoKeys[Int(photoStart[number])..<Int(photoStart[number + 1])]
        let album = photoAlbum[number]
        let page = photoPage[number]
        return Photo(
            entries: numbers.map { entries[Int($0)] }, numbers: numbers, album: album < 0 ? nil : Int(album),
            page: page < 0 ? nil : Int(page))
    }

    /// A photo of one document, as its reader numbered it: one word, ordered by document, then
    /// photo, so the photos of one document are neighbours in a sorted array.
    private struct Local: Hashable, Comparable {
        let bits: UInt64

        init(document: Int, photo: Int) {
            bits = UInt64(UInt32(truncatingIfNeeded: document)) << 32 | UInt64(UInt32(truncatingIfNeeded: photo))
        }

        var document: Int { Int(bits >> 32) }
        var photo: Int { Int(bits & 0xFFFF_FFFF) }

        static func < (lhs: Local, rhs: Local) -> Bool { lhs.bits < rhs.bits }
    }

    /// Which keys show which local photos, both ways, over dense numbers (compressed rows: the
    /// locals of key `k` are `localOfPair[keyStart[k]..<keyStart[k + 1]]`).
    private struct Incidence {
        /// Every local photo, sorted; a local's number is its position.
        var locals: [Local] = []
        var keyStart: [Int32] = [0]
        var localOfPair: [Int32] = []
        var localStart: [Int32] = []
        var keyOfPair: [Int32] = []
        /// Locals a page shows as an image (not only a link to an image file).
        var shown: [Bool] = []

        init(entries: [CatalogEntry]) {
            var pairs: [Local] = []
            var shownLocals: [Local] = []
            var starts: [Int32] = [0]
            starts.reserveCapacity(entries.count + 1)
            for entry in entries {
                let begin = pairs.count
                // A guess that is no image is no rendition: a page links its photo to that page
                // (`linkOfLocal`), anything else joins nothing.
                for sighting in entry.sightings where !entry.isFailedGuess {
                    guard let photo = sighting.photo else { continue }
                    let local = Local(document: sighting.document, photo: photo)
                    pairs.append(local)
                    // What a page shows, not what it only suggests (a data-* value, an API's URL).
                    if sighting.size.role <= .display, !sighting.isGuess { shownLocals.append(local) }
                }
                // Each key's locals once, sorted (a key seen twice on one page is one photo there).
                Self.sortOnce(&pairs, from: begin)
                starts.append(Int32(pairs.count))
            }
            keyStart = starts
            // Sorted, each once (a set of them first cost a hash table as large again).
            var unique = pairs
            Self.sortOnce(&unique, from: 0)
            locals = unique
            localOfPair = pairs.map { Int32(Self.index(of: $0, in: locals) ?? 0) }
            shown = Array(repeating: false, count: locals.count)
            for local in shownLocals { if let index = Self.index(of: local, in: locals) { shown[index] = true } }
            // The keys of each local, in key order (a counting sort of the pairs by local).
            var counts = Array(repeating: Int32(0), count: locals.count + 1)
            for local in localOfPair { counts[Int(local) + 1] += 1 }
            for index in 1..<counts.count { counts[index] += counts[index - 1] }
            localStart = counts
            var next = counts
            keyOfPair = Array(repeating: 0, count: localOfPair.count)
            for key in 0..<entries.count {
                for pair in Int(keyStart[key])..<Int(keyStart[key + 1]) {
                    let local = Int(localOfPair[pair])
                    keyOfPair[Int(next[local])] = Int32(key)
                    next[local] += 1
                }
            }
        }

        /// Sorts `array[start...]` and keeps each value there once.
        static func sortOnce(_ array: inout [Local], from start: Int) {
            guard array.count - start > 1 else { return }
            array[start...].sort()
            var write = start + 1
            for read in (start + 1)..<array.count where array[read] != array[write - 1] {
                array[write] = array[read]
                write += 1
            }
            array.removeSubrange(write...)
        }

        static func index(of local: Local, in locals: [Local]) -> Int? {
            let index = locals.partitioningIndex { !($0 < local) }
            return index < locals.count && locals[index] == local ? index : nil
        }

        func locals(ofKey key: Int) -> ArraySlice<Int32> { localOfPair[Int(keyStart[key])..<Int(keyStart[key + 1])] }
        func keys(ofLocal local: Int) -> ArraySlice<Int32> { keyOfPair[Int(localStart[local])..<Int(localStart[local + 1])] }

        /// The numbers of the locals of one document.
        func locals(ofDocument document: Int) -> Range<Int> {
            let first = locals.partitioningIndex { $0.document >= document }
            let end = locals[first...].partitioningIndex { $0.document > document }
            return first..<end
        }
    }

    /// - Parameters:
    ///   - entries: every key the run saw.
    ///   - summary: what the crawl read: documents, page numbers, links from photos to pages.
    ///   - findsDecorations: whether the site's furniture is told apart (`decorations`); off
    ///     when the user named the images they want (`--include`). Default: true.
    ///   - evidence: what the pixels said of the pairs the structure proposes; nil to join every
    ///     proposed pair (the grouping that decides which pairs to compare, `unjudged`).
    package init(
        entries: some Sequence<CatalogEntry>, summary: CrawlSummary, findsDecorations: Bool = true,
        evidence: RenditionEvidence? = nil
    ) {
        self.entries = CatalogEntry.sortedByKey(entries)
        self.evidence = evidence
        // What the pages say, then the pairs it proposes, then the photos they make.
        let structure = Structure(entries: self.entries, summary: summary, number: number(of:))
        var joining = Joining(entries: self.entries, evidence: evidence, structure: structure)
        joining.proposeWithinDocuments()
        copyOf = structure.family
        joining.proposeFamilies()
        let ownPages = proposeOwnPages(&joining, summary: summary)
        unjudged = joining.unjudged
        confirmed = joining.confirmedKey
        coverPairs = joining.coverPairs
        numberPhotos(&joining, ownPages: ownPages, summary: summary)
        decorations = findsDecorations ? decorations(frequent: structure.frequent) : []
    }

    /// What the pages say of the keys, before any pair is proposed: which keys show which local
    /// photos (`graph`), which photo links to which page, which keys are the site's furniture
    /// (`frequent`), which a CMS made from which original (`family`), and which are
    /// placeholders.
    private struct Structure {
        let entries: [CatalogEntry]
        let graph: Incidence
        /// The page each local photo links to.
        private(set) var linkOfLocal: [Local: CanonicalURL] = [:]
        /// By document: how many of its photos link to other pages of the crawl.
        private(set) var linkingPhotos: [Int: Int] = [:]
        private let pageNumbers: [CanonicalURL: Int]
        /// Images alone on most pages (an arrow, a theme's button): decoration, joined to
        /// nothing and never a per-photo page's main image.
        private(set) var frequent: [Bool]
        /// The original each key is a CMS's resized copy of (`RenditionFamily`), by number, or -1.
        private(set) var family: [Int32]
        /// The original each key's name says it was made from, when the catalog does not hold
        /// it: copies of one such original propose each other.
        private(set) var siblings: [String: [Int]] = [:]
        /// Keys whose local photos differ in more than two ways.
        private(set) var placeholder: [Bool]

        init(entries: [CatalogEntry], summary: CrawlSummary, number: (CanonicalURL) -> Int?) {
            self.entries = entries
            graph = Incidence(entries: entries)
            pageNumbers = summary.pageNumbers
            let keyCount = entries.count
            frequent = Array(repeating: false, count: keyCount)
            family = Array(repeating: Int32(-1), count: keyCount)
            placeholder = Array(repeating: false, count: keyCount)
            findLinks(summary: summary)
            findFrequent(summary: summary)
            findFamilies(number: number)
            findPlaceholders()
        }

        private mutating func findLinks(summary: CrawlSummary) {
            for link in summary.photoLinks { linkOfLocal[Local(document: link.document, photo: link.photo)] = link.page }
            // A guessed image URL that answered with a page is the photo's link to its own page
            // (`/wiki/File:X.jpg` around the thumbnail): the page's main image is the same photo.
            for entry in entries where entry.isGuessedPage {
                for sighting in entry.sightings {
                    guard let photo = sighting.photo else { continue }
                    let local = Local(document: sighting.document, photo: photo)
                    if linkOfLocal[local] == nil { linkOfLocal[local] = entry.key }
                }
            }
            // A page with more than two photos that link to other pages of the crawl is an album
            // page (Zenphoto's "back" arrow links to one), not a per-photo page (which links at most
            // its neighbours). Links to the page itself (a wiki's file page links its own preview)
            // and out of the crawl (a "Powered by" badge) say nothing of it.
            let pageNumbers = self.pageNumbers
            linkingPhotos = Dictionary(
                grouping: linkOfLocal.filter { local, target in
                    pageNumbers[target].map { $0 != local.document } ?? false
                }.keys, by: \.document
            ).mapValues(\.count)
        }

        /// Whether `local` links to a per-photo page of the crawl.
        func linksToPhotoPage(_ local: Local) -> Bool {
            guard let target = linkOfLocal[local], let page = pageNumbers[target] else { return false }
            return linkingPhotos[page, default: 0] <= 2
        }

        /// A thumbnail that links to its per-photo page is a photo however often it shows (a
        /// small gallery's strip is on every page).
        private mutating func findFrequent(summary: CrawlSummary) {
            let pages = summary.documents.values.filter { $0.kind == .page }.count
            guard pages >= 3 else { return }
            for key in 0..<entries.count {
                let locals = graph.locals(ofKey: key)
                guard !locals.isEmpty,
                    locals.allSatisfy({
                        graph.keys(ofLocal: Int($0)).count == 1 && !linksToPhotoPage(graph.locals[Int($0)])
                    }),
                    PhotoGroups.isOnlyInMarkup(entries[key], summary: summary)
                else { continue }
                let onPages = Set(
                    locals.map { graph.locals[Int($0)].document }.filter { summary.documents[$0]?.kind == .page }
                ).count
                if onPages >= 3, onPages * 2 >= pages { frequent[key] = true }
            }
        }

        private mutating func findFamilies(number: (CanonicalURL) -> Int?) {
            for key in 0..<entries.count {
                let candidates = RenditionFamily.originals(of: entries[key].key)
                for text in candidates {
                    guard let original = CanonicalURL(text), let other = number(original), other != key else { continue }
                    family[key] = Int32(other)
                    break
                }
                if family[key] < 0, let stem = candidates.first { siblings[stem, default: []].append(key) }
            }
        }

        /// Whether two keys are copies of one original, or one is the other's.
        func isKin(_ a: Int, _ b: Int) -> Bool {
            family[a] == Int32(b) || family[b] == Int32(a) || (family[a] >= 0 && family[a] == family[b])
        }

        /// Placeholders: keys whose local photos differ in more than two ways. A CMS's copies
        /// of one original beside it make no difference (a wiki's file shows with a different
        /// thumbnail on each page that lists it).
        private mutating func findPlaceholders() {
            for key in 0..<entries.count where graph.locals(ofKey: key).count > 2 {
                var shapes: Set<String> = []
                for local in graph.locals(ofKey: key) {
                    let others = graph.keys(ofLocal: Int(local)).filter { Int($0) != key && !isKin(key, Int($0)) }
                        .map { entries[Int($0)].key.string }.sorted()
                    shapes.insert(
                        others.joined(separator: " ") + " -> " + (linkOfLocal[graph.locals[Int(local)]]?.string ?? ""))
                    if shapes.count > 2 { break }
                }
                if shapes.count > 2 { placeholder[key] = true }
            }
        }

        /// A key shown in many different company (a spinner every lazy image shows) is put to
        /// the pixels like any other, up to `placeholderLocals` photos: past that, comparing it
        /// with each would cost more than it could tell, and it joins nothing.
        func eligible(_ key: Int) -> Bool {
            !frequent[key] && !graph.locals(ofKey: key).isEmpty
                && !(placeholder[key] && graph.locals(ofKey: key).count > PhotoGroups.placeholderLocals)
        }
    }

    /// The pairs the structure proposes, and the sets of keys they join: keys join as
    /// renditions of one photo only when the structure proposes the pair and, where `evidence`
    /// has compared them, their pixels match (`propose`).
    private struct Joining {
        let entries: [CatalogEntry]
        let evidence: RenditionEvidence?
        let structure: Structure
        var sets: DisjointSets
        var confirmedKey: [Bool]
        var unjudged: [RenditionEvidence.Pair] = []
        var coverPairs: Set<RenditionEvidence.Pair> = []
        /// The largest rendition of each local photo, by key number, or -1.
        var anchorOfLocal: [Int32]

        init(entries: [CatalogEntry], evidence: RenditionEvidence?, structure: Structure) {
            self.entries = entries
            self.evidence = evidence
            self.structure = structure
            sets = DisjointSets(count: entries.count)
            confirmedKey = Array(repeating: false, count: entries.count)
            anchorOfLocal = Array(repeating: Int32(-1), count: structure.graph.locals.count)
        }

        /// Joins keys `a` and `b` unless their pixels were compared and differ. Every proposal
        /// without an answer is recorded (`unjudged`), even of keys already joined otherwise,
        /// so one round of comparisons answers them all. A `weak` proposal (an album's cover
        /// and the photos of the album it links to) joins only on a match.
        mutating func propose(_ a: Int, _ b: Int, weak: Bool = false) {
            guard a != b else { return }
            if weak { coverPairs.insert(RenditionEvidence.Pair(entries[a].key, entries[b].key)) }
            let answer = evidence?.answer(entries[a].key, entries[b].key)
            if answer == nil { unjudged.append(RenditionEvidence.Pair(entries[a].key, entries[b].key)) }
            if answer == .match {
                confirmedKey[a] = true
                confirmedKey[b] = true
            }
            guard sets.find(a) != sets.find(b) else { return }
            switch answer {
            case .differ?: return
            case .match?: break
            case .unknown?, .absent?, nil: if weak { return }
            }
            sets.union(a, b)
        }

        /// The renditions one document shows as one photo (a `srcset`, an image and its link's
        /// target, its `data-*` values): each pair of them when they are few (so a spinner
        /// among them splits from the photo, not the photo's renditions from each other), else
        /// each against the largest, the local's anchor.
        mutating func proposeWithinDocuments() {
            let graph = structure.graph
            for local in 0..<graph.locals.count {
                let keys = graph.keys(ofLocal: local).map(Int.init).filter(structure.eligible)
                guard
                    let anchor = keys.max(by: { a, b in
                        let (sizeA, sizeB) = (entries[a].largestSize, entries[b].largestSize)
                        if sizeA < sizeB || sizeB < sizeA { return sizeA < sizeB }
                        return (entries[a].declaredLength ?? -1) < (entries[b].declaredLength ?? -1)
                    })
                else { continue }
                anchorOfLocal[local] = Int32(anchor)
                if keys.count <= PhotoGroups.pairwiseLocal {
                    for (index, key) in keys.enumerated() { for other in keys[(index + 1)...] { propose(key, other) } }
                } else {
                    for key in keys where key != anchor { propose(key, anchor) }
                }
            }
        }

        /// A CMS's resized copy and its original (`RenditionFamily`), which a page showing the
        /// copy links only through the photo's own page; and copies of one original that the
        /// catalog does not hold (prosopopee's `a-x900.jpg` and `a-x2000.jpg`, its `a.jpg` shown
        /// nowhere): each against the largest of them.
        mutating func proposeFamilies() {
            let family = structure.family
            for key in 0..<entries.count
            where family[key] >= 0 && structure.eligible(key) && structure.eligible(Int(family[key])) {
                propose(key, Int(family[key]))
            }
            for (_, all) in structure.siblings.sorted(by: { $0.key < $1.key }) where all.count > 1 {
                let keys = all.filter(structure.eligible)
                guard
                    let largest = keys.max(by: { a, b in
                        let (sizeA, sizeB) = (entries[a].largestSize, entries[b].largestSize)
                        return sizeA < sizeB || (!(sizeB < sizeA) && entries[a].key > entries[b].key)
                    })
                else { continue }
                for key in keys where key != largest { propose(key, largest) }
            }
        }

        /// The set a local's photo is in; a local with no rendition of its own is alone.
        mutating func component(_ local: Int) -> Int {
            let anchor = anchorOfLocal[local]
            return anchor >= 0 ? sets.find(Int(anchor)) : entries.count + local
        }
    }

    /// A photo that links to a per-photo page is the same photo as that page's main image
    /// (links in document order, so which photos are joined never depends on hashing), when
    /// their pixels agree; one that links to an album page is that album's cover. Records
    /// `linkedPages` and `covers`; returns the photos whose own page each local's link is.
    private mutating func proposeOwnPages(_ joining: inout Joining, summary: CrawlSummary) -> [(local: Int, page: Int)] {
        let structure = joining.structure
        let graph = structure.graph
        var ownPages: [(local: Int, page: Int)] = []
        for (local, target) in structure.linkOfLocal.sorted(by: { $0.key < $1.key }) {
            guard let number = Incidence.index(of: local, in: graph.locals), joining.anchorOfLocal[number] >= 0,
                let page = summary.pageNumbers[target], page != local.document
            else { continue }
            linkedPages[local] = page
            let candidates = graph.locals(ofDocument: page).filter { candidate in
                !graph.keys(ofLocal: candidate).allSatisfy { structure.frequent[Int($0)] }
            }
            var main =
                structure.linksToPhotoPage(local)
                ? Self.mainPhoto(
                    of: candidates, graph: graph, links: structure.linkOfLocal, entries: entries,
                    component: { joining.component($0) })
                : []
            // Each of the main photo's renditions (the page's image, the "original" it links)
            // against the linked photo: those whose pixels differ are another photo, and when
            // none is left, the link is a cover's.
            let own = Int(joining.anchorOfLocal[number])
            main = main.filter { photo in
                let target = Int(joining.anchorOfLocal[photo])
                guard target >= 0 else { return false }
                joining.propose(own, target)
                return joining.sets.find(own) == joining.sets.find(target)
            }
            if main.isEmpty {
                // An album's cover: the album's picture, often one of its photos again under
                // another name (a theme's cover crop); the pixels say which, if any.
                for candidate in candidates.prefix(Self.coverCandidates) where joining.anchorOfLocal[candidate] >= 0 {
                    joining.propose(own, Int(joining.anchorOfLocal[candidate]), weak: true)
                }
            }
            if main.isEmpty || Self.isCover(number, of: main, page: page, graph: graph, entries: entries, summary: summary) {
                covers[local] = target
            } else {
                ownPages.append((number, page))
            }
        }
        return ownPages
    }

    /// Components become photos, in key order so numbering does not depend on hashing: each
    /// key's photo, each photo's album (the first page in crawl order where it was found,
    /// docs/reference.md), its own page, and its keys.
    private mutating func numberPhotos(
        _ joining: inout Joining, ownPages: [(local: Int, page: Int)], summary: CrawlSummary
    ) {
        let keyCount = entries.count
        var photoOfRoot = Array(repeating: Int32(-1), count: keyCount)
        photoOfKey = Array(repeating: 0, count: keyCount)
        // The first page where each photo was seen as an album's cover: its album only when it
        // was seen nowhere else (a cover is the album's picture, not a photo of the page above).
        var coverAlbum: [Int32] = []
        for key in 0..<keyCount {
            var number = Int32(photoAlbum.count)
            if joining.structure.eligible(key) {
                let root = joining.sets.find(key)
                if photoOfRoot[root] >= 0 { number = photoOfRoot[root] } else { photoOfRoot[root] = number }
            }
            if number == photoAlbum.count {
                photoAlbum.append(-1)
                coverAlbum.append(-1)
            }
            photoOfKey[key] = number
            // An album's cover on the page above it is the album's picture, not the photo found.
            for sighting in entries[key].sightings where summary.documents[sighting.document]?.kind == .page {
                let album = Int32(sighting.document)
                let isCover = sighting.photo.map { covers[Local(document: sighting.document, photo: $0)] != nil } ?? false
                if isCover {
                    if coverAlbum[Int(number)] < 0 || album < coverAlbum[Int(number)] { coverAlbum[Int(number)] = album }
                } else if photoAlbum[Int(number)] < 0 || album < photoAlbum[Int(number)] {
                    photoAlbum[Int(number)] = album
                }
            }
        }
        for photo in photoAlbum.indices where photoAlbum[photo] < 0 { photoAlbum[photo] = coverAlbum[photo] }
        // Each photo's own page: the first, in crawl order, whose main image it is.
        photoPage = Array(repeating: -1, count: photoAlbum.count)
        for (local, page) in ownPages {
            let anchor = Int(joining.anchorOfLocal[local])
            let root = joining.sets.find(anchor)
            guard photoOfRoot[root] >= 0 else { continue }
            let photo = Int(photoOfRoot[root])
            if photoPage[photo] < 0 || Int32(page) < photoPage[photo] { photoPage[photo] = Int32(page) }
        }
        // Each photo's keys, in key order (a counting sort of the keys by photo).
        var starts = Array(repeating: Int32(0), count: photoAlbum.count + 1)
        for photo in photoOfKey { starts[Int(photo) + 1] += 1 }
        for index in 1..<starts.count { starts[index] += starts[index - 1] }
        photoStart = starts
        photoKeys = Array(repeating: 0, count: keyCount)
        for key in 0..<keyCount {
            let photo = Int(photoOfKey[key])
            photoKeys[Int(starts[photo])] = Int32(key)
            starts[photo] += 1
        }
    }

    /// Whether local photo `link`, whose main photo on page `page` is `main`, is that page's
    /// cover rather than a link to the photo's own page: its label names the page ("Before the
    /// storm", a post's featured image in a list of posts) while the page labels the photo
    /// otherwise ("Dark storm clouds above a road"). A per-photo page is named after its photo.
    private static func isCover(
        _ link: Int, of main: [Int], page: Int, graph: Incidence, entries: [CatalogEntry], summary: CrawlSummary
    ) -> Bool {
        guard let document = summary.documents[page], let linkLabel = label(of: link, graph: graph, entries: entries),
            names(linkLabel, page: document)
        else { return false }
        let own = main.lazy.compactMap { Self.label(of: $0, graph: graph, entries: entries) }.first
        return own.map { !names($0, page: document) } ?? false
    }

    /// The label a page gives local photo `local` (the first title its sightings there carry).
    private static func label(of local: Int, graph: Incidence, entries: [CatalogEntry]) -> String? {
        let place = graph.locals[local]
        for key in graph.keys(ofLocal: local) {
            for sighting in entries[Int(key)].sightings
            where sighting.document == place.document && sighting.photo == place.photo && sighting.title != nil {
                return sighting.title
            }
        }
        return nil
    }

    /// Whether `label` is the name of `page`: its first heading, or its title alone or before
    /// the site's name ("Before the storm – Field Notes").
    static func names(_ label: String, page: CrawlSummary.Document) -> Bool {
        if page.heading == label || page.title == label { return true }
        guard let title = page.title, title.hasPrefix(label) else { return false }
        let rest = title.dropFirst(label.count)
        return SiteName.separators.contains { rest.hasPrefix($0) }
    }

    /// True when every sighting of `entry` is in a page's own markup: an image a feed, a
    /// listing or a data file names is a catalog item, however many pages load that file.
    private static func isOnlyInMarkup(_ entry: CatalogEntry, summary: CrawlSummary) -> Bool {
        entry.sightings.allSatisfy { !$0.isFromDataFile && summary.documents[$0.document]?.kind == .page }
    }

    /// The frequent images and the images every sighting marks as decoration; none when that
    /// would leave no photo.
    private func decorations(frequent: [Bool]) -> Set<CanonicalURL> {
        var found = frequent
        for (key, entry) in entries.enumerated() where !entry.sightings.isEmpty && entry.sightings.allSatisfy(\.isDecoration) {
            found[key] = true
        }
        let photosLeft = (0..<photoAlbum.count).contains { photo in
            photoKeys[Int(photoStart[photo])..<Int(photoStart[photo + 1])].contains { !found[Int($0)] }
        }
        guard photosLeft else { return [] }
        return Set(found.indices.filter { found[$0] }.map { entries[$0].key })
    }

    /// The main image of a per-photo page: its photos that do not link to another page when it
    /// shows at most one of them as an image (the others are links to image files, like
    /// lazygal's "Original picture"), or among several shown, the one whose largest rendition
    /// is larger than every other's. Empty when the page shows several photos alike (an album
    /// page, not a per-photo page). `locals` are numbers of one document's locals, in photo order.
    /// Locals that share a key (`component` gives each its set) are one photo: a file page's
    /// preview and its history's thumbnail both link to the original.
    private static func mainPhoto(
        of locals: [Int], graph: Incidence, links: [Local: CanonicalURL], entries: [CatalogEntry],
        component: (Int) -> Int
    ) -> [Int] {
        let candidates = Dictionary(grouping: locals.filter { links[graph.locals[$0]] == nil }, by: component)
            .values.sorted { $0[0] < $1[0] }
        let shown = candidates.filter { $0.contains { graph.shown[$0] } }
        switch shown.count {
        case 0: return candidates.count == 1 ? candidates[0] : []
        case 1: return candidates.count == 1 ? candidates[0] : candidates.flatMap { $0 }
        default: break
        }
        let sized = candidates.map { photo -> ([Int], RenditionSize) in
            let sizes = photo.flatMap { graph.keys(ofLocal: $0) }.map { entries[Int($0)].largestSize }
            return (photo, sizes.max() ?? RenditionSize(role: .thumbnail))
        }.sorted { $0.1 > $1.1 }
        return sized[0].1 > sized[1].1 ? sized[0].0 : []
    }
}

/// Union-find over dense indices, with path halving and union by size.
struct DisjointSets {
    private var parent: [Int32]
    private var size: [Int32]

    /// `count` elements, each in a set of its own.
    init(count: Int = 0) {
        parent = (0..<Int32(count)).map { $0 }
        size = Array(repeating: 1, count: count)
    }

    mutating func add() -> Int {
        parent.append(Int32(parent.count))
        size.append(1)
        return parent.count - 1
    }

    mutating func find(_ element: Int) -> Int {
        var current = element
        while Int(parent[current]) != current {
            parent[current] = parent[Int(parent[current])]
            current = Int(parent[current])
        }
        return current
    }

    mutating func union(_ first: Int, _ second: Int) {
        var a = find(first)
        var b = find(second)
        guard a != b else { return }
        if size[a] < size[b] { swap(&a, &b) }
        parent[b] = Int32(a)
        size[a] += size[b]
    }
}

extension RandomAccessCollection {
    /// The first index whose element is in the second part of a collection partitioned by
    /// `isInSecondPart` (every element for which it is false comes first): a binary search.
    func partitioningIndex(where isInSecondPart: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try isInSecondPart(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
