import Foundation
import Logging
import MirrorCatalog
import MirrorCore
import MirrorCrawl
import MirrorFetch
import MirrorPipeline
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
///
/// Every decision (what is held, loaded, kept back, when the window is full, when the
/// collection is over) is `CollectorStateMachine`'s; this type only does what it answers: runs
/// the chain, asks the store and the loader, and feeds what comes back to it.
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
    /// held until it is (`CollectorStateMachine.sight`). Default: nil.
    var robots: RobotsCache? = nil

    /// What a child task of the collection reports.
    enum Completion: Sendable {
        case crawl(Result<CrawlSummary, CrawlError>)
        /// The outcomes of one load or one revalidation batch.
        case loaded([(key: CanonicalURL, outcome: ImageLoader.Outcome)])
        /// What a batch's repeats had from the loader (`ImageLoader.join`).
        case joined(CollectorStateMachine.JoinAnswers)
        /// A task that reports nothing ended: a robots.txt fetched, a counter stream over.
        case taskEnded
    }

    /// What a collection found.
    struct Collected {
        /// An entry per key seen.
        var catalog: [CatalogEntry]
        var summary: CrawlSummary
        /// The photos the catalog's entries make, when the collection needed them (to tell the
        /// decoration among keys held back): the plan starts from them.
        var groups: PhotoGroups?
    }

    /// The run's settings, as the state machine needs them.
    private var settings: CollectorStateMachine.Settings {
        CollectorStateMachine.Settings(
            window: window, revalidatesInBatches: revalidatesInBatches,
            dryRun: configuration.dryRun,
            findsDecorations: configuration.findsDecorations,
            reportsEachKey: configuration.logger.logLevel <= .info)
    }

    /// Whether the robots.txt of `key`'s origin is known (always, when it is not honoured).
    private func robotsKnown(_ key: CanonicalURL) -> Bool {
        robots.map { $0.fetchedPolicy(for: key) != nil } ?? true
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

            let previousDecorations = Set(
                (await storage.previousManifest?.decorations ?? []).compactMap { CanonicalURL($0) })
            var machine = CollectorStateMachine(
                settings: settings, previousDecorations: previousDecorations,
                previousIcons: await storage.previousIconKeys())
            for await batch in batches {
                // An empty batch is a wake-up: an origin's robots.txt is known (`take`).
                let discoveries = batch + machine.release(robotsKnown: robotsKnown)
                await take(discoveries, machine: &machine, group: &group, guesses: guesses, batches: batches)
            }
            machine.batchesEnded()
            while true {
                let next = machine.next(robotsKnown: robotsKnown, cancelled: Task.isCancelled)
                report(machine.takeReports())
                switch next {
                case .take(let discoveries):
                    await take(discoveries, machine: &machine, group: &group, guesses: guesses, batches: batches)
                case .waitForCompletion:
                    if let completion = await group.next() {
                        settle(completion, machine: &machine, group: &group)
                    } else {
                        machine.groupEmptied()
                    }
                case .load(let entries):
                    await load(entries, machine: &machine, group: &group, guesses: guesses)
                case .finishStreams:
                    await loader.finishStreams()
                    await storage.finishStreams()
                case .finish(let result):
                    return result
                }
            }
        }
    }

    /// Sights each of `discoveries`: through the chain, or held while its origin's robots.txt
    /// is fetched (in a child task, which wakes the collection when it ends); then settles,
    /// joins and loads what the batch asks for.
    private func take(
        _ discoveries: [Discovery], machine: inout CollectorStateMachine, group: inout TaskGroup<Completion>,
        guesses: GuessedPages, batches: DiscoveryBatches
    ) async {
        for discovery in discoveries {
            let known = robotsKnown(discovery.key)
            switch machine.sight(discovery, robotsKnown: known, cancelled: Task.isCancelled) {
            case .skip:
                break
            case .hold(let fetchesRobots):
                guard fetchesRobots, let robots else { break }
                let key = discovery.key
                group.addTask {
                    _ = await robots.policy(for: key)
                    await batches.wake()
                    return .taskEnded
                }
            case .validate(let candidate):
                machine.validated(discovery, verdict: await chain.handle(candidate))
            }
        }
        let action = machine.batchTaken(cancelled: Task.isCancelled)
        report(machine.takeReports())
        guesses.settle(action.settledGuesses)
        await load(
            action.load, joins: action.joins, machine: &machine, group: &group, guesses: guesses)
    }

    /// Loads `entries`: reserved in the loader (so `joins`, repeats of keys sent, join their
    /// loads whichever task reaches the loader first), looked up in the store with one query,
    /// and sent a part at a time as the window has room. An entry that settles a guess settles
    /// it in `guesses` when its load ends, with the page it found, if any.
    private func load(
        _ entries: [CatalogEntry], joins: [CanonicalURL] = [], machine: inout CollectorStateMachine,
        group: inout TaskGroup<Completion>, guesses: GuessedPages
    ) async {
        let loader = self.loader
        if !entries.isEmpty { await loader.reserve(entries.map(\.key)) }
        // A batch's repeats wait in one child task: their loads may be far from over.
        if !joins.isEmpty { group.addTask { .joined(CollectorStateMachine.JoinAnswers(await loader.join(joins))) } }
        guard !entries.isEmpty else { return }
        let found = await storage.lookup(entries.map(\.key))
        for part in machine.plan(entries, found: found) {
            while case .waitForCompletion = machine.send(part.count) {
                guard let completion = await group.next() else {
                    _ = machine.send(part.count, force: true)
                    break
                }
                settle(completion, machine: &machine, group: &group)
            }
            switch part {
            case .revalidate(let requests, let settling):
                group.addTask {
                    let outcomes = await loader.revalidate(requests)
                    guesses.settle(settling)
                    return .loaded(outcomes)
                }
            case .load(let request, let guess):
                group.addTask {
                    let outcome = await loader.load(request)
                    if let guess { guesses.settle(1, page: guess.page(outcome, key: request.key)) }
                    return .loaded([(request.key, outcome)])
                }
            }
        }
    }

    /// Takes in what a child task reports.
    private func settle(
        _ completion: Completion, machine: inout CollectorStateMachine, group: inout TaskGroup<Completion>
    ) {
        let action: CollectorStateMachine.CompletionAction
        switch completion {
        case .crawl(let result): action = machine.crawlEnded(result, cancelled: Task.isCancelled)
        case .loaded(let outcomes): action = machine.loaded(outcomes)
        case .joined(let answers): action = machine.joined(answers)
        case .taskEnded:
            machine.taskEnded()
            action = .none
        }
        report(machine.takeReports())
        if action == .cancelAll { group.cancelAll() }
    }

    /// Hands what the machine reported to the log and the progress board.
    private func report(_ reports: [CollectorStateMachine.Report]) {
        let logger = configuration.logger
        for report in reports {
            switch report {
            case .verdict(let verdict, let key, let guess): logger.verdict(verdict, for: key, guess: guess)
            case .reconsidered(let verdict, let key): logger.reconsidered(verdict, for: key)
            case .outcome(let outcome, let key, let guess): logger.outcome(outcome, for: key, guess: guess)
            case .crawlFinished: progress.update { $0.crawlFinishedAt = Date() }
            case .tally(let tally):
                progress.update {
                    $0.keysFound += tally.keysFound
                    $0.accepted += tally.accepted
                    $0.rejected += tally.rejected
                    $0.failed += tally.failed
                }
            }
        }
    }

    /// The loader's and the store's counters, forwarded to the progress board until their
    /// streams end.
    private func forwardCounters(into group: inout TaskGroup<Completion>) {
        let (progress, loader, storage) = (progress, loader, storage)
        group.addTask {
            for await count in loader.memoryHits { progress.update { $0.memoryHits = count } }
            return .taskEnded
        }
        group.addTask {
            for await count in storage.diskHits { progress.update { $0.diskHits = count } }
            return .taskEnded
        }
        group.addTask {
            for await totals in loader.downloads {
                progress.update {
                    $0.downloaded = totals.count
                    $0.bytes = totals.bytes
                }
            }
            return .taskEnded
        }
    }
}
