import Foundation
import MirrorCatalog
import MirrorCore
import MirrorOperate
import MirrorPublish
import MirrorStore

/// What the publish phase hands on to the report.
struct PublishedRun {
    /// The removed items as the last manifest described them, read before the new one
    /// replaced it (the report's `changes`).
    var removed: [RunChanges.Entry]
    /// The manifest published (nil for a dry run): what `--publish` copies to the bucket, so
    /// it is not read back from the disk.
    var manifest: Manifest?
    /// What names the site published (`MirrorPublisher.PreparedSite.mark`), for the bucket.
    var siteMark: String?
}

/// The fourth phase of a run: applies `--max-delete`, then (unless `--dry-run`) publishes the
/// plan into the mirror of `storage`, in the order that keeps every served page consistent.
struct PublishPhase {
    let configuration: MirrorConfiguration
    let storage: DiskStorage
    let template: SiteTemplate
    /// The mark of the site a bucket serves when this disk holds none of it (a worker that
    /// keeps no disk): a site that would be the same is not made (`MirrorPublisher.prepare`).
    var served: String? = nil

    /// Publishes `planned` once `downloadsFlush` is done.
    /// - Throws: `MirrorError.pruneGuard` when the plan removes more than `--max-delete` allows
    ///   (nothing is published or deleted; verified downloads stay staged for the next run), and
    ///   `.storage` when a file cannot be written or moved, or one the manifest would name went
    ///   missing (the pages and `manifest.json` stay as they were).
    func publish(_ planned: PlannedRun, after downloadsFlush: DownloadFlush) async throws(MirrorError) -> PublishedRun {
        let plan = planned.plan
        let limit = configuration.publish.maxDelete
        guard limit.allows(plan.removed.count, of: planned.previousCount) else {
            throw .pruneGuard(wouldDelete: plan.removed.count, of: planned.previousCount, limit: limit)
        }
        // What the report's `changes` says of removed items is in the last manifest only:
        // read before the new one replaces it.
        let removed = RunChanges.removedEntries(plan.removed, manifest: planned.previousManifest)
        var published: (manifest: Manifest, siteMark: String?)?
        if !configuration.dryRun {
            await downloadsFlush.wait()
            published = try await publish(plan)
        }
        return PublishedRun(removed: removed, manifest: published?.manifest, siteMark: published?.siteMark)
    }

    /// Publishes in the order that keeps every served page consistent: the pages and
    /// `manifest.json` written under temporary names first (what needs disk space is done
    /// before anything is visible, so a full disk leaves the mirror as it was), then staged
    /// images into `images/`, then the pages and `manifest.json` renamed into place, and only
    /// then is what the new manifest no longer references deleted. Returns the manifest and
    /// the site's mark.
    private func publish(_ plan: PublishPlan) async throws(MirrorError) -> (manifest: Manifest, siteMark: String?) {
        let manifest = Manifest(
            source: configuration.source.string, title: plan.siteTitle,
            generatedAt: Timestamp.truncated(configuration.now()), table: plan.items, rejected: plan.rejected,
            albums: plan.albums)
        let publisher = MirrorPublisher(
            layout: storage.layout, template: template, itemsPerPage: configuration.publish.itemsPerPage)
        // Written beside the pages; put in place with them (`MirrorPublisher.commit`).
        let manifestWrite = publisher.beginManifest(manifest)
        var prepared: MirrorPublisher.PreparedSite?
        // A publish that stops before anything is in place removes what it wrote aside.
        func abandon(_ message: String) async -> MirrorError {
            prepared?.discard()
            await manifestWrite.discard()
            return .storage(message)
        }
        let site: MirrorPublisher.PreparedSite
        do {
            site = try await publisher.prepare(manifest, served: served)
        } catch {
            throw await abandon(error.message)
        }
        prepared = site
        do {
            try await manifestWrite.written()
        } catch {
            throw await abandon(error.message)
        }
        // Pages were rendered on several threads at once, each in an arena of its own.
        FreeMemory.release()
        do {
            try await storage.publish(plan.staged)
        } catch {
            throw await abandon(error.message)
        }
        if let missing = storage.missingFiles(of: manifest.table) { throw await abandon(missing) }
        do {
            try await publisher.commit(site, manifestWrite: manifestWrite)
        } catch {
            throw .storage(error.message)
        }
        await storage.finishPublishing(manifest)
        return (manifest, site.mark)
    }
}
