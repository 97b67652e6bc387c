/// The photos of one record (a feed item, a JSON object, a script's literal), each a list of
/// renditions, built up as a reader finds them and numbered when the record is done.
///
/// One URL is one image: a rendition whose URL the set holds already joins that rendition. A
/// set of more than `scanLimit` renditions finds it through a table keyed by URL, so adding
/// costs the same whether the set holds twenty renditions or the 100,000 of a whole JSON listing
/// (a scan per rendition made reading a listing quadratic in its length); a smaller one, as
/// almost every record's is, scans them (a table per record cost more than the scan saved).
struct PhotoSet {
    /// Where a rendition is: its photo and its place among that photo's renditions.
    private struct Position {
        var photo: Int
        var rendition: Int
    }

    /// Renditions a set holds before it keeps a table of them.
    static let scanLimit = 16

    /// The renditions of each photo, in the order found.
    private(set) var photos: [[ImageReference]] = []
    /// Every rendition's URL, to where it is in `photos`; nil while the set is small enough to scan.
    private var positions: [String: Position]?
    /// How many renditions the set holds.
    private var renditionCount = 0

    var count: Int { photos.count }
    var isEmpty: Bool { photos.isEmpty }

    /// The photo holding a rendition with this URL.
    func index(of url: String) -> Int? {
        position(of: url)?.photo
    }

    private func position(of url: String) -> Position? {
        if let positions { return positions[url] }
        for photo in photos.indices {
            for rendition in photos[photo].indices where photos[photo][rendition].url == url {
                return Position(photo: photo, rendition: rendition)
            }
        }
        return nil
    }

    /// Adds `renditions` as a new photo; those whose URL another photo holds join that one
    /// instead (one URL is one image). Returns the new photo's index, if it got any rendition.
    @discardableResult
    mutating func add(_ renditions: [ImageReference]) -> Int? {
        var photo: Int?
        for rendition in renditions where !rendition.url.isEmpty {
            if let position = position(of: rendition.url) {
                photos[position.photo][position.rendition].absorb(rendition)
            } else if let photo {
                append(rendition, to: photo)
            } else {
                photos.append([])
                photo = photos.count - 1
                append(rendition, to: photos.count - 1)
            }
        }
        return photo
    }

    /// Adds `renditions` to photo `photo`; a URL the set already holds merges into that
    /// rendition.
    mutating func add(_ renditions: [ImageReference], to photo: Int) {
        for rendition in renditions { add(rendition, to: photo) }
    }

    /// Adds one rendition as `add([rendition])` does, without the list: a new photo, or a
    /// rendition of the photo that holds its URL already. Returns the new photo's index.
    @discardableResult
    mutating func add(_ rendition: ImageReference) -> Int? {
        guard !rendition.url.isEmpty else { return nil }
        if let position = position(of: rendition.url) {
            photos[position.photo][position.rendition].absorb(rendition)
            return nil
        }
        photos.append([])
        append(rendition, to: photos.count - 1)
        return photos.count - 1
    }

    /// Adds one rendition to photo `photo`, as `add([rendition], to: photo)` does.
    mutating func add(_ rendition: ImageReference, to photo: Int) {
        guard !rendition.url.isEmpty else { return }
        if let position = position(of: rendition.url) {
            photos[position.photo][position.rendition].absorb(rendition)
        } else {
            append(rendition, to: photo)
        }
    }

    /// Adds every photo of `other`, each joining the photo of this set that shares a URL with
    /// it, or standing on its own.
    mutating func add(_ other: PhotoSet) {
        if photos.isEmpty {
            self = other  // nothing to join: the common case of a record's nested listing
            return
        }
        for photo in other.photos {
            if let shared = photo.firstNonNil({ position(of: $0.url)?.photo }) {
                add(photo, to: shared)
            } else {
                add(photo)
            }
        }
    }

    /// Applies `change` to every rendition. A change of URL is a change of identity: the table
    /// follows it, and a rendition whose new URL another one holds stays where it is.
    mutating func update(_ change: (inout ImageReference) -> Void) {
        for photo in photos.indices {
            for rendition in photos[photo].indices {
                let url = photos[photo][rendition].url
                change(&photos[photo][rendition])
                let changed = photos[photo][rendition].url
                guard changed != url, positions != nil else { continue }
                if positions?[url]?.photo == photo, positions?[url]?.rendition == rendition { positions?[url] = nil }
                if positions?[changed] == nil { positions?[changed] = Position(photo: photo, rendition: rendition) }
            }
        }
    }

    /// Makes room for about `count` more renditions (a listing's length is known before its
    /// records are read: growing the table by doubling rehashed it again and again).
    mutating func reserveCapacity(renditions count: Int) {
        guard renditionCount + count > Self.scanLimit else { return }
        if positions == nil {
            positions = [:]
            for photo in photos.indices {
                for rendition in photos[photo].indices where positions?[photos[photo][rendition].url] == nil {
                    positions?[photos[photo][rendition].url] = Position(photo: photo, rendition: rendition)
                }
            }
        }
        positions?.reserveCapacity(renditionCount + count)
        photos.reserveCapacity(photos.count + count / 2)
    }

    private mutating func append(_ rendition: ImageReference, to photo: Int) {
        positions?[rendition.url] = Position(photo: photo, rendition: photos[photo].count)
        photos[photo].append(rendition)
        renditionCount += 1
        if positions == nil, renditionCount > Self.scanLimit {
            var table: [String: Position] = [:]
            table.reserveCapacity(renditionCount * 2)
            for photo in photos.indices {
                for rendition in photos[photo].indices where table[photos[photo][rendition].url] == nil {
                    table[photos[photo][rendition].url] = Position(photo: photo, rendition: rendition)
                }
            }
            positions = table
        }
    }

    /// Every rendition, photos numbered from `next` (which is advanced past them).
    func references(numberingFrom next: inout Int) -> [ImageReference] {
        var result: [ImageReference] = []
        result.reserveCapacity(photos.reduce(0) { $0 + $1.count })
        for photo in photos {
            for var rendition in photo {
                rendition.photo = next
                result.append(rendition)
            }
            next += 1
        }
        return result
    }
}

extension Sequence {
    /// The first non-nil result of `transform` over the elements, in order.
    fileprivate func firstNonNil<Result>(_ transform: (Element) -> Result?) -> Result? {
        for element in self { if let result = transform(element) { return result } }
        return nil
    }
}

extension ImageReference {
    /// Folds what `other` (the same URL, listed again) knows and this one does not: the larger
    /// role, dimensions, declared length and type, a better title, metadata.
    mutating func absorb(_ other: ImageReference) {
        if other.size.role > size.role { size.role = other.size.role }
        size.width = size.width ?? other.size.width
        size.height = size.height ?? other.size.height
        size.density = size.density ?? other.size.density
        declaredLength = declaredLength ?? other.declaredLength
        declaredType = declaredType ?? other.declaredType
        if let title = other.title, self.title == nil || other.titleSource > titleSource {
            self.title = title
            titleSource = other.titleSource
        }
        metadata.merge(other.metadata) { own, _ in own }
    }
}
