import Foundation
import MirrorCore
import MirrorCrawl
import MirrorFetch
import MirrorPipeline
import MirrorStore
import MirrorValidate

/// What the collect phase hands on: the catalog and the crawl's summary (`Collector.Collected`),
/// when the loads settled, and the flush of their downloads, started early.
struct CollectedRun {
    var collected: Collector.Collected
    /// When every load had settled: the report's `fetch` phase ends here.
    var fetchedAt: Date
    /// Awaited before the first file is published.
    var downloadsFlush: DownloadFlush
}

/// The second phase of a run: the image source and the loader in front of the store, the
/// validator chain, and the `Collector`, which crawls, validates and loads until everything
/// has settled.
struct CollectPhase {
    let configuration: MirrorConfiguration
    let progress: ProgressBoard

    /// Collects from `prepared`'s crawler into `storage`, loading through `clients`.
    /// - Throws: `MirrorError` when the collection stopped the run (the crawl failed, the store
    ///   failed, the task was cancelled).
    func collect(_ prepared: PreparedRun, into storage: DiskStorage, clients: HTTPClients) async throws(MirrorError)
        -> CollectedRun
    {
        let source = configuration.source
        let dryRun = configuration.dryRun
        // Loads in flight: with the pipelined client, each connection carries up to its depth.
        let pipelined =
            clients.pipelined != nil && !dryRun && source.scheme == "http" && clients.routes.proxy(for: source) == nil
        let window = MirrorEngine.window(configuration.fetch, pipelined: pipelined)
        let imageSource: any ImageSource =
            dryRun
            ? ProbeImageSource(
                session: prepared.session, gate: prepared.gate, maxSize: configuration.validation.maxSize,
                storedSizes: { key in await storage.lookup(key)?.byteCount })
            : HTTPImageSource(
                session: prepared.session, gate: prepared.gate, maxSize: configuration.validation.maxSize,
                slots: window > configuration.fetch.concurrency ? TransferSlots(limit: configuration.fetch.concurrency) : nil)
        let loader = ImageLoader(storage: storage, source: imageSource, now: configuration.now)
        await storage.withholdLocation(configuration.publish.stripLocation)
        await storage.stageUnderFinalNamesOnFirstRun()
        let chain = ValidationChain.make(configuration.validation, sourceHost: source.host, robots: prepared.robots)

        var collector = Collector(
            configuration: configuration, progress: progress, chain: chain, loader: loader, storage: storage, window: window,
            revalidatesInBatches: pipelined && window > configuration.fetch.concurrency)
        if configuration.validation.honourRobots { collector.robots = prepared.robots }
        let collected = await collector.run(crawler: prepared.crawler, start: prepared.start)
        await loader.finishStreams()
        let fetchedAt = Date()
        // What this run downloaded goes to the disk while the plan is made.
        let downloadsFlush = storage.flushDownloads(downloaded: progress.snapshot.downloaded)
        // The crawl's documents, the catalog's table and the loads' buffers are free now.
        FreeMemory.release()
        switch consume collected {
        case .failure(let error):
            throw error
        case .success(let result):
            return CollectedRun(collected: result, fetchedAt: fetchedAt, downloadsFlush: downloadsFlush)
        }
    }
}
