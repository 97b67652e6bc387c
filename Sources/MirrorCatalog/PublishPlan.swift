import Foundation
import MirrorCore
import MirrorCrawl
import MirrorMarkup
import MirrorStore

/// What a run will publish, decided from the catalog it collected and the previous manifest,
/// before anything is written: the new manifest's items and rejections, and what changes.
package struct PublishPlan {
    /// The new manifest's items, packed (`ItemTable`).
    package var items = ItemTable()
    package var rejected: [Manifest.Rejection] = []
    /// Keys whose files wait in the staging directory.
    package var staged: [CanonicalURL] = []
    /// Keys published for the first time, and keys whose bytes changed, each with its item's
    /// number in `items` (-1 for a dry run's probe), in key order: what the report's `changes`
    /// read their files, titles and albums from.
    package var added: [ItemTable.Change] = []
    package var replaced: [ItemTable.Change] = []
    /// How many keys keep the file the last run published (only the number is reported: a
    /// list of every key of a no-op re-sync would grow with the mirror for nothing).
    package var unchanged = 0
    /// Previous items this run deletes.
    package var removed: [String] = []
    /// Previous items that failed this run and stay as they were.
    package var kept: [String] = []
    /// New or changed keys a dry run found (nothing downloaded).
    package var probed: [String] = []
    package var policy: [String: Int] = [:]
    package var failed: [String: Int] = [:]
    package var warnings: [String] = []
    /// The pages that hold a published photo, in crawl order.
    package var albums: [Manifest.Album] = []
    /// The source's title: its start page's `<title>`.
    package var siteTitle: String?
    /// Keys rejected as decoration for their icon's size, which only their files tell: the
    /// next run rejects them again without a request (`DiskStorage.keepIconKeys`).
    package var icons: [CanonicalURL] = []

    /// How many stored keys' records are read from the store at a time.
    static let recordBatch = 512

    /// - Parameters:
    ///   - entries: every key the run saw, with its verdict and outcome.
    ///   - groups: the photos `entries` make, if the run worked them out already (they are
    ///     worked out here otherwise).
    ///   - previous: the last run's manifest.
    ///   - records: the store's records of keys the loader stored, in the order asked
    ///     (`DiskStorage.records(_:)`); read `recordBatch` at a time, in key order.
    ///   - stored: the store's record of a failed key whose file is still in place.
    ///   - withholdingLocation: `--strip-location`: no item keeps its file's position (an item
    ///     kept from the last manifest included).
    ///   - findsDecorations: whether the site's furniture is left out (not with `--include`).
    ///   - smaller: accepted keys that are a photo's smaller renditions, left out
    ///     (`--variants largest`: `PhotoGroups.largestRenditions`), rejected as such here; the
    ///     entries stay as the collection left them.
    /// - Throws: what `records` throws, or `StoreError` when a stored key has no record.
    package init(
        entries: [CatalogEntry], groups: PhotoGroups? = nil, previous: PreviousManifest?,
        records read: ([CanonicalURL]) async throws(StoreError) -> [StoredImage?], stored: (CanonicalURL) -> StoredImage?,
        summary: CrawlSummary, withholdingLocation: Bool = false, findsDecorations: Bool = true,
        smaller: Set<CanonicalURL> = []
    ) async throws(StoreError) {
        // Whether an entry is published, and why not: its verdict, unless it is a smaller rendition.
        func isAccepted(_ entry: CatalogEntry) -> Bool {
            entry.verdict == .accepted && (smaller.isEmpty || !smaller.contains(entry.key))
        }
        func rejection(of entry: CatalogEntry) -> RejectionReason? {
            // A smaller rendition is rejected as one, whatever its load answered.
            if entry.verdict == .accepted, !isAccepted(entry) { return .smallerRendition }
            return entry.rejection
        }
        // Positions, not copies of the items: the copies added to the run's peak.
        let previousItems = previous?.items ?? PreviousManifest.Items()
        var walk = PreviousWalk(previousItems)
        // Where each entry's item is, by the entry's number in `groups.entries`.
        var itemOfEntry = [Int32](repeating: -1, count: entries.count)
        // The title and caption each item's file gives, for the items whose file gives one.
        var fileTexts: [Int32: FileTexts] = [:]
        warnings = summary.warnings + summary.pageFailures
        let groups = groups ?? PhotoGroups(entries: entries, summary: summary, findsDecorations: findsDecorations)
        // The last run's items in full: read only if a key keeps its published file.
        var previousFull: [String: Manifest.Item]?
        items.reserveCapacity(entries.count(where: \.isStored))
        staged.reserveCapacity(entries.count(where: { $0.outcome == .stored(staged: true) }))
        // The records of the stored keys among the next `recordBatch` entries, by entry number.
        var records: [Int: StoredImage] = [:]
        for (number, entry) in groups.entries.enumerated() {
            if number % Self.recordBatch == 0 {
                records = try await Self.records(
                    of: groups.entries[number..<min(number + Self.recordBatch, groups.entries.count)],
                    accepted: isAccepted, read: read)
            }
            let key = entry.key.string
            let position = walk.position(of: key)
            // The previous item's number, if the key had one.
            let before = position.map { walk.order[$0] }
            if groups.decorations.contains(entry.key), isAccepted(entry) {
                // Fetched before the crawl was over and the decoration known: not published,
                // and the next publish step removes its file.
                policy[RejectionReason.decoration.rawValue, default: 0] += 1
                rejected.append(Manifest.Rejection(key: key, reason: RejectionReason.decoration.rawValue))
                continue
            }
            if findsDecorations, let image = records[number], isAccepted(entry),
                image.dimensions.map(Self.isIconSized) == true, !entry.isLinkedAsContent
            {
                // An icon's size (a listing's row marker, a theme's button): decoration, unless
                // a page links it as content or the catalog lists it.
                icons.append(entry.key)
                policy[RejectionReason.decoration.rawValue, default: 0] += 1
                rejected.append(Manifest.Rejection(key: key, reason: RejectionReason.decoration.rawValue))
                continue
            }
            if let image = records[number], isAccepted(entry) {
                itemOfEntry[number] = Int32(items.count)
                walk.republish(position)
                items.append(
                    key: key, path: image.path, sha256: image.sha256, bytes: image.byteCount, contentType: image.contentType,
                    title: entry.title, metadata: entry.metadata.isEmpty ? nil : entry.metadata, etag: image.etag,
                    lastModified: image.lastModified,
                    firstSeen: before.map { previousItems.firstSeen(at: $0) } ?? image.firstSeen,
                    lastChecked: image.lastChecked, dimensions: image.dimensions, embedded: image.embedded)
                items.setFingerprint(image.fingerprint, at: items.count - 1)
                if let embedded = image.embedded, embedded.title != nil || embedded.caption != nil {
                    fileTexts[itemOfEntry[number]] = FileTexts(title: embedded.title, caption: embedded.caption)
                }
                if image.isStaged { staged.append(entry.key) }
                // What could not be read of a file's metadata is said once, when it is stored.
                if let problem = image.embedded?.problem, before.map({ !previousItems.hasSHA256(image.sha256, at: $0) }) ?? true {
                    warnings.append("\(key): part of its embedded metadata was ignored (\(problem))")
                }
                let change = ItemTable.Change(key: key, item: itemOfEntry[number])
                if let before {
                    if previousItems.hasSHA256(image.sha256, at: before) {
                        unchanged += 1
                    } else {
                        replaced.append(change)
                    }
                } else {
                    added.append(change)
                }
                continue
            }
            if case .probed = entry.outcome {
                probed.append(key)
                let change = ItemTable.Change(key: key, item: -1)
                if before == nil { added.append(change) } else { replaced.append(change) }
                continue
            }
            guard let reason = rejection(of: entry) else { continue }
            if reason.isPolicy {
                policy[reason.rawValue, default: 0] += 1
            } else {
                failed[reason.rawValue, default: 0] += 1
                if case .failed(let failure) = entry.outcome { warnings.append(failure.detail) }
                // A key still listed but failing this run keeps its published file.
                if let before, let image = stored(entry.key), !image.isStaged,
                    previousItems.hasSHA256(image.sha256, at: before)
                {
                    if previousFull == nil { previousFull = previous?.fullItems() ?? [:] }
                    if let item = previousFull?[key] {
                        itemOfEntry[number] = Int32(items.count)
                        walk.republish(position)
                        items.append(item)
                        kept.append(key)
                        continue
                    }
                }
            }
            rejected.append(Manifest.Rejection(key: key, reason: reason.rawValue))
        }
        siteTitle = summary.documents[0].flatMap { $0.kind == .page ? $0.title ?? $0.heading : nil }
        describePhotos(groups: groups, itemOfEntry: itemOfEntry, fileTexts: fileTexts, summary: summary)
        if withholdingLocation { items.removeLocations() }
        removed = walk.notRepublished.map { previousItems[$0].key }
        if summary.unusableReferences > 0 {
            warnings.append("\(summary.unusableReferences) image references had URLs that could not be read")
        }
    }

    /// The records of the keys of `batch` to publish, by entry number: those the loader stored
    /// and the validators accepted (a key loaded before the crawl ended and rejected after it,
    /// a guess that is a smaller rendition, is not published: its record is not needed).
    /// - Throws: what `read` throws, or `StoreError` when a stored key has no record.
    private static func records(
        of batch: ArraySlice<CatalogEntry>, accepted: (CatalogEntry) -> Bool,
        read: ([CanonicalURL]) async throws(StoreError) -> [StoredImage?]
    ) async throws(StoreError) -> [Int: StoredImage] {
        let numbers = batch.indices.filter { batch[$0].isStored && accepted(batch[$0]) }
        let rows = try await read(numbers.map { batch[$0].key })
        var records: [Int: StoredImage] = [:]
        for (number, row) in zip(numbers, rows) {
            guard let row else {
                throw StoreError(.inconsistent, "the store has no record of \(batch[number].key), which it stored this run")
            }
            records[number] = row
        }
        return records
    }

    /// The last run's items in key order (positions, first of equal keys first), walked beside
    /// the catalog, which is in key order too: a dictionary of them and a set of the published
    /// keys added to the run's peak.
    struct PreviousWalk {
        private let items: PreviousManifest.Items
        /// Positions of `items`, in key order.
        let order: [Int]
        private var republished: [Bool]
        private var cursor = 0

        init(_ items: PreviousManifest.Items) {
            self.items = items
            order = items.indices.sorted { a, b in
                let order = ByteOrder.compare(items.key(at: a), items.key(at: b))
                return order == 0 ? a < b : order < 0
            }
            republished = [Bool](repeating: false, count: order.count)
        }

        /// The position in `order` of the first previous item with `key`, if there is one; keys
        /// are asked in key order.
        mutating func position(of key: String) -> Int? {
            while cursor < order.count, ByteOrder.precedes(items.key(at: order[cursor]), key.utf8) {
                cursor += 1
            }
            return cursor < order.count && ByteOrder.equal(items.key(at: order[cursor]), key.utf8) ? cursor : nil
        }

        /// Marks every previous item with the key at `position` as published again.
        mutating func republish(_ position: Int?) {
            guard var next = position else { return }
            let key = items.key(at: order[next])
            while next < order.count, ByteOrder.equal(items.key(at: order[next]), key) {
                republished[next] = true
                next += 1
            }
        }

        /// The previous items not published again, as positions of `items`, in key order.
        var notRepublished: [Int] { order.indices.filter { !republished[$0] }.map { order[$0] } }
    }

    /// The title and caption an item's file gives.
    struct FileTexts {
        var title: String?
        var caption: String?
    }

    /// Gives each item its photo's album, title and metadata, and each smaller rendition the key
    /// of its photo's largest published rendition (`variantOf`); lists the albums.
    ///
    /// A photo's title is the best one the source gives it (`titleFrom: page`), else its file's
    /// own (`file`: the largest rendition's first), else words made from its file's name
    /// (`name`). Its caption is the source's, else its file's (`metadata["caption"]`).
    private mutating func describePhotos(
        groups: PhotoGroups, itemOfEntry: [Int32], fileTexts: [Int32: FileTexts], summary: CrawlSummary
    ) {
        var albumNumbers: Set<Int> = []
        // The key each album page is shown by where it is linked (its cover), first in key order.
        var coverOfPage: [String: String] = [:]
        for photo in groups.photos {
            let entries = photo.entries
            // (item, entry) of each published rendition.
            let published = zip(photo.numbers, entries).compactMap { number, entry in
                itemOfEntry[Int(number)] < 0 ? nil : (item: Int(itemOfEntry[Int(number)]), entry: entry)
            }
            guard !published.isEmpty else { continue }
            // The photo's label: the best title a sighting of any rendition gave it (the first
            // of the best kind, in document order), an album's cover aside: its title names the
            // album. Fields from all renditions.
            var best: CatalogEntry.Sighting?
            // A link's label that is the name of the page it leads to names that page (a post's
            // title on its featured image in a list of posts), and is the photo's only when
            // nothing else labels it (a per-photo page is named after its photo).
            var bestNaming: CatalogEntry.Sighting?
            for entry in entries {
                for sighting in entry.sightings where sighting.title != nil && !groups.isCover(sighting) {
                    let naming = Self.namesLinkedPage(sighting, groups, summary)
                    guard let current = naming ? bestNaming : best else {
                        if naming { bestNaming = sighting } else { best = sighting }
                        continue
                    }
                    if sighting.titleSource > current.titleSource
                        || (sighting.titleSource == current.titleSource && sighting.document < current.document)
                    {
                        if naming { bestNaming = sighting } else { best = sighting }
                    }
                }
            }
            best = best ?? bestNaming
            for (number, entry) in zip(photo.numbers, entries) where itemOfEntry[Int(number)] >= 0 {
                for sighting in entry.sightings {
                    if let page = groups.coveredPage(by: sighting), coverOfPage[page.string] == nil {
                        coverOfPage[page.string] = entry.key.string
                    }
                }
            }
            var metadata: [String: String] = [:]
            for entry in entries { metadata.merge(entry.metadata) { current, _ in current } }
            metadata = PublishPlan.realValues(metadata)
            let largest = published.max { a, b in
                // A CMS's resized copy is smaller than its original, whatever the pages say.
                if groups.isResizedCopy(a.entry.key, of: b.entry.key) { return true }
                if groups.isResizedCopy(b.entry.key, of: a.entry.key) { return false }
                let (sizeA, sizeB) = (a.entry.largestSize, b.entry.largestSize)
                if sizeA < sizeB || sizeB < sizeA { return sizeA < sizeB }
                let (bytesA, bytesB) = (items.bytes(at: a.item), items.bytes(at: b.item))
                if bytesA != bytesB { return bytesA < bytesB }
                return a.entry.key > b.entry.key
            }?.item
            let album = photo.album.flatMap { summary.documents[$0] }
            if let number = photo.album, album != nil { albumNumbers.insert(number) }
            // The renditions' files, the largest first, for a title or caption of their own.
            let files = ([largest].compactMap { $0 } + published.map(\.item).filter { $0 != largest }).compactMap {
                fileTexts[Int32($0)]
            }
            // No label anywhere: the title of the photo's own page (an attachment page's heading).
            // A page title that only restates a rendition's file name ("by-the-water", "Image:
            // aqua.jpg (1/25)") is no title.
            var title =
                best?.title
                ?? photo.page.flatMap { summary.documents[$0] }.flatMap(PublishPlan.ownPageTitle).flatMap { label in
                    photo.entries.contains { PageReading.restatesFileName(label, of: $0.key.string) } ? nil : label
                }
            var titleFrom: Manifest.TextSource? = title == nil ? nil : .page
            if title == nil, let fileTitle = files.lazy.compactMap(\.title).first {
                (title, titleFrom) = (fileTitle, .file)
            }
            if title == nil, let largest {
                (title, titleFrom) = (PhotoText.nameTitle(items.key(at: largest)), .name)
            }
            let captionFrom = Self.captionSource(of: &metadata, title: title, fileCaption: files.lazy.compactMap(\.caption).first)
            for (index, _) in published {
                items.setAlbum(album?.url.string, at: index)
                items.setVariantOf(item: index == largest ? nil : largest, at: index)
                items.setTitle(title, from: titleFrom, at: index)
                items.setCaptionSource(captionFrom, at: index)
                if !metadata.isEmpty { items.setMetadata(metadata, at: index) }
            }
        }
        // Album pages titled "<album> - <site>" are listed by their own name; the start page
        // keeps its whole title (it names the site's own album).
        let pages = albumNumbers.sorted().compactMap { number in summary.documents[number].map { (number, $0) } }
        let albumTitles = pages.filter { $0.0 != 0 }.compactMap { PublishPlan.albumTitle($0.1) }
        let siteName = SiteName(titles: albumTitles) ?? siteTitle.flatMap { SiteName(titles: albumTitles, siteTitle: $0) }
        albums = pages.map { number, document in
            let title = PublishPlan.albumTitle(document)
            return Manifest.Album(
                url: document.url.string, title: number == 0 ? title : title.map { siteName?.strip($0) ?? $0 },
                cover: number == 0 ? nil : coverOfPage[document.url.string])
        }
        if let siteName, let startTitle = siteTitle, siteName.isIn(startTitle) { siteTitle = siteName.name }
    }

    /// Where the photo's caption comes from: the source, when `metadata` has a caption (an
    /// `alt` only when it says more than `title`), else the file's `fileCaption`, put into
    /// `metadata` as `caption` (unless it only repeats the title); nil when neither has one.
    static func captionSource(of metadata: inout [String: String], title: String?, fileCaption: String?)
        -> Manifest.TextSource?
    {
        let fromPage = metadata.contains { name, value in
            let name = name.lowercased()
            return PhotoText.captionNames.contains(name)
                && (name != "alt" || title.map { !PhotoText.sameIgnoringCase(value, $0) } ?? true)
        }
        if fromPage { return .page }
        guard let fileCaption, title.map({ !PhotoText.sameIgnoringCase(fileCaption, $0) }) ?? true else { return nil }
        metadata["caption"] = fileCaption
        return .file
    }

    /// Metadata as the manifest keeps it: real values only. Separators a template put before or
    /// after a value (", Tue Jan 22 03:28:22 2008", "| 12.50 |") are trimmed, and a value with
    /// no letter or digit left (an empty label, a lone dash) is left out.
    static func realValues(_ metadata: [String: String]) -> [String: String] {
        guard !metadata.isEmpty else { return metadata }
        var kept: [String: String] = [:]
        let separators = realValueSeparators
        for (name, value) in metadata {
            // Most values start and end with an ASCII letter or digit: nothing to trim, and
            // they hold a letter or digit.
            if let first = value.utf8.first, let last = value.utf8.last, isASCIIAlphanumeric(first),
                isASCIIAlphanumeric(last)
            {
                kept[name] = value
                continue
            }
            var scalars = Substring(value).unicodeScalars
            while let first = scalars.first, separators.contains(first) || first.properties.isWhitespace {
                scalars.removeFirst()
            }
            while let last = scalars.last, separators.contains(last) || last.properties.isWhitespace { scalars.removeLast() }
            let trimmed = String(Substring(scalars))
            guard trimmed.unicodeScalars.contains(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil })
            else { continue }
            kept[name] = trimmed
        }
        return kept
    }

    /// What `realValues` trims from a value's ends besides white space.
    private static let realValueSeparators = Set(",;:|·•–—".unicodeScalars)

    private static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A)
    }

    /// Whether `sighting`'s label is the name of the page its photo links to.
    static func namesLinkedPage(_ sighting: CatalogEntry.Sighting, _ groups: PhotoGroups, _ summary: CrawlSummary) -> Bool {
        guard let title = sighting.title, let page = groups.linkedPage(of: sighting).flatMap({ summary.documents[$0] })
        else { return false }
        return PhotoGroups.names(title, page: page)
    }

    /// What a photo's own page calls it: the page's first heading, else its `<title>` up to the
    /// site's name; nil when that is a file name ("File:Aqua.jpg") or no label at all.
    static func ownPageTitle(_ document: CrawlSummary.Document) -> String? {
        if let heading = document.heading { return PageReading.label(heading) }
        guard var title = document.title else { return nil }
        for separator in SiteName.separators {
            if let range = title.range(of: separator) { title = String(title[..<range.lowerBound]) }
        }
        return PageReading.label(title)
    }

    /// How the source titles a page: its `<title>`, else its first heading.
    static func albumTitle(_ document: CrawlSummary.Document) -> String? {
        document.title ?? document.heading
    }

    /// The largest side of an icon: an image at most this large on both sides is site
    /// furniture (docs/reference.md, "Titles and albums").
    static let iconSide = 48

    /// Whether an image of `dimensions` is of an icon's size.
    static func isIconSized(_ dimensions: ImageDimensions) -> Bool {
        dimensions.width <= iconSide && dimensions.height <= iconSide
    }

}
