import Foundation
import Logging
import MirrorCatalog
import MirrorCore
import MirrorCrawl
import MirrorFetch
import MirrorStore
import MirrorValidate

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
///
/// A key the crawl only guessed to be an image (`ImageReference.isGuess`) is loaded at once,
/// whatever waits for the end of the crawl, and settles its guess with the crawler
/// (`GuessedPages`): the crawler reads the pages such keys turn out to be.
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
    /// robots.txt of every origin, when it is honoured: keys of an origin not known yet are
    /// held until it is (`hold`). Default: nil.
    var robots: RobotsCache? = nil

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
        /// slots would be that large too, for every key of the run. It does not decide whether a key was
        /// seen: an entry is made when the chain's `DuplicateRule` calls a key new, and a repeat's
        /// entry is found because the rule called it `.duplicate` (`admit`).
        var catalog: [String: CatalogEntry] = [:]
        var summary: CrawlSummary?
        var failure: MirrorError?
        /// Loads sent to the loader and not yet settled (a batch counts each of its keys).
        var inFlight = 0
        var groups: PhotoGroups?
        /// Keys the last run found to be decoration.
        var previousDecorations: Set<CanonicalURL> = []
        /// Accepted keys held until the crawl is over (`isDecoration`, or decoration last run).
        var suspects: [CatalogEntry] = []
        /// Discoveries of origins whose robots.txt is being fetched, by origin, in the order
        /// found: the validator chain would wait for it, and every other origin's keys with it.
        var held: [String: [Discovery]] = [:]

        /// The held discoveries whose origin's robots.txt is known now, in the order found.
        mutating func release(_ robots: RobotsCache?) -> [Discovery] {
            guard let robots, !held.isEmpty else { return [] }
            var released: [Discovery] = []
            for (origin, discoveries) in held.sorted(by: { $0.key < $1.key })
            where discoveries.first.map({ robots.fetchedPolicy(for: $0.key) != nil }) ?? true {
                released += discoveries
                held[origin] = nil
            }
            return released
        }
    }

    /// With --variants largest, which rendition of a photo is the largest is known only when
    /// every page has been read: downloads wait for the end of the crawl.
    private var deferDownloads: Bool { configuration.crawl.variants == .largest }

    /// Takes one batch of discoveries: each through the chain (or held while its origin's
    /// robots.txt is fetched), the accepted ones loaded, held until the crawl is over, or
    /// settled as guesses that load nothing.
    private func take(
        _ batch: [Discovery], state: inout State, group: inout TaskGroup<Completion>, guesses: GuessedPages,
        batches: DiscoveryBatches
    ) async {
        var ready: [CatalogEntry] = []
        // Guesses of this batch that load nothing of their own: settled at once.
        var settled = 0
        for discovery in batch {
            let isGuess = discovery.reference.isGuess
            if state.failure != nil || Task.isCancelled {
                if isGuess { settled += 1 }
                continue
            }
            if hold(discovery, state: &state, group: &group, batches: batches) { continue }
            guard let entry = await admit(discovery, into: &state), entry.verdict == .accepted else {
                if isGuess { settled += 1 }
                continue
            }
            if isGuess {
                // Whether it is an image or a page only its answer says; the crawler waits for
                // it, so it is loaded now, whatever else waits.
                entry.settlesGuess = true
                entry.isSentToLoader = true
                ready.append(entry)
            } else if deferDownloads {
                continue
            } else if discovery.reference.isDecoration || state.previousDecorations.contains(discovery.key) {
                state.suspects.append(entry)
            } else {
                // Sent with this batch: a repeat of it from here on joins its load.
                entry.isSentToLoader = true
                ready.append(entry)
            }
        }
        guesses.settle(settled)
        guard !ready.isEmpty else { return }
        guard state.failure == nil, !Task.isCancelled else {
            guesses.settle(ready.count(where: \.settlesGuess))
            return
        }
        // Guesses that wait with the rest for the end of the crawl are asked about with HEAD.
        await load(ready, state: &state, group: &group, guesses: guesses, probing: deferDownloads)
    }

    /// Holds `discovery` when its origin's robots.txt is not known yet (starting its fetch in a
    /// child task, which wakes the collection when it ends); true when held. So one origin's
    /// robots.txt, slow or unreachable, keeps only that origin's keys waiting.
    private func hold(
        _ discovery: Discovery, state: inout State, group: inout TaskGroup<Completion>, batches: DiscoveryBatches
    ) -> Bool {
        guard let robots, robots.fetchedPolicy(for: discovery.key) == nil else { return false }
        let origin = discovery.key.origin
        if state.held[origin] == nil {
            let key = discovery.key
            group.addTask {
                _ = await robots.policy(for: key)
                await batches.wake()
                return .streamEnded
            }
        }
        state.held[origin, default: []].append(discovery)
        return true
    }

    /// Crawls from `start` with `crawler`, validating and loading as keys arrive; returns the
    /// catalog and the crawl's summary, or why the run must stop.
    func run(crawler: Crawler, start: Handoff<Crawler.StartDocument>) async -> Result<Collected, MirrorError> {
        let batches = DiscoveryBatches()
        let guesses = GuessedPages()
        // Nothing is settled once the collection stops: a crawler waiting for its guesses goes on.
        defer { guesses.close() }
        return await withTaskGroup(of: Completion.self) { group in
            group.addTask {
                defer { batches.finish() }
                guard let start = start.take() else {
                    return .crawl(.failure(CrawlError(.internalError, "the start page was read twice")))
                }
                do {
                    return .crawl(.success(try await crawler.crawl(start: start, into: batches, guesses: guesses)))
                } catch let error as CrawlError {
                    return .crawl(.failure(error))
                } catch {
                    return .crawl(.failure(CrawlError(.internalError, "\(error)")))
                }
            }
            forwardCounters(into: &group)

            var state = State()
            // Images marked as decoration, or found to be decoration by the last run, wait for
            // the end of the crawl too: only then is it known whether they are (and a
            // decoration is never requested again).
            state.previousDecorations = Set(
                (await storage.previousManifest?.decorations ?? []).compactMap { CanonicalURL($0) })
            for await batch in batches {
                // An empty batch is a wake-up: an origin's robots.txt is known (`hold`).
                await take(batch + state.release(robots), state: &state, group: &group, guesses: guesses, batches: batches)
            }
            // Keys of origins whose robots.txt is still on its way are taken as it arrives.
            while !state.held.isEmpty, state.failure == nil, let completion = await group.next() {
                settle(completion, state: &state, group: &group)
                await take(state.release(robots), state: &state, group: &group, guesses: guesses, batches: batches)
            }
            if deferDownloads || !state.suspects.isEmpty, state.failure == nil, !Task.isCancelled {
                while state.summary == nil, state.failure == nil, let completion = await group.next() {
                    settle(completion, state: &state, group: &group)
                }
                // The guesses loaded while the others waited: which are images, which pages,
                // must be known before the largest rendition of each photo is chosen.
                while deferDownloads, state.inFlight > 0, state.failure == nil, let completion = await group.next() {
                    settle(completion, state: &state, group: &group)
                }
                if let summary = state.summary, state.failure == nil {
                    let groups = PhotoGroups(
                        entries: state.catalog.values, summary: summary,
                        findsDecorations: configuration.validation.include.isEmpty)
                    state.groups = groups
                    let waiting = reconsider(
                        deferDownloads ? Array(state.catalog.values) : state.suspects, groups: groups,
                        deferDownloads: deferDownloads)
                    for start in stride(from: 0, to: waiting.count, by: 512) {
                        await load(
                            Array(waiting[start..<min(start + 512, waiting.count)]), state: &state, group: &group,
                            guesses: guesses)
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
        configuration.logger.verdict(verdict, for: discovery.key, guess: reference.isGuess)
        progress.update {
            $0.keysFound += 1
            if verdict == .accepted { $0.accepted += 1 } else { $0.rejected += 1 }
        }
        return entry
    }

    /// Loads `entries`: looked up in the store with one query, those with stored validators
    /// revalidated as one batch when the source allows it, every other one on its own; never
    /// more than `window` in flight. An entry that settles a guess settles it in `guesses` when
    /// its load ends, with the page it found, if any.
    ///
    /// With `probing`, guesses are asked about with HEAD (`ImageRequest.probesFirst`): their
    /// bodies wait, as every other download does, until the largest rendition of each photo
    /// is known (`--variants largest`).
    private func load(
        _ entries: [CatalogEntry], state: inout State, group: inout TaskGroup<Completion>, guesses: GuessedPages,
        probing: Bool = false
    ) async {
        let found = await storage.lookup(entries.map(\.key))
        var batch: [(request: ImageRequest, settlesGuess: Bool)] = []
        var single: [(request: ImageRequest, guess: GuessAnswer?)] = []
        for (entry, stored) in zip(entries, found) {
            entry.isSentToLoader = true
            var request = ImageRequest(key: entry.key, title: entry.title, declaredLength: entry.declaredLength)
            request.stored = stored
            // A key that answered with an image on an earlier run is shown, guessed or not.
            if case .stored = stored { entry.isShown = true }
            request.isGuess = !entry.isShown
            request.probesFirst = probing && !configuration.dryRun
            if revalidatesInBatches, case .stored(let image) = stored, image.etag != nil || image.lastModified != nil {
                batch.append((request, entry.settlesGuess))
            } else {
                let guess = entry.settlesGuess ? GuessAnswer(linkedFrom: entry.sightings.first?.document ?? 0) : nil
                single.append((request, guess))
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
            let requests = part.map(\.request)
            // Stored keys are images, never pages: their guesses settle with nothing found.
            let settling = part.count(where: \.settlesGuess)
            group.addTask {
                let outcomes = await loader.revalidate(requests)
                guesses.settle(settling)
                return .loaded(outcomes)
            }
        }
        for (request, guess) in single {
            while state.inFlight >= window, let completion = await group.next() {
                settle(completion, state: &state, group: &group)
            }
            state.inFlight += 1
            let loader = self.loader
            group.addTask {
                let outcome = await loader.load(request)
                if let guess { guesses.settle(1, page: guess.page(outcome, key: request.key)) }
                return .loaded([(request.key, outcome)])
            }
        }
    }

    /// What a load that settles a guess hands the crawler: the page the key turned out to be.
    private struct GuessAnswer: Sendable {
        /// The document that first named the key.
        var linkedFrom: Int

        func page(_ outcome: ImageLoader.Outcome, key: CanonicalURL) -> GuessedPages.Found? {
            guard case .page(let document) = outcome else { return nil }
            return GuessedPages.Found(key: key, document: document, linkedFrom: linkedFrom)
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
                let entry = state.catalog[key.string]
                let isShown = entry?.isShown ?? true
                configuration.logger.outcome(outcome, for: key, guess: !isShown)
                entry?.outcome = CatalogEntry.Outcome(outcome)
                switch outcome {
                case .failed(let fetchFailure) where !fetchFailure.reason.isPolicy && isShown:
                    progress.update { $0.failed += 1 }
                case .failed:
                    progress.update {
                        $0.accepted -= 1
                        $0.rejected += 1
                    }
                case .page:
                    // A page, not an image: neither accepted nor rejected.
                    progress.update {
                        $0.accepted -= 1
                        $0.keysFound -= 1
                    }
                case .storeFailed(let message):
                    state.failure = state.failure ?? .storage(message)
                    group.cancelAll()
                case .probed where deferDownloads && !configuration.dryRun:
                    // A guess asked about with HEAD is an image: loaded with the others after the
                    // crawl if the photo keeps it.
                    entry?.outcome = nil
                    entry?.isSentToLoader = false
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
        guard deferDownloads else { return waiting.filter { $0.verdict == .accepted } }
        let choice = groups.largestRenditions()
        for entry in choice.smaller {
            entry.verdict = .rejected(.smallerRendition)
            configuration.logger.reconsidered(entry.verdict, for: entry.key)
            progress.update {
                $0.accepted -= 1
                $0.rejected += 1
            }
        }
        // Guesses were loaded already, while the crawl went on.
        return choice.largest.filter { !$0.isSentToLoader }
    }
}
