import AsyncAlgorithms
import AsyncHTTPClient
import Foundation

/// Runs one sync: crawl → validate → fetch → store → publish.
///
/// The crawler streams keys through a bounded channel while it crawls; each new key goes
/// through the validator chain, and accepted keys are loaded by the `ImageLoader`, at most
/// `concurrency` at a time, so downloads start while the crawl goes on. Publishing happens only
/// when everything has settled: images first, then pages, then the manifest.
public struct MirrorEngine: Sendable {
    public let configuration: MirrorConfiguration
    /// Live counters for a display.
    public let progress: ProgressBoard

    public init(configuration: MirrorConfiguration, progress: ProgressBoard = ProgressBoard()) {
        self.configuration = configuration
        self.progress = progress
    }

    private enum Completion: Sendable {
        case crawl(Result<CrawlSummary, CrawlError>)
        case download(CanonicalURL, ImageLoader.Outcome)
        case streamEnded
    }

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
            return try await HTTPClient.withClient(configuration.fetch) { client in
                try await run(client: client, template: template, startedAt: startedAt)
            }
        } catch let error as MirrorError {
            throw error
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .storage("\(error)")
        }
    }

    private func run(client: HTTPClient, template: SiteTemplate, startedAt: Date) async throws(MirrorError) -> RunReport {
        let source = configuration.source
        let session = HTTPSession(client: client, configuration: configuration.fetch)
        let scope = ScopeRule(hosts: [source.host] + configuration.validation.allowedHosts, next: nil)
        let scopeGate: RequestGate = { url in url.isWeb && scope.contains(url) ? nil : .outOfScope }
        let robots: RobotsCache? =
            configuration.validation.honourRobots
            ? RobotsCache { url in await Self.fetchRobots(url, session: session, gate: scopeGate) } : nil
        let gate: RequestGate = { url in
            if let refusal = await scopeGate(url) { return refusal }
            if let robots, await !robots.allows(url) { return .robots }
            return nil
        }
        let crawler = Crawler(
            source: source, configuration: configuration.crawl, session: session, startGate: scopeGate, gate: gate,
            progress: progress)

        // Fetched before the mirror directory is touched: an unreachable source changes nothing.
        let start: FetchedDocument
        do {
            start = try await crawler.fetchStart()
        } catch {
            throw Task.isCancelled ? .cancelled : .sourceUnavailable(error.message)
        }

        let layout = MirrorLayout(root: configuration.output)
        let created = [layout.root, layout.images, layout.state].filter { !FileManager.default.fileExists(atPath: $0.path) }
        let storage: DiskStorage
        do {
            storage = try await ImageDatabase.open(layout)
        } catch {
            throw .storage(error.message)
        }
        let loader = ImageLoader(
            storage: storage, source: HTTPImageSource(session: session, gate: gate, maxSize: configuration.validation.maxSize),
            now: configuration.now)
        let chain = ValidationChain.make(configuration.validation, sourceHost: source.host, robots: robots)

        let collected = await collect(crawler: crawler, start: start, chain: chain, loader: loader, storage: storage)
        await loader.finishStreams()

        switch collected {
        case .failure(let error):
            await storage.discardStaged()
            await ImageDatabase.close(storage)
            // Leave the mirror as it was: remove only what this run created.
            for directory in created.reversed() { try? FileManager.default.removeItem(at: directory) }
            try? FileManager.default.removeItem(at: layout.temporary)
            try? FileManager.default.removeItem(at: layout.staged)
            throw error
        case .success(let (catalog, summary)):
            do {
                let report = try await publish(
                    catalog: catalog, summary: summary, layout: layout, storage: storage, template: template, startedAt: startedAt
                )
                await ImageDatabase.close(storage)
                return report
            } catch {
                await storage.discardStaged()
                await ImageDatabase.close(storage)
                throw error
            }
        }
    }

    /// Crawls, validates and loads; returns the catalog of every key seen.
    private func collect(
        crawler: Crawler, start: FetchedDocument, chain: any ValidationHandler, loader: ImageLoader, storage: DiskStorage
    ) async -> Result<([CanonicalURL: CatalogEntry], CrawlSummary), MirrorError> {
        let channel = AsyncChannel<Discovery>()
        let concurrency = max(1, configuration.fetch.concurrency)
        let progress = self.progress
        return await withTaskGroup(of: Completion.self) { group in
            group.addTask {
                defer { channel.finish() }
                do {
                    let summary = try await crawler.crawl(start: start) { await channel.send($0) }
                    return .crawl(.success(summary))
                } catch let error as CrawlError {
                    return .crawl(.failure(error))
                } catch {
                    return .crawl(.failure(CrawlError(message: "\(error)")))
                }
            }
            group.addTask {
                for await count in loader.memoryHits { progress.update { $0.memoryHits = count } }
                return .streamEnded
            }
            group.addTask {
                for await count in storage.diskHits { progress.update { $0.diskHits = count } }
                return .streamEnded
            }
            group.addTask {
                for await bytes in loader.downloads {
                    progress.update {
                        $0.downloaded += 1
                        $0.bytes += bytes
                    }
                }
                return .streamEnded
            }

            var catalog: [CanonicalURL: CatalogEntry] = [:]
            var summary: CrawlSummary?
            var failure: MirrorError?
            var inFlight = 0

            func settle(_ completion: Completion) {
                switch completion {
                case .crawl(.success(let result)):
                    summary = result
                case .crawl(.failure(let error)):
                    failure = failure ?? (Task.isCancelled ? .cancelled : .sourceUnavailable(error.message))
                    group.cancelAll()
                case .download(let key, let outcome):
                    inFlight -= 1
                    catalog[key]?.outcome = outcome
                    switch outcome {
                    case .failed(let fetchFailure) where !fetchFailure.reason.isPolicy:
                        progress.update { $0.failed += 1 }
                    case .failed:
                        progress.update {
                            $0.accepted -= 1
                            $0.rejected += 1
                        }
                    case .storeFailed(let message):
                        failure = failure ?? .storage(message)
                        group.cancelAll()
                    case .stored:
                        break
                    }
                case .streamEnded:
                    break
                }
            }

            for await discovery in channel {
                if failure != nil || Task.isCancelled { continue }
                let reference = discovery.reference
                let candidate = Candidate(
                    key: discovery.key, declaredLength: reference.declaredLength, declaredType: reference.declaredType)
                let verdict = await chain.handle(candidate)
                if catalog[discovery.key] != nil {
                    catalog[discovery.key]?.merge(reference)
                    continue
                }
                catalog[discovery.key] = CatalogEntry(key: discovery.key, reference: reference, verdict: verdict)
                progress.update {
                    $0.keysFound += 1
                    if verdict == .accepted { $0.accepted += 1 } else { $0.rejected += 1 }
                }
                guard verdict == .accepted else { continue }
                while inFlight >= concurrency, let completion = await group.next() { settle(completion) }
                inFlight += 1
                let request = ImageRequest(key: discovery.key, title: reference.title, declaredLength: reference.declaredLength)
                group.addTask { .download(request.key, await loader.load(request)) }
            }
            // The crawl is over; wait for the downloads, then let the counter streams end.
            while summary == nil || inFlight > 0, failure == nil || inFlight > 0, let completion = await group.next() {
                settle(completion)
            }
            await loader.finishStreams()
            await storage.finishStreams()
            while let completion = await group.next() { settle(completion) }

            if Task.isCancelled && failure == nil { failure = .cancelled }
            if let failure { return .failure(failure) }
            return .success((catalog, summary ?? CrawlSummary()))
        }
    }

    private func publish(
        catalog: [CanonicalURL: CatalogEntry], summary: CrawlSummary, layout: MirrorLayout, storage: DiskStorage,
        template: SiteTemplate, startedAt: Date
    ) async throws(MirrorError) -> RunReport {
        let generatedAt = Timestamp.truncated(configuration.now())
        let entries = catalog.values.sorted { $0.key < $1.key }
        var items: [Manifest.Item] = []
        var rejected: [Manifest.Rejection] = []
        var policy: [String: Int] = [:]
        var failed: [String: Int] = [:]
        var warnings = summary.pageFailures
        for entry in entries {
            if let stored = entry.stored {
                items.append(
                    Manifest.Item(
                        key: entry.key.string, path: stored.path, sha256: stored.sha256, bytes: stored.byteCount,
                        contentType: stored.contentType, title: entry.title,
                        metadata: entry.metadata.isEmpty ? nil : entry.metadata, etag: stored.etag,
                        lastModified: stored.lastModified, firstSeen: stored.firstSeen, lastChecked: stored.lastChecked))
            } else if let reason = entry.rejection {
                rejected.append(Manifest.Rejection(key: entry.key.string, reason: reason.rawValue))
                if reason.isPolicy {
                    policy[reason.rawValue, default: 0] += 1
                } else {
                    failed[reason.rawValue, default: 0] += 1
                    if case .failed(let failure) = entry.outcome { warnings.append(failure.detail) }
                }
            }
        }
        if summary.unusableReferences > 0 {
            warnings.append("\(summary.unusableReferences) image references had URLs that could not be read")
        }
        let manifest = Manifest(
            source: configuration.source.string, generatedAt: generatedAt, items: items, rejected: rejected)
        do {
            try await storage.publishStaged()
        } catch {
            throw .storage(error.message)
        }
        let publisher = MirrorPublisher(layout: layout, template: template, itemsPerPage: configuration.publish.itemsPerPage)
        do {
            try publisher.publish(manifest)
        } catch {
            throw .storage(error.message)
        }
        await storage.pruneSuperseded()
        try? FileManager.default.removeItem(at: layout.staged)

        let snapshot = progress.snapshot
        let finishedAt = Date()
        let failedTotal = failed.values.reduce(0, +)
        return RunReport(
            source: configuration.source.string, output: layout.root.path, startedAt: Timestamp.truncated(startedAt),
            finishedAt: Timestamp.truncated(finishedAt), durationSeconds: finishedAt.timeIntervalSince(startedAt),
            exitStatus: failedTotal > 0 || !summary.pageFailures.isEmpty ? 1 : 0, pages: summary.pages,
            feeds: summary.feeds, keys: catalog.count, published: items.count, downloaded: snapshot.downloaded,
            memoryHits: snapshot.memoryHits, diskHits: snapshot.diskHits, bytesDownloaded: snapshot.bytes,
            rejected: policy, failed: failed, warnings: Array(warnings.prefix(50)), error: nil)
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
            return .disallowAll
        }
    }
}
