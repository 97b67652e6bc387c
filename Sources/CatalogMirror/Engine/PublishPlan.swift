import Foundation

/// What a run will publish, decided from the catalog it collected and the previous manifest,
/// before anything is written: the new manifest's items and rejections, and what changes.
struct PublishPlan {
    var items: [Manifest.Item] = []
    var rejected: [Manifest.Rejection] = []
    /// Keys whose files wait in the staging directory.
    var staged: [CanonicalURL] = []
    var added: [String] = []
    var replaced: [String] = []
    var unchanged: [String] = []
    /// Previous items this run deletes.
    var removed: [String] = []
    /// Previous items that failed this run and stay as they were.
    var kept: [String] = []
    /// New or changed keys a dry run found (nothing downloaded).
    var probed: [String] = []
    var policy: [String: Int] = [:]
    var failed: [String: Int] = [:]
    var warnings: [String] = []

    /// - Parameters:
    ///   - catalog: every key the run saw, with its verdict and outcome.
    ///   - previous: the last run's manifest.
    ///   - stored: the store's record of a key whose file is still in place.
    init(
        catalog: [CanonicalURL: CatalogEntry], previous: Manifest?, stored: (CanonicalURL) -> StoredImage?,
        summary: CrawlSummary
    ) {
        // Positions, not copies of the items: at 10,000 items the copies were 3 MB of the peak.
        let previousItems = previous?.items ?? []
        var previousIndex: [String: Int] = [:]
        previousIndex.reserveCapacity(previousItems.count)
        for (index, item) in previousItems.enumerated() where previousIndex[item.key] == nil { previousIndex[item.key] = index }
        warnings = summary.pageFailures
        for entry in catalog.values.sorted(by: { $0.key < $1.key }) {
            let key = entry.key.string
            let before = previousIndex[key].map { previousItems[$0] }
            if let image = entry.stored {
                items.append(
                    Manifest.Item(
                        key: key, path: image.path, sha256: image.sha256, bytes: image.byteCount, contentType: image.contentType,
                        title: entry.title, metadata: entry.metadata.isEmpty ? nil : entry.metadata, etag: image.etag,
                        lastModified: image.lastModified, firstSeen: before?.firstSeen ?? image.firstSeen,
                        lastChecked: image.lastChecked))
                if image.isStaged { staged.append(entry.key) }
                switch before?.sha256 {
                case nil: added.append(key)
                case image.sha256: unchanged.append(key)
                default: replaced.append(key)
                }
                continue
            }
            if case .probed = entry.outcome {
                probed.append(key)
                if before == nil { added.append(key) } else { replaced.append(key) }
                continue
            }
            guard let reason = entry.rejection else { continue }
            if reason.isPolicy {
                policy[reason.rawValue, default: 0] += 1
            } else {
                failed[reason.rawValue, default: 0] += 1
                if case .failed(let failure) = entry.outcome { warnings.append(failure.detail) }
                // A key still listed but failing this run keeps its published file.
                if let before, let image = stored(entry.key), !image.isStaged, image.sha256 == before.sha256 {
                    items.append(before)
                    kept.append(key)
                    continue
                }
            }
            rejected.append(Manifest.Rejection(key: key, reason: reason.rawValue))
        }
        let published = Set(items.map(\.key))
        removed = (previous?.items ?? []).map(\.key).filter { !published.contains($0) }.sorted {
            $0.utf8.lexicographicallyPrecedes($1.utf8)
        }
        if summary.unusableReferences > 0 {
            warnings.append("\(summary.unusableReferences) image references had URLs that could not be read")
        }
    }
}
