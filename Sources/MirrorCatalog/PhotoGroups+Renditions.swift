import MirrorCore

extension PhotoGroups {
    /// Which rendition of each photo `--variants largest` keeps.
    package struct RenditionChoice {
        /// The accepted rendition of each photo the source shows largest, in key order.
        package var largest: [CatalogEntry]
        /// Every other accepted rendition: smaller copies of a photo in `largest`.
        package var smaller: [CatalogEntry]
    }

    /// Chooses, of each photo's entries that may still be renditions (`mayBeRendition`), the
    /// one the source shows largest: by what the documents say, then the declared length, then
    /// the key. Changes no entry: the caller rejects `smaller` as `smaller-rendition` and says
    /// so. A key is a rendition of one photo at most, so no entry is in both lists.
    package func largestRenditions() -> RenditionChoice {
        var choice = RenditionChoice(largest: [], smaller: [])
        for photo in photos {
            // A guess that turned out a page or no image is no rendition to choose from.
            let accepted = photo.entries.filter(\.mayBeRendition)
            guard
                let largest = accepted.max(by: { a, b in
                    if isResizedCopy(a.key, of: b.key) { return true }
                    if isResizedCopy(b.key, of: a.key) { return false }
                    let (sizeA, sizeB) = (a.largestSize, b.largestSize)
                    if sizeA < sizeB || sizeB < sizeA { return sizeA < sizeB }
                    if a.declaredLength != b.declaredLength { return (a.declaredLength ?? -1) < (b.declaredLength ?? -1) }
                    return a.key > b.key
                })
            else { continue }
            choice.largest.append(largest)
            choice.smaller += accepted.filter { $0 !== largest }
        }
        choice.largest = CatalogEntry.sortedByKey(choice.largest)
        return choice
    }
}
