/// Ties the renditions of each photo together once the crawl is over, and says which page each
/// photo belongs to.
///
/// Readers number the photos of each document; two references with one number in one document
/// are renditions of one photo. Across documents, photos are joined when they share a key (the
/// same thumbnail on an album page and on a per-photo page's strip) and when a photo links to a
/// per-photo page whose one main image is another rendition (thumbnail → page → display size
/// and original). A key that would join more than two different photos is a placeholder (a
/// spinner every lazy image shows, a theme image) and joins nothing: it stays a photo of its own.
struct PhotoGroups {
    /// One photo: its renditions and the page it was first found on.
    struct Photo {
        var keys: [CanonicalURL]
        /// The document number of the first page (in crawl order) where the photo was found;
        /// nil when it was found in feeds or sitemaps only.
        var album: Int?
    }

    private(set) var photos: [Photo] = []
    /// Keys that are the site's decoration, not photos: an image that is a photo of its own (no
    /// other rendition, no per-photo page) on at least 3 pages and at least half of the pages
    /// read (an arrow, a theme's fullscreen button), found in their markup only (not in a feed
    /// or a data file they load). Empty when that would leave no photo.
    private(set) var decorations: Set<CanonicalURL> = []
    /// Photos of a document that link to a page of other photos: album covers, whose title
    /// names the album, not the photo.
    private var covers: Set<Local> = []

    /// Whether `sighting` is an album's cover (a thumbnail linking to its album page).
    func isCover(_ sighting: CatalogEntry.Sighting) -> Bool {
        guard let photo = sighting.photo else { return false }
        return covers.contains(Local(document: sighting.document, photo: photo))
    }
    /// By the key's text: a `CanonicalURL` key is 48 bytes and this map holds one per key seen
    /// (11 MB of a 50,000-item run's peak, now less than half of that).
    private var photoOfKey: [String: Int32] = [:]

    /// The photo `key` is a rendition of.
    func photo(of key: CanonicalURL) -> Photo? {
        photoOfKey[key.string].map { photos[Int($0)] }
    }

    /// A photo of one document, as its reader numbered it.
    private struct Local: Hashable {
        var document: Int
        var photo: Int
    }

    init(catalog: [CanonicalURL: CatalogEntry], summary: CrawlSummary) {
        // The local photos each key belongs to, and the keys of each local photo.
        var localsOfKey: [CanonicalURL: [Local]] = [:]
        var keysOfLocal: [Local: [CanonicalURL]] = [:]
        // Local photos a page shows as an image (not only a link to an image file).
        var shown: Set<Local> = []
        for entry in catalog.values {
            for sighting in entry.sightings {
                guard let photo = sighting.photo else { continue }
                let local = Local(document: sighting.document, photo: photo)
                if sighting.size.role <= .display { shown.insert(local) }
                if localsOfKey[entry.key, default: []].last != local { localsOfKey[entry.key, default: []].append(local) }
                if keysOfLocal[local]?.last != entry.key { keysOfLocal[local, default: []].append(entry.key) }
            }
        }
        var linkOfLocal: [Local: CanonicalURL] = [:]
        for link in summary.photoLinks { linkOfLocal[Local(document: link.document, photo: link.photo)] = link.page }
        // A page with more than two photos that link to pages is an album page (Zenphoto's
        // "back" arrow links to one), not a per-photo page (which links at most its neighbours).
        let linkingPhotos = Dictionary(grouping: linkOfLocal.keys, by: \.document).mapValues(\.count)
        func linksToPhotoPage(_ local: Local) -> Bool {
            guard let target = linkOfLocal[local], let page = summary.pageNumbers[target] else { return false }
            return linkingPhotos[page, default: 0] <= 2
        }

        // Images alone on most pages (an arrow, a theme's button): decoration, joined to nothing
        // and never a per-photo page's main image. A thumbnail that links to its per-photo page
        // is a photo however often it shows (a small gallery's strip is on every page).
        let pages = summary.documents.values.filter { $0.kind == .page }.count
        var frequent: Set<CanonicalURL> = []
        if pages >= 3 {
            for (key, locals) in localsOfKey
            where locals.allSatisfy({ keysOfLocal[$0] == [key] && !linksToPhotoPage($0) })
                && catalog[key].map({ Self.isOnlyInMarkup($0, summary: summary) }) ?? false
            {
                let onPages = Set(locals.map(\.document).filter { summary.documents[$0]?.kind == .page }).count
                if onPages >= 3, onPages * 2 >= pages { frequent.insert(key) }
            }
        }

        // Placeholders: keys whose local photos differ in more than two ways.
        var placeholders: Set<CanonicalURL> = []
        for (key, locals) in localsOfKey where locals.count > 2 {
            var shapes: Set<String> = []
            for local in locals {
                let others = (keysOfLocal[local] ?? []).filter { $0 != key }.map(\.string).sorted()
                shapes.insert(others.joined(separator: " ") + " -> " + (linkOfLocal[local]?.string ?? ""))
                if shapes.count > 2 { break }
            }
            if shapes.count > 2 { placeholders.insert(key) }
        }

        var sets = DisjointSets()
        var indexOfLocal: [Local: Int] = [:]
        func index(_ local: Local) -> Int {
            if let known = indexOfLocal[local] { return known }
            let index = sets.add()
            indexOfLocal[local] = index
            return index
        }
        for (key, locals) in localsOfKey where !placeholders.contains(key) && !frequent.contains(key) {
            let first = index(locals[0])
            for local in locals.dropFirst() { sets.union(first, index(local)) }
        }
        // A photo that links to a per-photo page is the same photo as that page's main image.
        let localsOfDocument = Dictionary(grouping: keysOfLocal.keys, by: \.document)
        for (local, target) in linkOfLocal {
            guard indexOfLocal[local] != nil, let page = summary.pageNumbers[target], page != local.document else { continue }
            let locals = (localsOfDocument[page] ?? []).filter { !(keysOfLocal[$0] ?? []).allSatisfy(frequent.contains) }
            let main =
                linksToPhotoPage(local)
                ? Self.mainPhoto(of: locals, links: linkOfLocal, keys: keysOfLocal, shown: shown, catalog: catalog) : []
            for photo in main { sets.union(index(local), index(photo)) }
            if main.isEmpty { covers.insert(local) }
        }

        // Components become photos, in key order so numbering does not depend on hashing.
        var photoOfRoot: [Int: Int] = [:]
        photoOfKey.reserveCapacity(catalog.count)
        for key in catalog.keys.sorted() {
            guard let entry = catalog[key] else { continue }
            var number = photos.count
            if !placeholders.contains(key), !frequent.contains(key), let locals = localsOfKey[key] {
                let root = sets.find(index(locals[0]))
                if let known = photoOfRoot[root] { number = known } else { photoOfRoot[root] = number }
            }
            if number == photos.count { photos.append(Photo(keys: [], album: nil)) }
            photos[number].keys.append(key)
            // SPEC: the album is the first page in crawl order where the photo was found, an
            // album's cover on its parent page included.
            for sighting in entry.sightings where summary.documents[sighting.document]?.kind == .page {
                photos[number].album = min(photos[number].album ?? .max, sighting.document)
            }
            photoOfKey[key.string] = Int32(number)
        }
        decorations = Self.decorations(frequent: frequent, photos: photos, catalog: catalog)
    }

    /// True when every sighting of `entry` is in a page's own markup: an image a feed, a
    /// listing or a data file names is a catalog item, however many pages load that file.
    private static func isOnlyInMarkup(_ entry: CatalogEntry, summary: CrawlSummary) -> Bool {
        entry.sightings.allSatisfy { !$0.isFromDataFile && summary.documents[$0.document]?.kind == .page }
    }

    /// The frequent images and the images every sighting marks as decoration; none when that
    /// would leave no photo.
    private static func decorations(
        frequent: Set<CanonicalURL>, photos: [Photo], catalog: [CanonicalURL: CatalogEntry]
    ) -> Set<CanonicalURL> {
        var found = frequent
        for entry in catalog.values where !entry.sightings.isEmpty && entry.sightings.allSatisfy(\.isDecoration) {
            found.insert(entry.key)
        }
        let photosLeft = photos.contains { !$0.keys.allSatisfy(found.contains) }
        return photosLeft ? found : []
    }

    /// The main image of a per-photo page: its photos that do not link to another page when it
    /// shows at most one of them as an image (the others are links to image files, like
    /// lazygal's "Original picture"), or among several shown, the one whose largest rendition
    /// is larger than every other's. Empty when the page shows several photos alike (an album
    /// page, not a per-photo page).
    private static func mainPhoto(
        of locals: [Local], links: [Local: CanonicalURL], keys: [Local: [CanonicalURL]], shown: Set<Local>,
        catalog: [CanonicalURL: CatalogEntry]
    ) -> [Local] {
        let candidates = locals.filter { links[$0] == nil }.sorted { $0.photo < $1.photo }
        switch candidates.filter(shown.contains).count {
        case 0: return candidates.count == 1 ? candidates : []
        case 1: return candidates
        default: break
        }
        let sized = candidates.map { local -> (Local, RenditionSize) in
            let sizes = (keys[local] ?? []).compactMap { catalog[$0]?.largestSize }
            return (local, sizes.max() ?? RenditionSize(role: .thumbnail))
        }.sorted { $0.1 > $1.1 }
        return sized[0].1 > sized[1].1 ? [sized[0].0] : []
    }
}

/// Union-find over dense indices, with path halving and union by size.
struct DisjointSets {
    private var parent: [Int] = []
    private var size: [Int] = []

    mutating func add() -> Int {
        parent.append(parent.count)
        size.append(1)
        return parent.count - 1
    }

    mutating func find(_ element: Int) -> Int {
        var current = element
        while parent[current] != current {
            parent[current] = parent[parent[current]]
            current = parent[current]
        }
        return current
    }

    mutating func union(_ first: Int, _ second: Int) {
        var a = find(first)
        var b = find(second)
        guard a != b else { return }
        if size[a] < size[b] { swap(&a, &b) }
        parent[b] = a
        size[a] += size[b]
    }
}
