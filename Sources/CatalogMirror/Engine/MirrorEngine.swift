import AsyncHTTPClient
import Foundation
import Logging
import MirrorCatalog
import MirrorCore
import MirrorCrawl
import MirrorFetch
import MirrorObjectStore
import MirrorOperate
import MirrorPipeline
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

    /// A run as its phases: prepare (sessions, the lock, the start document), then, with the
    /// store open, collect → plan → publish → report.
    private func run(clients: HTTPClients, template: SiteTemplate, startedAt: Date) async throws(MirrorError) -> RunReport {
        let prepared = try await RunPreparation(configuration: configuration, progress: progress).prepare(clients: clients)
        // One sync per mirror: the lock is held until the run is over.
        defer { withExtendedLifetime(prepared.lock) {} }
        // What the bucket holds counts as stored: a worker that keeps no disk revalidates it.
        var copies = PublishedCopies()
        var bucketState: BucketState?
        if let bucket = configuration.bucket, !configuration.dryRun {
            let (held, state, warning) = await bucket.copies(output: configuration.output)
            (copies, bucketState) = (held, state)
            if let warning { configuration.logger.warning("\(warning)") }
        }
        // Started from the bucket's manifest (no site on this disk): the site it serves.
        let served = copies.manifest != nil ? bucketState?.site : nil
        // The store is open for exactly this scope; a failure inside it closes the store
        // first, and only then removes what this run created, if it keeps nothing.
        let mirrored: Result<(report: RunReport, published: PublishedRun), Stop>
        do {
            mirrored = try await ImageDatabase.withStore(prepared.layout, readOnly: configuration.dryRun, copies: copies) {
                storage in
                let result = await mirror(
                    prepared, into: storage, clients: clients, template: template, served: served, startedAt: startedAt)
                guard case .failure(var stop) = result else { return result }
                stop.keepsDownloads = await storage.keepsDownloads()
                return .failure(stop)
            }
        } catch {
            prepared.created.remove()
            throw .storage(error.message)
        }
        switch mirrored {
        case .success(let (report, published)):
            // Still under the lock: two syncs of one mirror never write its bucket at once.
            guard let bucket = configuration.bucket, let manifest = published.manifest, !configuration.dryRun else {
                return report
            }
            return await bucket.publish(
                report, manifest: manifest, site: published.siteMark, state: bucketState, output: configuration.output)
        case .failure(let stop):
            if !stop.keepsDownloads { prepared.created.remove() }
            throw stop.error
        }
    }

    /// The phases of a run that need the store: collect, plan, publish (not for a dry run)
    /// and report.
    /// `served`: the site a bucket serves that this disk does not hold (`PublishPhase.served`).
    private func mirror(
        _ prepared: PreparedRun, into storage: DiskStorage, clients: HTTPClients, template: SiteTemplate, served: String?,
        startedAt: Date
    ) async -> Result<(report: RunReport, published: PublishedRun), Stop> {
        do throws(MirrorError) {
            let collected = try await CollectPhase(configuration: configuration, progress: progress)
                .collect(prepared, into: storage, clients: clients)
            let (fetchedAt, downloadsFlush) = (collected.fetchedAt, collected.downloadsFlush)
            let planned = try await PlanPhase(configuration: configuration)
                .plan((consume collected).collected, storage: storage)
            let published = try await PublishPhase(
                configuration: configuration, storage: storage, template: template, served: served
            )
            .publish(planned, after: downloadsFlush)
            if !configuration.dryRun { await prepared.cache.save() }
            let report = RunReporting(configuration: configuration, progress: progress)
                .report(planned, published: published, times: .init(startedAt: startedAt, fetchedAt: fetchedAt))
            return .success((report, published))
        } catch {
            return .failure(Stop(error: error))
        }
    }

    /// How a run inside the store's scope stopped: the error, and whether the store keeps
    /// verified downloads for the next run (then the directories this run created stay).
    private struct Stop: Error {
        var error: MirrorError
        var keepsDownloads = false
    }

    /// Loads the engine keeps in flight: `--concurrency`, times the pipeline depth when image
    /// GETs to a plain-HTTP source can be pipelined (no `--rate`: pacing needs one request at a
    /// time). Capped at 256 so memory stays flat.
    static func window(_ fetch: FetchConfiguration, pipelined: Bool) -> Int {
        let concurrency = max(1, fetch.concurrency)
        guard pipelined, fetch.rate == nil, fetch.pipelineDepth > 1 else { return concurrency }
        return min(256, concurrency * fetch.pipelineDepth)
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
