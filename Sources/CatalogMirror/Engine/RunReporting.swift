import Foundation
import MirrorCatalog
import MirrorCore
import MirrorCrawl
import MirrorOperate
import MirrorStore

/// The last phase of a run: the report of a run that published (or, with `--dry-run`, would
/// have), from its plan, what it removed, the progress board's counters and its times.
struct RunReporting {
    let configuration: MirrorConfiguration
    let progress: ProgressBoard

    /// When the run's phases ended.
    struct Times {
        var startedAt: Date
        /// When every load had settled (`CollectedRun.fetchedAt`).
        var fetchedAt: Date
    }

    /// The report of `planned`, published as `published`; its `exitStatus` is 1 when an image
    /// or a page failed, 0 otherwise.
    func report(_ planned: PlannedRun, published: PublishedRun, times: Times) -> RunReport {
        let plan = planned.plan
        let startedAt = times.startedAt
        let snapshot = progress.snapshot
        let finishedAt = Date()
        let failedTotal = plan.failed.values.reduce(0, +)
        var report = RunReport(
            source: configuration.source.string, output: MirrorLayout(root: configuration.output).root.path,
            startedAt: Timestamp.truncated(startedAt), finishedAt: Timestamp.truncated(finishedAt),
            durationSeconds: finishedAt.timeIntervalSince(startedAt),
            exitStatus: failedTotal > 0 || !planned.summary.pageFailures.isEmpty ? ExitStatus.itemsFailed : ExitStatus.ok,
            pages: planned.summary.pages,
            feeds: planned.summary.feeds, keys: planned.keys, published: plan.items.count, downloaded: snapshot.downloaded,
            memoryHits: snapshot.memoryHits, diskHits: snapshot.diskHits, bytesDownloaded: snapshot.bytes,
            rejected: plan.policy, failed: plan.failed, warnings: Array(plan.warnings.prefix(50)), error: nil)
        report.dryRun = configuration.dryRun
        // A photo's largest rendition is the one item of its photo that is no other's variant.
        let items = plan.items
        report.photos = items.indices.count { items.variantItem(at: $0) == nil && items.variantText(at: $0) == nil }
        let pairs = planned.renditionPairs
        if pairs.matched + pairs.differed + pairs.unknown > 0 {
            report.renditionPairs = .init(matched: pairs.matched, differed: pairs.differed, unknown: pairs.unknown)
        }
        report.added = plan.added.count
        report.replaced = plan.replaced.count
        report.unchanged = plan.unchanged
        report.removed = plan.removed.count
        report.kept = plan.kept.count
        report.changes = RunChanges(
            items: plan.items, added: plan.added, replaced: plan.replaced, removed: published.removed)
        report.phases = [
            "crawl": (snapshot.crawlFinishedAt ?? times.fetchedAt).timeIntervalSince(startedAt),
            "fetch": times.fetchedAt.timeIntervalSince(startedAt), "publish": Date().timeIntervalSince(startedAt),
        ]
        return report
    }
}
