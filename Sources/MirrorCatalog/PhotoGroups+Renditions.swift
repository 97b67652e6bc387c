import MirrorCore

extension PhotoGroups {
    /// Which rendition of each photo `--variants largest` keeps.
    package struct RenditionChoice {
        /// The accepted rendition of each photo the source shows largest, in key order.
        package var largest: [CatalogEntry]
        /// Every other accepted rendition whose pixels matched another of its photo's: smaller
        /// copies of a photo in `largest`.
        package var smaller: [CatalogEntry]
        /// Accepted renditions that the pixels could not confirm (an image that could not be
        /// compared): kept, since a photo is never discarded on a guess.
        package var unconfirmed: [CatalogEntry]
    }

    /// Chooses, of each photo's entries that may still be renditions (`mayBeRendition`), the
    /// one the source shows largest: by what the documents say, then the declared length, then
    /// the key. Changes no entry: the caller rejects `smaller` as `smaller-rendition` and says
    /// so. A key is a rendition of one photo at most, so no entry is in both lists.
    package func largestRenditions() -> RenditionChoice {
        var choice = RenditionChoice(largest: [], smaller: [], unconfirmed: [])
        for photo in photos {
            // A guess that turned out a page or no image is no rendition to choose from.
            let accepted = zip(photo.entries, photo.numbers).filter { $0.0.mayBeRendition }
            let isConfirmed = Dictionary(uniqueKeysWithValues: accepted.map { (ObjectIdentifier($0.0), confirmed[Int($0.1)]) })
            let entries = accepted.map(\.0)
            guard
                let largest = entries.max(by: { a, b in
                    if isResizedCopy(a.key, of: b.key) { return true }
                    if isResizedCopy(b.key, of: a.key) { return false }
                    // The pixels, where they were decoded, say which is larger.
                    if let areaA = evidence?.pixelArea(of: a.key), let areaB = evidence?.pixelArea(of: b.key), areaA != areaB {
                        return areaA < areaB
                    }
                    let (sizeA, sizeB) = (a.largestSize, b.largestSize)
                    if sizeA < sizeB || sizeB < sizeA { return sizeA < sizeB }
                    if a.declaredLength != b.declaredLength { return (a.declaredLength ?? -1) < (b.declaredLength ?? -1) }
                    return a.key > b.key
                })
            else { continue }
            choice.largest.append(largest)
            for entry in entries where entry !== largest {
                if isConfirmed[ObjectIdentifier(entry)] == true {
                    choice.smaller.append(entry)
                } else {
                    choice.unconfirmed.append(entry)
                }
            }
        }
        choice.largest = CatalogEntry.sortedByKey(choice.largest)
        return choice
    }
}
