import AsyncHTTPClient
import Foundation
import Logging
import MirrorCatalog
import MirrorCore
import MirrorCrawl
import MirrorFetch
import MirrorOperate
import MirrorPublish
import MirrorStore
import MirrorValidate
import Synchronization

/// Runs one sync: crawl → validate → fetch → store → publish.
///
/// The crawler streams keys through a bounded channel while it crawls; each new key goes
/// through the validator chain, and accepted keys are loaded by the `ImageLoader`, at most
/// `concurrency` at a time, so downloads start while the crawl goes on. Publishing happens only
/// when everything has settled: images first, then pages, then the manifest.
public struct MirrorEngine: Sendable {
    /// Everything the run needs to know: source, output, network, crawl, validation and publish settings.
    public let configuration: MirrorConfiguration
    /// Live counters for a display.
    public let progress: ProgressBoard

    /// An engine for one run of `configuration`, posting its counters to `progress`.
    /// Default `progress`: a fresh board nobody reads.
    public init(configuration: MirrorConfiguration, progress: ProgressBoard = ProgressBoard()) {
        self.configuration = configuration
        self.progress = progress
    }

    /// Runs the sync once: takes the mirror's lock, crawls, validates, loads and publishes.
    ///
    /// - Returns: the report; its `exitStatus` is 1 when some image or page failed.
    /// - Throws: `MirrorError` when the run stops: the source is unreachable or empty (nothing
    ///   changed), the mirror is locked, `--max-delete` would be exceeded, the store fails, or the
    ///   task is cancelled.
    public func run() async throws(MirrorError) -> RunReport {
        let startedAt = Date()
        let template: SiteTemplate
        do {
            if let directory = configuration.publish.templateDirectory {
                template = try SiteTemplate.load(from: directory)
            } else {
                template = try SiteTemplate.embedded()
            }
        } catch {
            throw .storage(error.message)
        }
        do {
            return try await HTTPClients.with(configuration.fetch, logger: configuration.logger) { clients in
                try await run(clients: clients, template: template, startedAt: startedAt)
            }
        } catch let error as MirrorError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .storage("\(error)")
        }
    }

    private func run(clients: HTTPClients, template: SiteTemplate, startedAt: Date) async throws(MirrorError) -> RunReport {
        let source = configuration.source
        let dryRun = configuration.dryRun
        let honourRobots = configuration.validation.honourRobots
        let scope = ScopeRule(hosts: [source.host] + configuration.validation.allowedHosts, next: nil)
        let scopeGate: RequestGate = { url in url.isWeb && scope.contains(url) ? nil : .outOfScope }
        // robots.txt is read even with --ignore-robots, for its Sitemap lines; only its rules and
        // Crawl-delay are then ignored. It is fetched through its own session (same pacing) so
        // pacing by Crawl-delay never waits on robots.txt itself.
        let politeness = Politeness(rate: configuration.fetch.rate, perHost: configuration.fetch.connectionsPerHost)
        // Origins that do not answer are given up on for the run, by every session of it.
        let health = OriginHealth()
        let robotsSession = HTTPSession(
            clients: clients, configuration: configuration.fetch, politeness: politeness, health: health,
            logger: configuration.logger)
        let robots = RobotsCache { url in await Self.fetchRobots(url, session: robotsSession, gate: scopeGate) }
        let session = HTTPSession(
            clients: clients, configuration: configuration.fetch, politeness: politeness,
            crawlDelay: { url in honourRobots ? robots.fetchedPolicy(for: url)?.crawlDelay : nil }, health: health,
            logger: configuration.logger)
        let gate: RequestGate = { url in
            if let refusal = await scopeGate(url) { return refusal }
            // An origin given up on (its robots.txt unreachable) is a failure, not a refusal:
            // its images are kept from the last run.
            if honourRobots, await !robots.allows(url) {
                return robots.fetchedPolicy(for: url)?.isUnreachable == true ? .networkError : .robots
            }
            return nil
        }

        // One sync per mirror. The directories this run creates are removed again if it stops
        // with nothing to keep, so a first run that fails before it verified anything leaves
        // no directory behind; one that verified downloads keeps them in `.catalog-mirror/`
        // for the next run (`DiskStorage.keepsDownloads()`).
        let layout = MirrorLayout(root: configuration.output)
        let created = [layout.root, layout.state].filter { !FileManager.default.fileExists(atPath: $0.path) }
        func removeCreated() {
            guard !dryRun else { return }
            for directory in created.reversed() { try? FileManager.default.removeItem(at: directory) }
        }
        let lock: MirrorLock?
        do {
            lock = try MirrorLock.acquire(layout, create: !dryRun)
        } catch let held as MirrorLock.Held {
            throw .locked(directory: held.path, pid: held.pid)
        } catch {
            removeCreated()
            throw .storage("\(error)")
        }
        defer { withExtendedLifetime(lock) {} }

        let cache = DocumentCache(directory: layout.documents, readOnly: dryRun)
        var crawler = Crawler(
            source: source, configuration: configuration.crawl, session: session, startGate: scopeGate, gate: gate,
            progress: progress)
        crawler.cache = cache
        crawler.robots = robots
        crawler.logger = configuration.logger
        crawler.downloads = dryRun ? FileManager.default.temporaryDirectory : layout.documents

        // Fetched before the store is opened: an unreachable source changes nothing.
        let start: Handoff<Crawler.StartDocument>
        do {
            start = Handoff(try await crawler.fetchStart())
        } catch {
            removeCreated()
            throw Task.isCancelled ? .cancelled : .sourceUnavailable(error.message)
        }

        // The store is open for exactly this scope; a failure inside it closes the store
        // first, and only then removes what this run created, if it keeps nothing.
        let mirrored: Result<RunReport, Stop>
        do {
            mirrored = try await ImageDatabase.withStore(layout, readOnly: dryRun) { storage in
                let result = await mirror(
                    into: storage, clients: clients, session: session, gate: gate, robots: robots, crawler: crawler,
                    start: start, cache: cache, template: template, startedAt: startedAt)
                guard case .failure(var stop) = result else { return result }
                stop.keepsDownloads = await storage.keepsDownloads()
                return .failure(stop)
            }
        } catch {
            removeCreated()
            throw .storage(error.message)
        }
        switch mirrored {
        case .success(let report):
            return report
        case .failure(let stop):
            if !stop.keepsDownloads { removeCreated() }
            throw stop.error
        }
    }

    /// How a run inside the store's scope stopped: the error, and whether the store keeps
    /// verified downloads for the next run (then the directories this run created stay).
    private struct Stop: Error {
        var error: MirrorError
        var keepsDownloads = false
    }

    /// Crawls, validates, loads into `storage` and publishes; the part of a run that needs the store.
    private func mirror(
        into storage: DiskStorage, clients: HTTPClients, session: HTTPSession, gate: @escaping RequestGate,
        robots: RobotsCache, crawler: Crawler, start: Handoff<Crawler.StartDocument>, cache: DocumentCache,
        template: SiteTemplate,
        startedAt: Date
    ) async -> Result<RunReport, Stop> {
        let source = configuration.source
        let dryRun = configuration.dryRun
        let layout = MirrorLayout(root: configuration.output)
        // Loads in flight: with the pipelined client, each connection carries up to its depth.
        let pipelined =
            clients.pipelined != nil && !dryRun && source.scheme == "http" && clients.routes.proxy(for: source) == nil
        let window = Self.window(configuration.fetch, pipelined: pipelined)
        let imageSource: any ImageSource =
            dryRun
            ? ProbeImageSource(
                session: session, gate: gate, maxSize: configuration.validation.maxSize,
                storedSizes: { key in await storage.lookup(key)?.byteCount })
            : HTTPImageSource(
                session: session, gate: gate, maxSize: configuration.validation.maxSize,
                slots: window > configuration.fetch.concurrency ? TransferSlots(limit: configuration.fetch.concurrency) : nil)
        let loader = ImageLoader(storage: storage, source: imageSource, now: configuration.now)
        await storage.withholdLocation(configuration.publish.stripLocation)
        // A first run: no manifest (nor a page of this mirror that anyone reads).
        if !dryRun, await storage.previousManifest == nil { await storage.stageUnderFinalNames() }
        let chain = ValidationChain.make(configuration.validation, sourceHost: source.host, robots: robots)

        var collector = Collector(
            configuration: configuration, progress: progress, chain: chain, loader: loader, storage: storage, window: window,
            revalidatesInBatches: pipelined && window > configuration.fetch.concurrency)
        if configuration.validation.honourRobots { collector.robots = robots }
        let collected = await collector.run(crawler: crawler, start: start)
        await loader.finishStreams()
        let fetchedAt = Date()
        // What this run downloaded goes to the disk while the plan is made: the flush before
        // the first file is published, or the first page names one, then finds it done instead
        // of waiting for every download's bytes at the end of the crawl. Errors are the later
        // flushes' to report. Not for a run that wrote nothing: `syncfs` also waits for other
        // programs' files.
        let downloadsFlushed: Task<Void, Never>? =
            dryRun || progress.snapshot.downloaded == 0
            ? nil : Task { try? await FileSystem.flushFileSystemOffThreadPool(containing: layout.root.path) }
        // The crawl's documents, the catalog's table and the loads' buffers are free now.
        FreeMemory.release()

        var catalog: [CatalogEntry]
        var summary: CrawlSummary
        var groups: PhotoGroups?
        switch consume collected {
        case .failure(let error):
            return .failure(Stop(error: error))
        case .success(let result):
            (catalog, summary, groups) = (result.catalog, result.summary, result.groups)
        }
        // What the loads verified is committed before the publish step writes its large files:
        // a disk that fills up from here on stops the run with every download kept.
        do {
            try await storage.commit()
        } catch {
            return .failure(Stop(error: .storage(error.message)))
        }
        // What the store found broken and mended (a damaged index or manifest, files gone
        // from images/) is said first.
        summary.warnings = await storage.repairs() + summary.warnings

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
                // Images the user asked for by name (`--include`) are never furniture.
                findsDecorations: configuration.validation.include.isEmpty)
        } catch {
            return .failure(Stop(error: .storage(error.message)))
        }
        guard !plan.items.isEmpty || !plan.probed.isEmpty else {
            // An empty or broken source never empties a mirror.
            let message = EmptyCrawl(source: source, summary: summary, plan: plan, keys: catalog.count).message
            return .failure(Stop(error: .sourceUnavailable(message)))
        }
        let previousCount = previous?.items.count ?? 0
        let previousManifest = previous?.url
        // What the plan was made of is not needed to publish it: freed now, not after the
        // pages and the manifest are written (the catalog's entries and the previous manifest
        // grow with the item count, and were a large part of the heap while publishing).
        let keyCount = catalog.count
        catalog = []
        groups = nil
        previous = nil
        FreeMemory.release()
        guard configuration.publish.maxDelete.allows(plan.removed.count, of: previousCount) else {
            // Nothing is published or deleted; verified downloads stay staged for the next run.
            return .failure(
                Stop(
                    error: .pruneGuard(
                        wouldDelete: plan.removed.count, of: previousCount, limit: configuration.publish.maxDelete)))
        }
        // What the report's `changes` says of removed items is in the last manifest only:
        // read before the new one replaces it.
        let removed = RunChanges.removedEntries(plan.removed, manifest: previousManifest)
        if !dryRun {
            await downloadsFlushed?.value
            do throws(MirrorError) {
                try await publish(plan, layout: layout, storage: storage, template: template)
            } catch {
                return .failure(Stop(error: error))
            }
            await cache.save()
        }
        var result = report(plan, summary: summary, keys: keyCount, layout: layout, startedAt: startedAt)
        result.changes = RunChanges(items: plan.items, added: plan.added, replaced: plan.replaced, removed: removed)
        result.phases = [
            "crawl": (progress.snapshot.crawlFinishedAt ?? fetchedAt).timeIntervalSince(startedAt),
            "fetch": fetchedAt.timeIntervalSince(startedAt), "publish": Date().timeIntervalSince(startedAt),
        ]
        return .success(result)
    }

    /// Publishes in the order that keeps every served page consistent: the pages and
    /// `manifest.json` written under temporary names first (what needs disk space is done
    /// before anything is visible, so a full disk leaves the mirror as it was), then staged
    /// images into `images/`, then the pages and `manifest.json` renamed into place, and only
    /// then is what the new manifest no longer references deleted.
    private func publish(_ plan: PublishPlan, layout: MirrorLayout, storage: DiskStorage, template: SiteTemplate)
        async throws(MirrorError)
    {
        let manifest = Manifest(
            source: configuration.source.string, title: plan.siteTitle,
            generatedAt: Timestamp.truncated(configuration.now()), table: plan.items, rejected: plan.rejected,
            albums: plan.albums)
        let publisher = MirrorPublisher(layout: layout, template: template, itemsPerPage: configuration.publish.itemsPerPage)
        // Written beside the pages; put in place with them (`MirrorPublisher.commit`).
        let manifestWrite = publisher.beginManifest(manifest)
        let site: MirrorPublisher.PreparedSite
        do {
            site = try await publisher.prepare(manifest)
        } catch {
            await manifestWrite.discard()
            throw .storage(error.message)
        }
        do {
            try await manifestWrite.written()
        } catch {
            site.discard()
            throw .storage(error.message)
        }
        // Pages were rendered on several threads at once, each in an arena of its own.
        FreeMemory.release()
        do {
            try await storage.publish(plan.staged)
        } catch {
            site.discard()
            await manifestWrite.discard()
            throw .storage(error.message)
        }
        if let missing = Self.missingFiles(of: manifest.table, in: layout) {
            site.discard()
            await manifestWrite.discard()
            throw .storage(missing)
        }
        do {
            try await publisher.commit(site, manifestWrite: manifestWrite)
        } catch {
            throw .storage(error.message)
        }
        await storage.finishPublishing(manifest)
    }

    /// The line that says which files the new manifest would name are not in the mirror with
    /// their size, or nil when every one is: checked after the images are published and before
    /// any page or the manifest names them, so a run never publishes a reference to nothing
    /// (a file deleted while the run went on is downloaded again by the next one).
    static func missingFiles(of items: ItemTable, in layout: MirrorLayout) -> String? {
        let root = layout.root.path + "/"
        var missing: [String] = []
        for index in items.indices where FileSystem.size(atPath: root + items.path(at: index)) != items.bytes(at: index) {
            missing.append(items.path(at: index))
        }
        guard let first = missing.first else { return nil }
        let more = missing.count > 1 ? " and \(missing.count - 1) more" : ""
        return "\(root)\(first)\(more) went missing while the run published: the pages and manifest.json were left "
            + "as they were; the next sync downloads what is missing"
    }

    private func report(
        _ plan: PublishPlan, summary: CrawlSummary, keys: Int, layout: MirrorLayout,
        startedAt: Date
    ) -> RunReport {
        let snapshot = progress.snapshot
        let finishedAt = Date()
        let failedTotal = plan.failed.values.reduce(0, +)
        var report = RunReport(
            source: configuration.source.string, output: layout.root.path, startedAt: Timestamp.truncated(startedAt),
            finishedAt: Timestamp.truncated(finishedAt), durationSeconds: finishedAt.timeIntervalSince(startedAt),
            exitStatus: failedTotal > 0 || !summary.pageFailures.isEmpty ? 1 : 0, pages: summary.pages,
            feeds: summary.feeds, keys: keys, published: plan.items.count, downloaded: snapshot.downloaded,
            memoryHits: snapshot.memoryHits, diskHits: snapshot.diskHits, bytesDownloaded: snapshot.bytes,
            rejected: plan.policy, failed: plan.failed, warnings: Array(plan.warnings.prefix(50)), error: nil)
        report.dryRun = configuration.dryRun
        report.added = plan.added.count
        report.replaced = plan.replaced.count
        report.unchanged = plan.unchanged
        report.removed = plan.removed.count
        report.kept = plan.kept.count
        return report
    }

    /// Loads the engine keeps in flight: `--concurrency`, times the pipeline depth when image
    /// GETs to a plain-HTTP source can be pipelined (no `--rate`: pacing needs one request at a
    /// time). Capped at 256 so memory stays flat.
    static func window(_ fetch: FetchConfiguration, pipelined: Bool) -> Int {
        let concurrency = max(1, fetch.concurrency)
        guard pipelined, fetch.rate == nil, fetch.pipelineDepth > 1 else { return concurrency }
        return min(256, concurrency * fetch.pipelineDepth)
    }

    /// robots.txt of an origin: 2xx is parsed; 4xx (and redirects out of scope) allow all;
    /// 5xx and unreachable hosts disallow all (RFC 9309 section 2.3.1).
    static func fetchRobots(_ url: CanonicalURL, session: HTTPSession, gate: @escaping RequestGate) async -> RobotsTxt {
        do {
            let document = try await session.document(url, accept: "text/plain", gate: gate)
            let token = session.configuration.userAgent.split(separator: "/").first.map(String.init) ?? "catalog-mirror"
            return RobotsTxt(parsing: String(decoding: document.bytes.prefix(512 * 1024), as: UTF8.self), userAgent: token)
        } catch {
            let raw = error.reason.rawValue
            if raw.hasPrefix("http-4") || error.reason.isPolicy || raw == "too-many-redirects" || raw == "redirect-loop" {
                return .allowAll
            }
            // No answer at all (refused, timed out, no such host): the origin is given up on
            // for the run, so its keys fail at once rather than one by one.
            if error.reason == .networkError || error.reason == .timeout {
                session.health.giveUp(url)
                return .unreachable
            }
            return .disallowAll
        }
    }
}

/// A value handed over once: the start page goes to the crawler and is gone when the crawl is.
/// Held for the whole run instead, a large feed given as the source stayed in memory through
/// publishing.
final class Handoff<Value: Sendable>: Sendable {
    private let value: Mutex<Value?>

    init(_ value: Value) { self.value = Mutex(value) }

    /// The value, the first time; nil after.
    func take() -> Value? { value.withLock { $0.take() } }
}
