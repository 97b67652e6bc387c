import Foundation
import Logging

/// The first half of a run: crawls, validates every key the crawl finds, and loads the accepted
/// ones, keeping at most `window` loads in flight so downloads start while the crawl goes on.
/// Its result (`Collected`) is the catalog (an entry per key seen, with its verdict and
/// outcome) and the crawl's summary; publishing is the engine's, once everything here has
/// settled.
///
/// One child task crawls, feeding `DiscoveryBatches`; the collector takes each batch in turn:
/// each key through the validator chain (whose first rule, `DuplicateRule`, is the one place a
/// repeat is recognised), the batch's accepted keys looked up in the store with one query, and
/// then loaded. Keys the store holds with validators go to the loader as one revalidation batch
/// when the source can pipeline (`ImageLoader.revalidate`); every other key is a load of its own.
struct Collector {
    let configuration: MirrorConfiguration
    let progress: ProgressBoard
    let chain: any ValidationHandler
    let loader: ImageLoader
    let storage: DiskStorage
    /// Loads in flight at most (`MirrorEngine.window`).
    let window: Int
    /// Keys with stored validators are revalidated a batch at a time (plain HTTP, pipelined,
    /// no `--rate`); otherwise each is a load of its own.
    let revalidatesInBatches: Bool

    /// What a child task of the collection reports.
    enum Completion: Sendable {
        case crawl(Result<CrawlSummary, CrawlError>)
        /// The outcomes of one load or one revalidation batch.
        case loaded([(key: CanonicalURL, outcome: ImageLoader.Outcome)])
        case streamEnded
    }

    /// What a collection found.
    struct Collected {
        /// An entry per key seen.
        var catalog: [CatalogEntry]
        var summary: CrawlSummary
        /// The photos the catalog's entries make, when the collection needed them (deferred
        /// loads): the plan takes them instead of working them out again.
        var groups: PhotoGroups?
    }

    /// What the collection holds as it goes.
    private struct State {
        /// Every key seen, by its text: a `CanonicalURL` is 48 bytes, and this table's empty
        /// slots are that large too (7 MB at 50,000 keys). It does not decide whether a key was
        /// seen: an entry is made when the chain's `DuplicateRule` calls a key new, and a repeat's
        /// entry is found because the rule called it `.duplicate` (`admit`).
        var catalog: [String: CatalogEntry] = [:]
        var summary: CrawlSummary?
        var failure: MirrorError?
        /// Loads sent to the loader and not yet settled (a batch counts each of its keys).
        var inFlight = 0
        var groups: PhotoGroups?
    }

    /// Crawls from `start` with `crawler`, validating and loading as keys arrive; returns the
    /// catalog and the crawl's summary, or why the run must stop.
    func run(crawler: Crawler, start: Handoff<FetchedDocument>) async -> Result<Collected, MirrorError> {
        let batches = DiscoveryBatches()
        return await withTaskGroup(of: Completion.self) { group in
            group.addTask {
                defer { batches.finish() }
                guard let start = start.take() else {
                    return .crawl(.failure(CrawlError(.internalError, message: "the start page was read twice")))
                }
                do {
                    return .crawl(.success(try await crawler.crawl(start: start, into: batches)))
                } catch let error as CrawlError {
                    return .crawl(.failure(error))
                } catch {
                    return .crawl(.failure(CrawlError(.internalError, message: "\(error)")))
                }
            }
            forwardCounters(into: &group)

            var state = State()
            // With --variants largest, which rendition of a photo is the largest is known only
            // when every page has been read: downloads wait for the end of the crawl.
            let deferDownloads = configuration.crawl.variants == .largest
            // Images marked as decoration, or found to be decoration by the last run, wait for
            // the end of the crawl too: only then is it known whether they are (and a
            // decoration is never requested again).
            let previousDecorations = Set(
                (await storage.previousManifest?.decorations ?? []).compactMap { CanonicalURL($0) })
            var suspects: [CatalogEntry] = []
            for await batch in batches {
                var ready: [CatalogEntry] = []
                for discovery in batch {
                    if state.failure != nil || Task.isCancelled { break }
                    guard let entry = await admit(discovery, into: &state) else { continue }
                    guard entry.verdict == .accepted, !deferDownloads else { continue }
                    if discovery.reference.isDecoration || previousDecorations.contains(discovery.key) {
                        suspects.append(entry)
                    } else {
                        // Sent with this batch: a repeat of it from here on joins its load.
                        entry.isSentToLoader = true
                        ready.append(entry)
                    }
                }
                guard !ready.isEmpty, state.failure == nil, !Task.isCancelled else { continue }
                await load(ready, state: &state, group: &group)
            }
            if deferDownloads || !suspects.isEmpty, state.failure == nil, !Task.isCancelled {
                while state.summary == nil, state.failure == nil, let completion = await group.next() {
                    settle(completion, state: &state, group: &group)
                }
                if let summary = state.summary, state.failure == nil {
                    let groups = PhotoGroups(entries: state.catalog.values, summary: summary)
                    state.groups = groups
                    let waiting = reconsider(
                        deferDownloads ? Array(state.catalog.values) : suspects, groups: groups, deferDownloads: deferDownloads)
                    for start in stride(from: 0, to: waiting.count, by: 512) {
                        await load(Array(waiting[start..<min(start + 512, waiting.count)]), state: &state, group: &group)
                    }
                }
            }
            // The crawl is over; wait for the loads, then let the counter streams end.
            while state.summary == nil || state.inFlight > 0, state.failure == nil || state.inFlight > 0,
                let completion = await group.next()
            {
                settle(completion, state: &state, group: &group)
            }
            await loader.finishStreams()
            await storage.finishStreams()
            while let completion = await group.next() { settle(completion, state: &state, group: &group) }

            if Task.isCancelled && state.failure == nil { state.failure = .cancelled }
            if let failure = state.failure { return .failure(failure) }
            return .success(
                Collected(catalog: Array(state.catalog.values), summary: state.summary ?? CrawlSummary(), groups: state.groups))
        }
    }

    /// The loader's and the store's counters, forwarded to the progress board until their
    /// streams end.
    private func forwardCounters(into group: inout TaskGroup<Completion>) {
        let (progress, loader, storage) = (progress, loader, storage)
        group.addTask {
            for await count in loader.memoryHits { progress.update { $0.memoryHits = count } }
            return .streamEnded
        }
        group.addTask {
            for await count in storage.diskHits { progress.update { $0.diskHits = count } }
            return .streamEnded
        }
        group.addTask {
            for await totals in loader.downloads {
                progress.update {
                    $0.downloaded = totals.count
                    $0.bytes = totals.bytes
                }
            }
            return .streamEnded
        }
    }

    /// Puts `discovery` through the chain: a repeat adds what this sighting says to its entry
    /// (and, when its load is under way, joins it in the loader's memory); a new key gets an
    /// entry with its verdict, which is returned.
    private func admit(_ discovery: Discovery, into state: inout State) async -> CatalogEntry? {
        let reference = discovery.reference
        let candidate = Candidate(
            key: discovery.key, declaredLength: reference.declaredLength, declaredType: reference.declaredType)
        let verdict = await chain.handle(candidate)
        if verdict == .duplicate, let entry = state.catalog[discovery.key.string] {
            entry.merge(reference)
            entry.see(discovery)
            if entry.verdict == .accepted, entry.isSentToLoader {
                // Not settled yet (sent, or to be sent with this batch): the repeat joins the
                // load, whether or not its task has reached the loader.
                await loader.answerFromMemory(entry.key, loading: entry.outcome == nil)
            }
            return nil
        }
        let entry = CatalogEntry(key: discovery.key, reference: reference, verdict: verdict)
        entry.see(discovery)
        state.catalog[discovery.key.string] = entry
        configuration.logger.verdict(verdict, for: discovery.key)
        progress.update {
            $0.keysFound += 1
            if verdict == .accepted { $0.accepted += 1 } else { $0.rejected += 1 }
        }
        return entry
    }

    /// Loads `entries`: looked up in the store with one query, those with stored validators
    /// revalidated as one batch when the source allows it, every other one on its own; never
    /// more than `window` in flight.
    private func load(_ entries: [CatalogEntry], state: inout State, group: inout TaskGroup<Completion>) async {
        let found = await storage.lookup(entries.map(\.key))
        var batch: [ImageRequest] = []
        var single: [ImageRequest] = []
        for (entry, stored) in zip(entries, found) {
            entry.isSentToLoader = true
            var request = ImageRequest(key: entry.key, title: entry.title, declaredLength: entry.declaredLength)
            request.stored = stored
            if revalidatesInBatches, case .stored(let image) = stored, image.etag != nil || image.lastModified != nil {
                batch.append(request)
            } else {
                single.append(request)
            }
        }
        // A batch takes its keys' share of the window, a part at a time when the window is small.
        var start = 0
        while start < batch.count {
            let part = Array(batch[start..<min(start + window, batch.count)])
            start += part.count
            while state.inFlight + part.count > window, let completion = await group.next() {
                settle(completion, state: &state, group: &group)
            }
            state.inFlight += part.count
            let loader = self.loader
            group.addTask { .loaded(await loader.revalidate(part)) }
        }
        for request in single {
            while state.inFlight >= window, let completion = await group.next() {
                settle(completion, state: &state, group: &group)
            }
            state.inFlight += 1
            let loader = self.loader
            group.addTask { .loaded([(request.key, await loader.load(request))]) }
        }
    }

    /// Takes in what a child task reports.
    private func settle(_ completion: Completion, state: inout State, group: inout TaskGroup<Completion>) {
        switch completion {
        case .crawl(.success(let result)):
            state.summary = result
            progress.update { $0.crawlFinishedAt = Date() }
        case .crawl(.failure(let error)):
            state.failure = state.failure ?? (Task.isCancelled ? .cancelled : .sourceUnavailable(error.message))
            group.cancelAll()
        case .loaded(let outcomes):
            for (key, outcome) in outcomes {
                state.inFlight -= 1
                configuration.logger.outcome(outcome, for: key)
                state.catalog[key.string]?.outcome = CatalogEntry.Outcome(outcome)
                switch outcome {
                case .failed(let fetchFailure) where !fetchFailure.reason.isPolicy:
                    progress.update { $0.failed += 1 }
                case .failed:
                    progress.update {
                        $0.accepted -= 1
                        $0.rejected += 1
                    }
                case .storeFailed(let message):
                    state.failure = state.failure ?? .storage(message)
                    group.cancelAll()
                case .stored, .probed:
                    break
                }
            }
        case .streamEnded:
            break
        }
    }

    /// After the crawl: the keys held back (`waiting`) that are decoration are rejected as such
    /// (a decoration already fetched is left out when the plan is made); with `--variants
    /// largest`, only each photo's largest rendition stays accepted. Returns those to load.
    private func reconsider(_ waiting: [CatalogEntry], groups: PhotoGroups, deferDownloads: Bool) -> [CatalogEntry] {
        for entry in waiting where groups.decorations.contains(entry.key) && entry.verdict == .accepted {
            entry.verdict = .rejected(.decoration)
            configuration.logger.reconsidered(entry.verdict, for: entry.key)
            progress.update {
                $0.accepted -= 1
                $0.rejected += 1
            }
        }
        return deferDownloads
            ? MirrorEngine.largestRenditions(of: groups, progress: progress, logger: configuration.logger)
            : waiting.filter { $0.verdict == .accepted }
    }
}
