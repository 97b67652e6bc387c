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
    private var photoOfKey: [CanonicalURL: Int] = [:]

    /// The photo `key` is a rendition of.
    func photo(of key: CanonicalURL) -> Photo? {
        photoOfKey[key].map { photos[$0] }
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
        for entry in catalog.values {
            for sighting in entry.sightings {
                guard let photo = sighting.photo else { continue }
                let local = Local(document: sighting.document, photo: photo)
                if localsOfKey[entry.key, default: []].last != local { localsOfKey[entry.key, default: []].append(local) }
                if keysOfLocal[local]?.last != entry.key { keysOfLocal[local, default: []].append(entry.key) }
            }
        }
        var linkOfLocal: [Local: CanonicalURL] = [:]
        for link in summary.photoLinks { linkOfLocal[Local(document: link.document, photo: link.photo)] = link.page }

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
        for (key, locals) in localsOfKey where !placeholders.contains(key) {
            let first = index(locals[0])
            for local in locals.dropFirst() { sets.union(first, index(local)) }
        }
        // A photo that links to a per-photo page is the same photo as that page's main image.
        // One that links to a page of several photos is an album's cover: that sighting does not
        // make the page it is on the photo's album.
        let localsOfDocument = Dictionary(grouping: keysOfLocal.keys, by: \.document)
        var covers: Set<Local> = []
        for (local, target) in linkOfLocal {
            guard indexOfLocal[local] != nil, let page = summary.pageNumbers[target], page != local.document else { continue }
            if let main = Self.mainPhoto(
                of: localsOfDocument[page] ?? [], links: linkOfLocal, keys: keysOfLocal, catalog: catalog)
            {
                sets.union(index(local), index(main))
            } else if localsOfDocument[page] != nil {
                covers.insert(local)
            }
        }

        // Components become photos, in key order so numbering does not depend on hashing.
        var photoOfRoot: [Int: Int] = [:]
        var coverAlbums: [Int: Int] = [:]
        for key in catalog.keys.sorted() {
            guard let entry = catalog[key] else { continue }
            var number = photos.count
            if !placeholders.contains(key), let locals = localsOfKey[key] {
                let root = sets.find(index(locals[0]))
                if let known = photoOfRoot[root] { number = known } else { photoOfRoot[root] = number }
            }
            if number == photos.count { photos.append(Photo(keys: [], album: nil)) }
            photos[number].keys.append(key)
            for sighting in entry.sightings where summary.documents[sighting.document]?.kind == .page {
                let isCover = sighting.photo.map { covers.contains(Local(document: sighting.document, photo: $0)) } ?? false
                if isCover {
                    coverAlbums[number] = min(coverAlbums[number] ?? .max, sighting.document)
                } else {
                    photos[number].album = min(photos[number].album ?? .max, sighting.document)
                }
            }
            photoOfKey[key] = number
        }
        for (number, album) in coverAlbums where photos[number].album == nil { photos[number].album = album }
    }

    /// The main image of a per-photo page: its one photo that does not link to another page, or
    /// among several, the one whose largest rendition is larger than every other's. Nil when the
    /// page shows several photos alike (an album page, not a per-photo page).
    private static func mainPhoto(
        of locals: [Local], links: [Local: CanonicalURL], keys: [Local: [CanonicalURL]],
        catalog: [CanonicalURL: CatalogEntry]
    ) -> Local? {
        let candidates = locals.filter { links[$0] == nil }
        guard candidates.count > 1 else { return candidates.first }
        let sized = candidates.map { local -> (Local, RenditionSize) in
            let sizes = (keys[local] ?? []).compactMap { catalog[$0]?.largestSize }
            return (local, sizes.max() ?? RenditionSize(role: .thumbnail))
        }.sorted { $0.1 > $1.1 }
        return sized[0].1 > sized[1].1 ? sized[0].0 : nil
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
