/// The photos of one record (a feed item, a JSON object, a script's literal), each a list of
/// renditions, built up as a reader finds them and numbered when the record is done.
struct PhotoSet {
    /// The renditions of each photo, in the order found.
    private(set) var photos: [[ImageReference]] = []

    var count: Int { photos.count }
    var isEmpty: Bool { photos.isEmpty }

    /// The photo holding a rendition with this URL.
    func index(of url: String) -> Int? {
        photos.firstIndex { $0.contains { $0.url == url } }
    }

    /// Adds `renditions` as a new photo; those whose URL another photo holds join that one
    /// instead (one URL is one image). Returns the new photo's index, if it got any rendition.
    @discardableResult
    mutating func add(_ renditions: [ImageReference]) -> Int? {
        var fresh: [ImageReference] = []
        for rendition in renditions where !rendition.url.isEmpty {
            if let existing = index(of: rendition.url) {
                add([rendition], to: existing)
            } else if let same = fresh.firstIndex(where: { $0.url == rendition.url }) {
                fresh[same].absorb(rendition)
            } else {
                fresh.append(rendition)
            }
        }
        guard !fresh.isEmpty else { return nil }
        photos.append(fresh)
        return photos.count - 1
    }

    /// Adds `renditions` to photo `photo`; a URL it already holds merges into that rendition.
    mutating func add(_ renditions: [ImageReference], to photo: Int) {
        for rendition in renditions where !rendition.url.isEmpty {
            if let same = photos[photo].firstIndex(where: { $0.url == rendition.url }) {
                photos[photo][same].absorb(rendition)
            } else {
                photos[photo].append(rendition)
            }
        }
    }

    /// Adds one rendition as `add([rendition])` does, without the list: a new photo, or a
    /// rendition of the photo that holds its URL already. Returns the new photo's index.
    @discardableResult
    mutating func add(_ rendition: ImageReference) -> Int? {
        guard !rendition.url.isEmpty else { return nil }
        if let existing = index(of: rendition.url) {
            add(rendition, to: existing)
            return nil
        }
        photos.append([rendition])
        return photos.count - 1
    }

    /// Adds one rendition to photo `photo`, as `add([rendition], to: photo)` does.
    mutating func add(_ rendition: ImageReference, to photo: Int) {
        guard !rendition.url.isEmpty else { return }
        if let same = photos[photo].firstIndex(where: { $0.url == rendition.url }) {
            photos[photo][same].absorb(rendition)
        } else {
            photos[photo].append(rendition)
        }
    }

    /// Adds every photo of `other`, each joining the photo of this set that shares a URL with
    /// it, or standing on its own.
    mutating func add(_ other: PhotoSet) {
        for photo in other.photos {
            if let shared = photo.compactMap({ index(of: $0.url) }).first {
                add(photo, to: shared)
            } else {
                add(photo)
            }
        }
    }

    /// Applies `change` to every rendition.
    mutating func update(_ change: (inout ImageReference) -> Void) {
        for photo in photos.indices {
            for rendition in photos[photo].indices { change(&photos[photo][rendition]) }
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
