import Foundation
import MirrorCatalog
import MirrorCore
import MirrorCrawl
import MirrorStore

/// What the plan phase hands on: the plan, and what the publish and report phases need of
/// what it was made from (which is freed by then).
struct PlannedRun {
    var plan: PublishPlan
    /// The crawl's summary, with what the store repaired first among its warnings.
    var summary: CrawlSummary
    /// Distinct image keys the run saw.
    var keys: Int
    /// Items of the last run's manifest: what `--max-delete` counts against.
    var previousCount: Int
    /// The last run's manifest, read for what the report says of removed items.
    var previousManifest: URL?
    /// The pairs of images the structure proposed as renditions: how many the pixels
    /// confirmed, how many they split into two photos, and how many could not be compared.
    var renditionPairs: (matched: Int, differed: Int, unknown: Int) = (0, 0, 0)
}

/// The third phase of a run: commits what the loads verified, and compares the catalog with
/// the last run's manifest (`PublishPlan`). Nothing on disk changes but the index's commit.
struct PlanPhase {
    let configuration: MirrorConfiguration
    /// How many pairs whose pixels differ `--verbose` names.
    static let pairsNamed = 20

    /// Plans what to publish from `collected` and the last manifest `storage` read.
    /// - Throws: `MirrorError.storage` when the index cannot be written or read back, and
    ///   `.sourceUnavailable` when there is nothing to publish (an empty or broken source never
    ///   empties a mirror).
    func plan(_ collected: consuming Collector.Collected, storage: DiskStorage) async throws(MirrorError) -> PlannedRun {
        var catalog = collected.catalog
        var summary = collected.summary
        var groups = collected.groups
        // Held here only, so freeing these below frees them.
        _ = consume collected
        // What the loads verified is committed before the publish step writes its large files:
        // a disk that fills up from here on stops the run with every download kept.
        do {
            try await storage.commit()
        } catch {
            throw .storage(error.message)
        }
        // What the store found broken and mended (a damaged index or manifest, files gone
        // from images/) is said first.
        summary.warnings = await storage.repairs() + summary.warnings

        // The structure proposes renditions, the pixels decide (`PixelJudge`); then, with
        // `--variants largest`, each photo keeps its largest rendition.
        let findsDecorations = configuration.findsDecorations
        var evidence = RenditionEvidence()
        var grouped = groups ?? PhotoGroups(entries: catalog, summary: summary, findsDecorations: findsDecorations)
        // A grouping may propose pairs the one before did not (a page's main photo is found
        // among other photos once pixels split them): asked again, a few rounds at most.
        let judging = ContinuousClock.now
        var answers: [PixelAnswer] = []
        var fetchHeld: (@Sendable (String, String, URL) async -> Bool)?
        if let bucket = configuration.bucket, !configuration.dryRun {
            fetchHeld = { path, sha256, file in await bucket.fetch(path, sha256: sha256, to: file) }
        }
        let judge = grouped.unjudged.isEmpty ? nil : await PixelJudge(storage: storage, fetchHeld: fetchHeld)
        for _ in 0..<3 where !grouped.unjudged.isEmpty {
            guard let judge else { break }
            answers += await judge.judge(grouped.unjudged, into: &evidence)
            grouped = PhotoGroups(entries: catalog, summary: summary, findsDecorations: findsDecorations, evidence: evidence)
        }
        // Only when something was judged: a run with no pair keeps the last run's answers.
        if judge != nil { await storage.keepPixelAnswers(answers) }
        let pairs = evidence.counts(leavingOut: grouped.coverPairs)
        if pairs.matched + pairs.differed + pairs.unknown > 0 {
            let elapsed = (ContinuousClock.now - judging).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            configuration.logger.info(
                "pixels: \(pairs.matched) proposed pairs of renditions matched, \(pairs.differed) did not, \(pairs.unknown) could not be compared (\(String(format: "%.2f", seconds)) s)"
            )
        }
        // With `--variants largest`, each photo's smaller renditions are rejected by the plan
        // (the catalog's entries stay as the collection left them).
        var smaller = Set<CanonicalURL>()
        if configuration.crawl.variants == .largest {
            for entry in grouped.largestRenditions().smaller where entry.verdict == .accepted {
                smaller.insert(entry.key)
                configuration.logger.reconsidered(.rejected(.smallerRendition), for: entry.key)
            }
        }
        for pair in evidence.pairs(answered: .differ).lazy.filter({ !grouped.coverPairs.contains($0) }).prefix(Self.pairsNamed) {
            configuration.logger.info(
                "images \(pair.first) and \(pair.second): proposed as one photo, their pixels differ: two photos")
        }
        groups = grouped

        var previous = await storage.takePreviousManifest()
        var stored: [CanonicalURL: StoredImage] = [:]
        // Only a failed key can keep its previous file; nothing else needs the store again.
        for entry in catalog {
            if case .failed = entry.outcome { stored[entry.key] = await storage.lookup(entry.key) }
        }
        let plan: PublishPlan
        do {
            plan = try await PublishPlan(
                entries: catalog, groups: groups, previous: previous,
                records: { keys async throws(StoreError) in try await storage.records(keys) }, stored: { stored[$0] },
                summary: summary, withholdingLocation: configuration.publish.stripLocation,
                findsDecorations: findsDecorations, smaller: smaller)
        } catch {
            throw .storage(error.message)
        }
        // This run's icons, for the next: those its files showed, and those rejected again
        // without a request.
        let previousIcons = await storage.previousIconKeys()
        await storage.keepIconKeys(
            plan.icons + catalog.filter { previousIcons.contains($0.key) && $0.verdict == .rejected(.decoration) }.map(\.key))
        guard !plan.items.isEmpty || !plan.probed.isEmpty else {
            // An empty or broken source never empties a mirror.
            let message = EmptyCrawl(source: configuration.source, summary: summary, plan: plan, keys: catalog.count).message
            throw .sourceUnavailable(message)
        }
        let planned = PlannedRun(
            plan: plan, summary: summary, keys: catalog.count, previousCount: previous?.items.count ?? 0,
            previousManifest: previous?.url, renditionPairs: pairs)
        // What the plan was made of is not needed to publish it: freed now, not after the
        // pages and the manifest are written (the catalog's entries and the previous manifest
        // grow with the item count, and were a large part of the heap while publishing).
        catalog = []
        groups = nil
        previous = nil
        FreeMemory.release()
        return planned
    }
}
