import Foundation
import MirrorCore
import MirrorOperate

extension RunReport {
    /// The report of a run that stopped with `error` before publishing anything.
    public static func stopped(
        _ error: MirrorError, configuration: MirrorConfiguration, startedAt: Date, progress: ProgressSnapshot
    ) -> RunReport {
        let finishedAt = Date()
        var report = RunReport(
            source: configuration.source.string, output: configuration.output.standardizedFileURL.path,
            startedAt: Timestamp.truncated(startedAt), finishedAt: Timestamp.truncated(finishedAt),
            durationSeconds: finishedAt.timeIntervalSince(startedAt), exitStatus: error.exitStatus,
            pages: progress.pagesCrawled, feeds: progress.feedsRead, keys: progress.keysFound, published: 0,
            downloaded: 0, memoryHits: progress.memoryHits, diskHits: progress.diskHits, bytesDownloaded: progress.bytes,
            rejected: [:], failed: [:], warnings: [], error: error.description)
        report.dryRun = configuration.dryRun
        if let deletions = error.deletions { report.removed = deletions.wouldDelete }
        return report
    }
}
