import Foundation
import MirrorCore

/// The generated site as the source meant it, worked out from the manifest alone: one card per
/// photo (its smallest rendition, linking to its largest), the photos of each album of the
/// source on pages of their own, albums nested by their place in the source's folders, and the
/// start page's photos with the index of albums on `index.html`.
struct SitePlan {
    /// One photo: every published rendition of it, shown as one card.
    ///
    /// Two indices into the manifest's items, not two copies of them: a site plan holds a photo
    /// per published image, and two inline `Manifest.Item`s made this the largest structure of
    /// a run.
    struct Photo {
        private let items: Items
        private let displayIndex: Int32
        private let originalIndex: Int32
        private let renditionCount: Int32
        /// Where the photo's renditions start in `Items.renditions` (-1: one rendition).
        private let renditionStart: Int32

        fileprivate init(items: Items, display: Int, original: Int, renditions: Int, start: Int32) {
            self.items = items
            self.displayIndex = Int32(display)
            self.originalIndex = Int32(original)
            self.renditionCount = Int32(renditions)
            self.renditionStart = start
        }

        /// How many published renditions the photo has.
        var renditions: Int { Int(renditionCount) }

        /// The smallest rendition (shown in the grid).
        var display: Item { Item(items: items, index: Int(displayIndex)) }
        /// The largest rendition (what the card links to).
        var original: Item { Item(items: items, index: Int(originalIndex)) }

        /// Every published rendition, in no particular order.
        var renditionItems: [Item] {
            guard renditionStart >= 0 else { return [original] }
            let start = Int(renditionStart)
            return items.renditions[start..<start + renditions].map { Item(items: items, index: Int($0)) }
        }
    }

    /// One item of the manifest, read field by field where it is packed (a card reads a few
    /// fields; making the whole item would build its hash and dates too).
    struct Item {
        fileprivate let items: Items
        fileprivate let index: Int

        var key: String { items.all.key(at: index) }
        var path: String { items.all.path(at: index) }
        var title: String? { items.all.title(at: index) }
        var metadata: [String: String]? { items.all.metadata(at: index) }
        var contentType: String { items.all.contentType(at: index) }
        var bytes: Int64 { items.all.bytes(at: index) }
        var album: String? { items.all.album(at: index) }
        var firstSeen: Date { items.all.firstSeen(at: index) }
        /// The image's size in pixels, when the manifest knows it.
        var dimensions: ImageDimensions? { items.all.dimensions(at: index) }
        /// What the image's file says about itself (date taken, camera...), when it says something.
        var embedded: EmbeddedMetadata? { items.all.embedded(at: index) }
    }

    /// The manifest's items, shared by every photo of the plan, and the renditions of the
    /// photos that have more than one (item numbers, each photo's together).
    fileprivate final class Items: Sendable {
        let all: ItemTable
        let renditions: [Int32]
        init(_ all: ItemTable, renditions: [Int32]) {
            self.all = all
            self.renditions = renditions
        }
    }

    /// An album of the source (a page photos were found on), or the root: the start page.
    struct Album {
        var url: String?
        var title: String
        /// The file name of its first page, without `.html`, relative to the mirror root.
        var fileBase: String
        var parent: Int?
        var children: [Int] = []
        var photos: [Photo] = []
        var depth = 0
        /// The album's picture: the photo the source shows where it links to the album (its
        /// cover), else none (its first photo stands in).
        var cover: Photo?
        /// Whether at least two of its photos say when they were taken: its pages offer to sort
        /// by date. Worked out once an album, not on each of its pages (every page asking it of
        /// every photo made publishing an album of n photos cost n²/perPage).
        var sortsByDate = false
    }

    /// One file to render: a page of an album's photos.
    struct Page {
        var fileName: String
        var album: Int
        /// 1-based.
        var number: Int
        var count: Int
        var photos: Range<Int>
    }

    let siteTitle: String
    private(set) var albums: [Album] = []
    private(set) var pages: [Page] = []
    /// Photos in the whole site.
    private(set) var photoCount = 0

    /// The site of `manifest`, `itemsPerPage` photos a page: its albums (nested by folder),
    /// each photo in the album of its largest rendition, the albums' covers, and the pages.
    init(manifest: Manifest, itemsPerPage: Int) {
        siteTitle = manifest.title.map(Self.withoutPageNumber) ?? Self.fallbackTitle(for: manifest.source)
        albums = [Album(url: nil, title: siteTitle, fileBase: "index")]
        let albumOfURL = addAlbums(manifest)
        nest()
        let all = manifest.table
        placePhotos(
            Self.photoGroups(all), of: all, albumOfURL: albumOfURL,
            albumOfCover: Self.albumsByCover(manifest, albumOfURL: albumOfURL))
        for index in albums.indices {
            albums[index].sortsByDate =
                albums[index].photos.lazy.filter { PhotoView.embedded(of: $0)?.taken != nil }.prefix(2).count >= 2
        }
        paginate(itemsPerPage: itemsPerPage)
    }

    /// Adds an album for each of the manifest's albums but the start page (the root) and the
    /// further pages of an album (`?page=2`), each with a file base of its own; returns the
    /// album of each album URL.
    private mutating func addAlbums(_ manifest: Manifest) -> [String: Int] {
        var albumOfURL: [String: Int] = [:]
        let sourceDirectory = Self.directory(of: manifest.source)
        var usedBases: Set<String> = ["index"]
        var albumOfPath: [String: Int] = [:]
        for album in manifest.albums ?? [] where albumOfURL[album.url] == nil {
            if album.url == manifest.source || albums[0].url == nil && Self.isStartPage(album.url, of: manifest.source) {
                albums[0].url = albums[0].url ?? album.url
                albumOfURL[album.url] = 0
                albumOfPath[Self.withoutQuery(album.url)] = 0
                continue
            }
            // `?page=2` of an album is more of that album, not an album of its own.
            if let continued = albumOfPath[Self.withoutQuery(album.url)] {
                albumOfURL[album.url] = continued
                continue
            }
            albumOfPath[Self.withoutQuery(album.url)] = albums.count
            var base = "albums/" + Self.slug(album.url, under: sourceDirectory)
            if usedBases.contains(base) {
                var suffix = 2
                while usedBases.contains(base + "-\(suffix)") { suffix += 1 }
                base += "-\(suffix)"
            }
            usedBases.insert(base)
            albumOfURL[album.url] = albums.count
            albums.append(
                Album(
                    url: album.url, title: album.title.map(Self.withoutPageNumber) ?? Self.lastSegment(album.url), fileBase: base)
            )
        }
        return albumOfURL
    }

    /// The items of one photo: its own item (-1 when its key is no item's), its first
    /// rendition, the rest.
    typealias PhotoGroup = (photo: Int32, first: Int32, rest: [Int32])

    /// The items of `all` by photo. Renditions of one photo share `variantOf` (or are the
    /// photo's largest rendition). A photo's first item is kept apart from the rest, so the
    /// usual photo of one rendition needs no array of its own. A photo is found by the number
    /// of the item that is its largest rendition, as the plan sets `variantOf`: a table of every
    /// key, held while the pages were planned, was a first run's peak. Only a `variantOf` given
    /// as text (a manifest made whole) is looked up by key.
    static func photoGroups(_ all: ItemTable) -> [PhotoGroup] {
        var indexOfKey: [String: Int32] = [:]
        if all.hasVariantTexts {
            for index in all.indices where indexOfKey[all.key(at: index)] == nil {
                indexOfKey[all.key(at: index)] = Int32(index)
            }
        }
        var groupOfItem = [Int32](repeating: -1, count: all.count)
        var groupOfText: [String: Int] = [:]
        var groups: [PhotoGroup] = []
        groups.reserveCapacity(all.count)
        for index in all.indices {
            var photo = Int32(index)
            if let item = all.variantItem(at: index) {
                photo = Int32(item)
            } else if let text = all.variantText(at: index) {
                guard let item = indexOfKey[text] else {
                    if let group = groupOfText[text] {
                        groups[group].rest.append(Int32(index))
                    } else {
                        groupOfText[text] = groups.count
                        groups.append((-1, Int32(index), []))
                    }
                    continue
                }
                photo = item
            }
            let group = Int(groupOfItem[Int(photo)])
            if group >= 0 {
                groups[group].rest.append(Int32(index))
            } else {
                groupOfItem[Int(photo)] = Int32(groups.count)
                groups.append((photo, Int32(index), []))
            }
        }
        return groups
    }

    /// The album whose cover each cover key is (SPEC: an album's cover is the album's
    /// picture, never a photo of its own). The start page is no album's cover.
    private static func albumsByCover(_ manifest: Manifest, albumOfURL: [String: Int]) -> [String: Int] {
        var albumOfCover: [String: Int] = [:]
        for album in manifest.albums ?? [] {
            if let cover = album.cover, let index = albumOfURL[album.url], index != 0, albumOfCover[cover] == nil {
                albumOfCover[cover] = index
            }
        }
        return albumOfCover
    }

    /// Puts each photo of `groups` in its album (the album of its largest rendition), or, for
    /// the picture of another album only, as that album's cover; a photo's display item is its
    /// smallest rendition, its original its largest.
    private mutating func placePhotos(
        _ groups: consuming [PhotoGroup], of all: ItemTable, albumOfURL: [String: Int], albumOfCover: [String: Int]
    ) {
        /// A photo worked out, before the shared table of renditions exists.
        struct Planned {
            var album: Int
            var display: Int32
            var original: Int32
            var count: Int32
            var start: Int32
            /// The albums it is the cover of.
            var covers: [Int] = []
        }
        var planned: [Planned] = []
        planned.reserveCapacity(groups.count)
        var renditions: [Int32] = []
        for (photo, first, rest) in groups {
            let first = Int(first)
            let indices = rest.isEmpty ? [first] : [first] + rest.map { Int($0) }
            var original = first
            var display = first
            var start: Int32 = -1
            if !rest.isEmpty {
                original =
                    indices.first { $0 == Int(photo) }
                    ?? indices.max { all.bytes(at: $0) < all.bytes(at: $1) } ?? first
                display =
                    indices.min { (all.bytes(at: $0), all.key(at: $0)) < (all.bytes(at: $1), all.key(at: $1)) } ?? original
                start = Int32(renditions.count)
                renditions.append(contentsOf: indices.map { Int32($0) })
            }
            let album = all.album(at: original).flatMap { albumOfURL[$0] } ?? 0
            var entry = Planned(
                album: album, display: Int32(display), original: Int32(original), count: Int32(indices.count), start: start)
            if !albumOfCover.isEmpty {
                entry.covers = indices.compactMap { albumOfCover[all.key(at: $0)] }
            }
            planned.append(entry)
        }
        groups = []
        let items = Items(all, renditions: renditions)
        for entry in planned {
            let photo = Photo(
                items: items, display: Int(entry.display), original: Int(entry.original), renditions: Int(entry.count),
                start: entry.start)
            for covered in entry.covers where albums[covered].cover == nil { albums[covered].cover = photo }
            // The picture of another album only (a cover, or a generator's collage for it):
            // not a photo of the album it was found on.
            if !entry.covers.isEmpty, !entry.covers.contains(entry.album) { continue }
            albums[entry.album].photos.append(photo)
            photoCount += 1
        }
    }

    /// The pages of each album that has photos or albums in it (and of the root, always),
    /// `itemsPerPage` photos a page.
    private mutating func paginate(itemsPerPage: Int) {
        let perPage = max(1, itemsPerPage)
        for (index, album) in albums.enumerated() where index == 0 || !album.photos.isEmpty || !album.children.isEmpty {
            let count = max(1, (album.photos.count + perPage - 1) / perPage)
            for number in 1...count {
                let start = (number - 1) * perPage
                pages.append(
                    Page(
                        fileName: Self.fileName(base: album.fileBase, number: number), album: index, number: number,
                        count: count, photos: start..<min(start + perPage, album.photos.count)))
            }
        }
    }

    /// `index.html`, `page-2.html`; `albums/nature.html`, `albums/nature-page-2.html`.
    static func fileName(base: String, number: Int) -> String {
        if number == 1 { return base + ".html" }
        return (base == "index" ? "page" : base + "-page") + "-\(number).html"
    }

    /// Albums nest by folder: an album's parent is the album whose folder holds its folder most
    /// closely; the root holds the rest.
    ///
    /// Found by walking up each album's folder a segment at a time, looking each enclosing
    /// folder up (the first album of a folder holds it): comparing every album with every
    /// other is quadratic in the album count.
    private mutating func nest() {
        let folders = albums.map { $0.url.map(Self.directory(of:)) }
        var albumOfFolder: [Substring: Int] = [:]
        for (index, folder) in folders.enumerated().dropFirst() {
            if let folder, albumOfFolder[folder[...]] == nil { albumOfFolder[folder[...]] = index }
        }
        for index in albums.indices.dropFirst() {
            guard let folder = folders[index], !folder.isEmpty else { continue }
            var parent = 0
            // The folder ends with its own "/": the enclosing folders end at the ones before it.
            var end = folder.index(before: folder.endIndex)
            while let slash = folder[..<end].lastIndex(of: "/") {
                if let holder = albumOfFolder[folder[...slash]] {
                    parent = holder
                    break
                }
                end = slash
            }
            albums[index].parent = parent
            albums[parent].children.append(index)
        }
        func setDepth(_ index: Int, _ depth: Int) {
            albums[index].depth = depth
            for child in albums[index].children { setDepth(child, depth + 1) }
        }
        setDepth(0, 0)
    }

    /// The albums below `index` in pre-order, with their depth below it.
    func descendants(of index: Int) -> [Int] {
        albums[index].children.flatMap { [$0] + descendants(of: $0) }
    }

    /// Photos in an album and every album below it.
    func totalPhotos(_ index: Int) -> Int {
        albums[index].photos.count + albums[index].children.reduce(0) { $0 + totalPhotos($1) }
    }

    // MARK: - Names

    static func withoutQuery(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }

    static func directory(of url: String) -> String {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        guard let slash = path.lastIndex(of: "/") else { return String(path) }
        return String(path[...slash])
    }

    /// True when `album` is the start page under another name (`/gallery/index.html` for
    /// `/gallery/`).
    static func isStartPage(_ album: String, of source: String) -> Bool {
        guard directory(of: album) == directory(of: source) else { return false }
        let name = album.dropFirst(directory(of: album).count).lowercased()
        return ["", "index.html", "index.htm", "index.php"].contains(name)
    }

    /// A file-name-safe name for an album from its URL, relative to the source's folder:
    /// `http://h/g/science/space/` under `http://h/g/` is `science-space`.
    static func slug(_ url: String, under directory: String) -> String {
        var path = Substring(url)
        if path.hasPrefix(directory) {
            path = path.dropFirst(directory.count)
        } else if let range = path.range(of: "://") {
            path = path[range.upperBound...].drop { $0 != "/" }
        }
        var words: [String] = []
        var word = ""
        for scalar in path.lowercased().unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                word.unicodeScalars.append(scalar)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        if let last = words.last, ["html", "htm", "php", "asp", "aspx"].contains(last) { words.removeLast() }
        if words.last == "index" { words.removeLast() }
        let slug = words.joined(separator: "-").prefix(80)
        return slug.isEmpty ? "album" : String(slug)
    }

    static func lastSegment(_ url: String) -> String {
        let path = url.prefix { $0 != "?" && $0 != "#" }
        let segments = path.split(separator: "/").filter { $0 != "index.html" && $0 != "index.htm" }
        return PercentEncoding.decode(String(segments.last ?? Substring(url)))
    }

    /// `title` without the page number a paginated listing adds to it ("Nature — page 1",
    /// "Nature | Page 2 of 5"): the site and its albums are named by what they are, the page
    /// they were first seen on aside.
    static func withoutPageNumber(_ title: String) -> String {
        guard let match = title.firstMatch(of: /(?i)\s*(?:[-–—|·:,]\s*)?\(?page\s+\d+(?:\s*(?:of|\/)\s*\d+)?\)?\s*$/),
            match.range.lowerBound != title.startIndex
        else { return title }
        return String(title[..<match.range.lowerBound])
    }

    static func fallbackTitle(for source: String) -> String {
        guard let url = CanonicalURL(source) else { return "Gallery mirror" }
        let path = url.decodedPath == "/" ? "" : url.decodedPath
        return "Mirror of " + url.host + path
    }
}
