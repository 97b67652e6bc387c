import Foundation
import MirrorCatalog
import MirrorCore
import MirrorCrawl
import MirrorFetch
import MirrorPipeline
import MirrorValidate

/// The collection's decisions, apart from its tasks: which discoveries wait for their origin's
/// robots.txt, which keys are loaded now and which after the crawl, how many loads are in
/// flight, what a load's outcome makes of its key, and when the collection is over. A value
/// with no awaits: each event (a sighting, a verdict, a completion) returns what the driver
/// (`Collector`) is to do next, as swift-nio's state machines do, so a test can drive it event
/// by event with no network.
///
/// What it decided that is only reported (a verdict or an outcome for the log, a change to the
/// progress counters) comes out as values too (`Report`), which the driver takes after each
/// event (`takeReports()`) and hands to the logger and the progress board: the machine holds
/// neither.
struct CollectorStateMachine {
    /// What the machine needs to know of the run.
    struct Settings {
        /// Loads in flight at most (`MirrorEngine.window`).
        var window: Int
        /// Keys with stored validators are revalidated a batch at a time (plain HTTP,
        /// pipelined, no `--rate`); otherwise each is a load of its own.
        var revalidatesInBatches: Bool
        /// `--dry-run`: guesses are not asked about with HEAD first.
        var dryRun: Bool
        /// Whether the site's decoration is told apart (`PhotoGroups`): off with `--include`.
        var findsDecorations: Bool
        /// Whether each key's verdict and outcome is reported (`Report.verdict`, `.outcome`,
        /// `.reconsidered`): only when the log shows them (`--verbose`), so a run that does not
        /// show them does not make them.
        var reportsEachKey = true
    }

    /// What the machine decided that only the log and the progress display show: the driver
    /// hands them on (`Collector.report(_:)`).
    enum Report: Equatable {
        /// A key seen for the first time, and the chain's verdict (`Logger.verdict`).
        case verdict(Verdict, for: CanonicalURL, guess: Bool)
        /// A verdict changed once the crawl was over (`Logger.reconsidered`).
        case reconsidered(Verdict, for: CanonicalURL)
        /// How a load ended (`Logger.outcome`).
        case outcome(ImageLoader.Outcome, for: CanonicalURL, guess: Bool)
        /// Counts to add to the progress board's.
        case tally(Tally)
        /// The crawl is over (`ProgressSnapshot.crawlFinishedAt`).
        case crawlFinished
    }

    /// Changes to the progress board's counters, added up between two `takeReports()`.
    struct Tally: Equatable {
        var keysFound = 0
        var accepted = 0
        var rejected = 0
        var failed = 0

        var isEmpty: Bool { self == Tally() }
    }

    /// What to do with one discovery.
    enum SightingAction: Equatable {
        /// Nothing: the collection is stopping (a guess is counted as settled).
        case skip
        /// Nothing yet: held until its origin's robots.txt is known. `fetchesRobots` for the
        /// first of its origin: fetch that robots.txt, and wake the collection when it is known.
        case hold(fetchesRobots: Bool)
        /// Put it through the validator chain and report the verdict (`validated(_:verdict:)`).
        case validate(Candidate)
    }

    /// What to do once every discovery of a batch was sighted.
    struct BatchAction {
        /// Guesses that load nothing: settle them with the crawler now.
        var settledGuesses = 0
        /// Keys whose repeats join their load in the loader (once `load`'s keys are reserved).
        var joins: [CanonicalURL] = []
        /// Entries to load (`plan(_:found:)`), in the order found.
        var load: [CatalogEntry] = []
    }

    /// One child task of a load.
    enum LoadPart {
        /// Keys with stored validators, revalidated together; `settlingGuesses` of them settle
        /// a guess (with nothing found: stored keys are images).
        case revalidate([ImageRequest], settlingGuesses: Int)
        /// One key; `guess` when its load settles a guess.
        case load(ImageRequest, guess: GuessAnswer?)

        /// Loads it takes of the window.
        var count: Int {
            switch self {
            case .revalidate(let requests, _): requests.count
            case .load: 1
            }
        }
    }

    /// Whether a load part may be sent.
    enum SendAction: Equatable {
        /// Send it: it is counted in flight.
        case send
        /// Take in a completion first: the window is full.
        case waitForCompletion
    }

    /// What to do after taking in a completion.
    enum CompletionAction: Equatable {
        case none
        /// The run stops: cancel every task (the loads end with cancelled outcomes).
        case cancelAll
    }

    /// What to do next once the crawl's batches have ended (`batchesEnded()`).
    enum NextAction {
        /// Sight these held discoveries, whose origin's robots.txt is known now.
        case take([Discovery])
        /// Take in the next completion (`groupEmptied()` when there is none).
        case waitForCompletion
        /// Load these entries, kept back until the crawl was over.
        case load([CatalogEntry])
        /// No more loads will come: end the loader's and the store's counter streams.
        case finishStreams
        /// The collection is over.
        case finish(Result<Collector.Collected, MirrorError>)
    }

    /// Where the collection is, once the crawl's batches have ended.
    private enum Phase {
        case crawling
        /// Held discoveries wait for their robots.txt.
        case releasing
        /// Loads kept back wait for the crawl's summary.
        case awaitingCrawl
        case reconsidering
        /// Loading the entries kept back, 512 at a time from `next`.
        case loadingKeptBack([CatalogEntry], next: Int)
        case awaitingLoads
        /// The counter streams are ending: every task runs to its end.
        case draining
        case finished
    }

    let settings: Settings
    /// Every key seen, by its text: a `CanonicalURL` is 48 bytes, and this table's empty slots
    /// would be that large too, for every key of the run. It does not decide whether a key was
    /// seen: an entry is made when the chain's `DuplicateRule` calls a key new, and a repeat's
    /// entry is found because the rule called it `.duplicate` (`validated`).
    private(set) var catalog: [String: CatalogEntry] = [:]
    private(set) var summary: CrawlSummary?
    private(set) var failure: MirrorError?
    /// Loads sent to the loader and not yet settled (a batch counts each of its keys).
    private(set) var inFlight = 0
    /// Batches' joins sent to the loader and not yet answered: the counter streams end only
    /// after them, so every memory hit is counted.
    private(set) var joinsInFlight = 0
    /// The photos, when loads were kept back to the end of the crawl.
    private(set) var groups: PhotoGroups?
    /// Keys the last run found to be decoration.
    private let previousDecorations: Set<CanonicalURL>
    /// Of those, the keys rejected for their icon's size (`DiskStorage.previousIconKeys`).
    private let previousIcons: Set<CanonicalURL>
    /// Accepted keys held until the crawl is over (`isDecoration`, or decoration last run).
    private(set) var suspects: [CatalogEntry] = []
    /// Discoveries of origins whose robots.txt is being fetched, by origin, in the order found:
    /// the validator chain would wait for it, and every other origin's keys with it.
    private(set) var held: [String: [Discovery]] = [:]
    /// Repeats that joined a load and got its outcome, and those that found nothing held
    /// (`JoinAnswers`).
    private(set) var joinsAnswered = 0
    private(set) var joinsUnanswered = 0

    /// The batch being sighted.
    private var batch = BatchAction()
    private var phase = Phase.crawling
    /// A completion came in since the held discoveries were last looked at.
    private var mayRelease = false
    /// The task group had no task left when a completion was waited for.
    private var isExhausted = false
    /// Reports not yet taken (`takeReports()`), and the counts since the last were.
    private var reports: [Report] = []
    private var tally = Tally()

    init(settings: Settings, previousDecorations: Set<CanonicalURL>, previousIcons: Set<CanonicalURL> = []) {
        self.previousIcons = previousIcons
        self.settings = settings
        self.previousDecorations = previousDecorations
    }

    // MARK: Reports

    /// What was decided since the last call, in order, the counts last (one `.tally`).
    mutating func takeReports() -> [Report] {
        var taken = reports
        reports = []
        if !tally.isEmpty {
            taken.append(.tally(tally))
            tally = Tally()
        }
        return taken
    }

    /// Reports a verdict or an outcome of one key, when they are reported (`Settings.reportsEachKey`).
    private mutating func report(_ each: @autoclosure () -> Report) {
        if settings.reportsEachKey { reports.append(each()) }
    }

    // MARK: Batches

    /// Takes one discovery: skipped once the collection stops, held while its origin's
    /// robots.txt is not known (`robotsKnown`; true when robots.txt is not honoured), else to
    /// be validated. So one origin's robots.txt, slow or unreachable, keeps only that origin's
    /// keys waiting.
    mutating func sight(_ discovery: Discovery, robotsKnown: Bool, cancelled: Bool) -> SightingAction {
        if failure != nil || cancelled {
            if discovery.reference.isGuess { batch.settledGuesses += 1 }
            return .skip
        }
        guard robotsKnown else {
            let origin = discovery.key.origin
            let isFirst = held[origin] == nil
            held[origin, default: []].append(discovery)
            return .hold(fetchesRobots: isFirst)
        }
        let reference = discovery.reference
        return .validate(
            Candidate(key: discovery.key, declaredLength: reference.declaredLength, declaredType: reference.declaredType))
    }

    /// Takes the chain's verdict on `discovery`: a repeat adds what this sighting says to its
    /// entry (and joins its load, when the key was sent to the loader); a new key gets an entry
    /// with its verdict, and when accepted is loaded with the batch, kept to the end of the
    /// crawl, or (a guess) loaded at once whatever waits.
    mutating func validated(_ discovery: Discovery, verdict: Verdict) {
        let reference = discovery.reference
        if verdict == .duplicate, let entry = catalog[discovery.key.string] {
            entry.merge(reference)
            entry.see(discovery)
            // Sent, or to be sent with this batch: the repeat joins the load once its key is
            // reserved in the loader.
            if entry.verdict == .accepted, entry.isSentToLoader { batch.joins.append(entry.key) }
            if reference.isGuess { batch.settledGuesses += 1 }
            return
        }
        let entry = CatalogEntry(key: discovery.key, reference: reference, verdict: verdict)
        entry.see(discovery)
        catalog[discovery.key.string] = entry
        report(.verdict(verdict, for: discovery.key, guess: reference.isGuess))
        tally.keysFound += 1
        if verdict == .accepted { tally.accepted += 1 } else { tally.rejected += 1 }
        guard verdict == .accepted else {
            if reference.isGuess { batch.settledGuesses += 1 }
            return
        }
        if reference.isGuess {
            // Whether it is an image or a page only its answer says; the crawler waits for it,
            // so it is loaded now, whatever else waits.
            entry.settlesGuess = true
            entry.isSentToLoader = true
            batch.load.append(entry)
        } else if reference.isDecoration || previousDecorations.contains(discovery.key) {
            // Only at the end of the crawl is it known whether it is decoration (and a
            // decoration is never requested again).
            suspects.append(entry)
        } else {
            // Sent with this batch: a repeat of it from here on joins its load.
            entry.isSentToLoader = true
            batch.load.append(entry)
        }
    }

    /// Ends the batch sighted: what to settle, join (in one task, whose answers come back to
    /// `joined`) and load. Nothing is loaded once the collection stops; the guesses that would
    /// have been settle at once.
    mutating func batchTaken(cancelled: Bool) -> BatchAction {
        var action = batch
        batch = BatchAction()
        if !action.joins.isEmpty { joinsInFlight += 1 }
        if failure != nil || cancelled {
            action.settledGuesses += action.load.count(where: \.settlesGuess)
            action.load = []
        }
        return action
    }

    /// The held discoveries whose origin's robots.txt is known now (`robotsKnown`), by origin,
    /// each origin's in the order found.
    mutating func release(robotsKnown: (CanonicalURL) -> Bool) -> [Discovery] {
        guard !held.isEmpty else { return [] }
        var released: [Discovery] = []
        for (origin, discoveries) in held.sorted(by: { $0.key < $1.key })
        where discoveries.first.map({ robotsKnown($0.key) }) ?? true {
            released += discoveries
            held[origin] = nil
        }
        return released
    }

    // MARK: Loads

    /// The child tasks that load `entries`, given what the store holds of each (`found`, in
    /// the same order): those with stored validators revalidated together when the source
    /// allows it, in parts no larger than the window, then every other one on its own.
    mutating func plan(_ entries: [CatalogEntry], found: [ImageRequest.Lookup]) -> [LoadPart] {
        var batch: [(request: ImageRequest, settlesGuess: Bool)] = []
        var single: [LoadPart] = []
        for (entry, stored) in zip(entries, found) {
            entry.isSentToLoader = true
            var request = ImageRequest(key: entry.key, title: entry.title, declaredLength: entry.declaredLength)
            request.stored = stored
            // A key that answered with an image on an earlier run is shown, guessed or not.
            if case .stored = stored { entry.isShown = true }
            request.isGuess = !entry.isShown
            if settings.revalidatesInBatches, case .stored(let image) = stored,
                image.etag != nil || image.lastModified != nil
            {
                batch.append((request, entry.settlesGuess))
            } else {
                let guess = entry.settlesGuess ? GuessAnswer(linkedFrom: entry.sightings.first?.document ?? 0) : nil
                single.append(.load(request, guess: guess))
            }
        }
        // A batch takes its keys' share of the window, a part at a time when the window is small.
        let size = max(1, settings.window)
        let parts = stride(from: 0, to: batch.count, by: size).map { start in
            let part = batch[start..<min(start + size, batch.count)]
            return LoadPart.revalidate(part.map(\.request), settlingGuesses: part.count(where: \.settlesGuess))
        }
        return parts + single
    }

    /// Whether `count` more loads fit in the window; when they do (or `force`: nothing is
    /// left to wait for), they are counted in flight.
    mutating func send(_ count: Int, force: Bool = false) -> SendAction {
        guard force || inFlight + count <= settings.window else { return .waitForCompletion }
        inFlight += count
        return .send
    }

    // MARK: Completions

    /// Takes the crawl's end: its summary, or the failure that stops the run.
    mutating func crawlEnded(_ result: Result<CrawlSummary, CrawlError>, cancelled: Bool) -> CompletionAction {
        mayRelease = true
        switch result {
        case .success(let summary):
            self.summary = summary
            reports.append(.crawlFinished)
            return .none
        case .failure(let error):
            failure = failure ?? (cancelled ? .cancelled : .sourceUnavailable(error.message))
            return .cancelAll
        }
    }

    /// Takes the outcomes of one load or revalidation batch into their entries.
    mutating func loaded(_ outcomes: [(key: CanonicalURL, outcome: ImageLoader.Outcome)]) -> CompletionAction {
        mayRelease = true
        var action = CompletionAction.none
        for (key, outcome) in outcomes {
            inFlight -= 1
            let entry = catalog[key.string]
            let isShown = entry?.isShown ?? true
            report(.outcome(outcome, for: key, guess: !isShown))
            entry?.outcome = CatalogEntry.Outcome(outcome)
            switch outcome {
            case .failed(let fetchFailure) where !fetchFailure.reason.isPolicy && isShown:
                tally.failed += 1
            case .failed:
                tally.accepted -= 1
                tally.rejected += 1
            case .page:
                // A page, not an image: neither accepted nor rejected.
                tally.accepted -= 1
                tally.keysFound -= 1
            case .storeFailed(let message):
                failure = failure ?? .storage(message)
                action = .cancelAll
            case .stored, .probed:
                break
            }
        }
        return action
    }

    /// Takes what a batch's repeats had from the loader (`JoinAnswers`). Their entries take
    /// their outcomes from the loads themselves; a store that failed under a joined load stops
    /// the run as it does under the load.
    mutating func joined(_ answers: JoinAnswers) -> CompletionAction {
        mayRelease = true
        joinsInFlight -= 1
        joinsAnswered += answers.answered
        joinsUnanswered += answers.unanswered
        guard let message = answers.storeFailure else { return .none }
        failure = failure ?? .storage(message)
        return .cancelAll
    }

    /// Takes the end of a task that reports nothing (a robots.txt fetched, a counter stream).
    mutating func taskEnded() {
        mayRelease = true
    }

    // MARK: After the crawl's batches

    /// The crawl sends no more batches.
    mutating func batchesEnded() {
        guard case .crawling = phase else { return }
        phase = .releasing
        // The last batch took what was known; the next release waits for a completion.
        mayRelease = false
    }

    /// The driver waited for a completion and there was no task left.
    mutating func groupEmptied() {
        if case .draining = phase { phase = .finished } else { isExhausted = true }
    }

    /// What to do next, once the crawl's batches have ended: take the held discoveries as
    /// their robots.txt arrives; when loads were kept back, wait for the crawl's summary,
    /// reconsider them and load those kept; wait
    /// for every load; end the counter streams; finish.
    mutating func next(robotsKnown: (CanonicalURL) -> Bool, cancelled: Bool) -> NextAction {
        while true {
            let exhausted = isExhausted
            isExhausted = false
            switch phase {
            case .crawling:
                return .waitForCompletion
            case .releasing:
                if !held.isEmpty, failure == nil, !exhausted {
                    guard mayRelease else { return .waitForCompletion }
                    mayRelease = false
                    return .take(release(robotsKnown: robotsKnown))
                }
                phase = !suspects.isEmpty && failure == nil && !cancelled ? .awaitingCrawl : .awaitingLoads
            case .awaitingCrawl:
                if summary == nil, failure == nil, !exhausted { return .waitForCompletion }
                phase = .reconsidering
            case .reconsidering:
                phase = .awaitingLoads
                if let summary, failure == nil {
                    let groups = PhotoGroups(
                        entries: catalog.values, summary: summary, findsDecorations: settings.findsDecorations)
                    self.groups = groups
                    phase = .loadingKeptBack(reconsider(groups: groups), next: 0)
                }
            case .loadingKeptBack(let entries, let start):
                guard start < entries.count else {
                    phase = .awaitingLoads
                    continue
                }
                let end = min(start + 512, entries.count)
                phase = .loadingKeptBack(entries, next: end)
                return .load(Array(entries[start..<end]))
            case .awaitingLoads:
                let settling = inFlight > 0 || joinsInFlight > 0
                if summary == nil || settling, failure == nil || settling, !exhausted { return .waitForCompletion }
                phase = .draining
                return .finishStreams
            case .draining:
                return .waitForCompletion
            case .finished:
                if cancelled && failure == nil { failure = .cancelled }
                if let failure { return .finish(.failure(failure)) }
                return .finish(
                    .success(
                        Collector.Collected(catalog: Array(catalog.values), summary: summary ?? CrawlSummary(), groups: groups)))
            }
        }
    }

    /// After the crawl: the keys held back that are decoration are rejected as such (a
    /// decoration already fetched is left out when the plan is made). Returns the others, to load.
    private mutating func reconsider(groups: PhotoGroups) -> [CatalogEntry] {
        for entry in suspects where entry.verdict == .accepted {
            // Decoration by the pages' structure; or an icon last time (its size known only
            // from its file) that no page links as content now: not requested again.
            let isIcon = previousIcons.contains(entry.key) && !entry.isLinkedAsContent && settings.findsDecorations
            if isIcon || groups.decorations.contains(entry.key) { reject(entry, .decoration) }
        }
        return suspects.filter { $0.verdict == .accepted }
    }

    /// Rejects an accepted `entry` after the crawl, for `reason`.
    private mutating func reject(_ entry: CatalogEntry, _ reason: RejectionReason) {
        entry.verdict = .rejected(reason)
        report(.reconsidered(entry.verdict, for: entry.key))
        tally.accepted -= 1
        tally.rejected += 1
    }
}
