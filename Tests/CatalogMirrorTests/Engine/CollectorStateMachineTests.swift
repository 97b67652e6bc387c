import Foundation
import Testing

@testable import CatalogMirror
@testable import MirrorCatalog
@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorFetch
@testable import MirrorMarkup
@testable import MirrorPipeline
@testable import MirrorValidate

/// The collector's decisions, driven event by event as `Collector.run` drives them, with plain
/// values for the chain's verdicts, the store's answers and the loads' outcomes.
@Suite("Collector state machine")
struct CollectorStateMachineTests {
    /// A discovery of `http://h/<path>` (or of `origin` when given) in `document`.
    static func discovery(
        _ path: String, origin: String = "http://h", document: Int = 0, photo: Int? = nil, width: Int? = nil,
        guess: Bool = false, decoration: Bool = false
    ) -> Discovery {
        var reference = ImageReference(url: "\(origin)/\(path)", photo: photo, size: RenditionSize(width: width))
        reference.isGuess = guess
        reference.isDecoration = decoration
        return Discovery(key: CanonicalURL("\(origin)/\(path)")!, reference: reference, document: document)
    }

    static func machine(
        window: Int = 8, batches: Bool = false, previousDecorations: Set<CanonicalURL> = [],
        previousIcons: Set<CanonicalURL> = [], reportsEachKey: Bool = true
    ) -> CollectorStateMachine {
        CollectorStateMachine(
            settings: .init(
                window: window, revalidatesInBatches: batches, dryRun: false,
                findsDecorations: true, reportsEachKey: reportsEachKey),
            previousDecorations: previousDecorations, previousIcons: previousIcons)
    }

    /// Stands in for the validator chain: a key seen before is a duplicate (`DuplicateRule`),
    /// a key in `rejected` is rejected by a rule, any other is accepted.
    struct Chain {
        var seen: Set<CanonicalURL> = []
        var rejected: Set<String> = []

        mutating func verdict(_ candidate: Candidate) -> Verdict {
            guard seen.insert(candidate.key).inserted else { return .duplicate }
            return rejected.contains(candidate.key.string) ? .rejected(.excluded) : .accepted
        }
    }

    /// Sights `discoveries` as `Collector.take` does (robots.txt known unless `held` names the
    /// origin) and returns what the batch asks for, and the sighting actions.
    static func take(
        _ discoveries: [Discovery], machine: inout CollectorStateMachine, chain: inout Chain,
        held: Set<String> = [], cancelled: Bool = false
    ) -> (CollectorStateMachine.BatchAction, [CollectorStateMachine.SightingAction]) {
        var sightings: [CollectorStateMachine.SightingAction] = []
        for discovery in discoveries {
            let action = machine.sight(
                discovery, robotsKnown: !held.contains(discovery.key.origin), cancelled: cancelled)
            sightings.append(action)
            if case .validate(let candidate) = action { machine.validated(discovery, verdict: chain.verdict(candidate)) }
        }
        return (machine.batchTaken(cancelled: cancelled), sightings)
    }

    static func stored(_ key: CanonicalURL) -> ImageRequest.Lookup {
        .stored(
            StoredImage(
                key: key, fileName: "f.png", sha256: String(repeating: "0", count: 64), byteCount: 1,
                contentType: "image/png", etag: "\"e\"", lastModified: nil, firstSeen: Date(), lastChecked: Date()))
    }

    static func image(_ key: CanonicalURL) -> ImageLoader.Outcome {
        guard case .stored(let image) = stored(key) else { return .probed }
        return .stored(image, from: .network)
    }

    /// The counts of `reports`, added up.
    static func tally(_ reports: [CollectorStateMachine.Report]) -> CollectorStateMachine.Tally {
        var sum = CollectorStateMachine.Tally()
        for case .tally(let tally) in reports {
            sum.keysFound += tally.keysFound
            sum.accepted += tally.accepted
            sum.rejected += tally.rejected
            sum.failed += tally.failed
        }
        return sum
    }

    @Test(
        "what the machine decides for the log and the progress board comes out as reports, in order, the counts last; each key's only when they are shown"
    )
    func reports() {
        var machine = Self.machine()
        var chain = Chain(rejected: ["http://h/r.png"])
        let (batch, _) = Self.take(
            [Self.discovery("a.png"), Self.discovery("r.png"), Self.discovery("g.png", guess: true)], machine: &machine,
            chain: &chain)
        let a = CanonicalURL("http://h/a.png")!
        let r = CanonicalURL("http://h/r.png")!
        let g = CanonicalURL("http://h/g.png")!
        #expect(
            machine.takeReports() == [
                .verdict(.accepted, for: a, guess: false), .verdict(.rejected(.excluded), for: r, guess: false),
                .verdict(.accepted, for: g, guess: true), .tally(.init(keysFound: 3, accepted: 2, rejected: 1)),
            ])
        // Taken once: nothing is reported twice.
        #expect(machine.takeReports().isEmpty)
        for part in machine.plan(batch.load, found: [.none, .none]) { _ = machine.send(part.count) }
        // An image downloaded; a guess that was a page (neither accepted nor found).
        let page = ImageLoader.Outcome.page(FetchedDocument(url: g, mediaType: "text/html", charset: nil, bytes: []))
        let image = Self.image(a)
        _ = machine.loaded([(a, image), (g, page)])
        _ = machine.crawlEnded(.success(CrawlSummary()), cancelled: false)
        #expect(
            machine.takeReports() == [
                .outcome(image, for: a, guess: false), .outcome(page, for: g, guess: true), .crawlFinished,
                .tally(.init(keysFound: -1, accepted: -1)),
            ])

        // When the log does not show each key, only the counts come out.
        var quiet = Self.machine(reportsEachKey: false)
        var other = Chain()
        _ = Self.take([Self.discovery("a.png"), Self.discovery("b.png")], machine: &quiet, chain: &other)
        #expect(quiet.takeReports() == [.tally(.init(keysFound: 2, accepted: 2))])
    }

    static func keys(_ part: CollectorStateMachine.LoadPart) -> [CanonicalURL] {
        switch part {
        case .revalidate(let requests, _): requests.map(\.key)
        case .load(let request, _): [request.key]
        }
    }

    static func paths(_ entries: [CatalogEntry]) -> [String] { entries.map { String($0.key.path.dropFirst()) } }

    @Test("new accepted keys are loaded with their batch; a repeat of a key sent joins its load, never loads it again")
    func repeatsJoin() {
        var machine = Self.machine()
        var chain = Chain(rejected: ["http://h/r.png"])
        let (first, _) = Self.take(
            [Self.discovery("a.png"), Self.discovery("b.png"), Self.discovery("a.png", document: 1), Self.discovery("r.png")],
            machine: &machine, chain: &chain)
        #expect(Self.paths(first.load) == ["a.png", "b.png"])
        #expect(first.joins.map(\.string) == ["http://h/a.png"])
        #expect(first.settledGuesses == 0)
        let (second, _) = Self.take(
            [Self.discovery("b.png", document: 2), Self.discovery("r.png", document: 2)], machine: &machine, chain: &chain)
        #expect(second.load.isEmpty)
        // A rejected key's repeat joins nothing: it was never sent.
        #expect(second.joins.map(\.string) == ["http://h/b.png"])
        #expect(machine.catalog["http://h/a.png"]?.sightings.count == 2)
        #expect(machine.joinsInFlight == 2)
        #expect(Self.tally(machine.takeReports()) == .init(keysFound: 3, accepted: 2, rejected: 1))

        // The collection ends only when the loads and the joins have their answers, so every
        // memory hit is counted before the counter streams end.
        for part in machine.plan(first.load, found: [.none, .none]) { _ = machine.send(part.count) }
        machine.batchesEnded()
        _ = machine.crawlEnded(.success(CrawlSummary()), cancelled: false)
        _ = machine.loaded(first.load.map { ($0.key, Self.image($0.key)) })
        _ = machine.joined(CollectorStateMachine.JoinAnswers(answered: 1))
        guard case .waitForCompletion = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the streams ended before a join was answered")
            return
        }
        _ = machine.joined(CollectorStateMachine.JoinAnswers(answered: 1))
        guard case .finishStreams = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the streams did not end after the last join")
            return
        }
    }

    @Test("the window is never exceeded: a revalidation batch goes in parts no larger than it, each load waits for room")
    func window() {
        let window = 3
        var machine = Self.machine(window: window, batches: true)
        var chain = Chain()
        let discoveries = (0..<9).map { Self.discovery("\($0).png") }
        let (action, _) = Self.take(discoveries, machine: &machine, chain: &chain)
        // Seven stored with validators (revalidated in batches), two new (loads of their own).
        let found = action.load.enumerated().map { $0 < 7 ? Self.stored($1.key) : .none }
        let parts = machine.plan(action.load, found: found)
        #expect(parts.map(\.count) == [3, 3, 1, 1, 1])
        #expect(parts.flatMap(Self.keys) == action.load.map(\.key))
        #expect(action.load.allSatisfy { $0.isSentToLoader })

        // Driven as `Collector.load` drives it: a part waits, taking in the oldest part's
        // outcomes, until the window has room for it.
        var inFlight: [CollectorStateMachine.LoadPart] = []
        var waits = 0
        for part in parts {
            while machine.send(part.count) == .waitForCompletion {
                waits += 1
                let done = inFlight.removeFirst()
                #expect(machine.loaded(Self.keys(done).map { ($0, Self.image($0)) }) == .none)
            }
            inFlight.append(part)
            #expect(machine.inFlight == inFlight.map(\.count).reduce(0, +))
            #expect(machine.inFlight <= window)
        }
        #expect(waits == 2)
        for part in inFlight { _ = machine.loaded(Self.keys(part).map { ($0, Self.image($0)) }) }
        #expect(machine.inFlight == 0)
        #expect(machine.catalog.values.allSatisfy { $0.outcome == .stored(staged: false) })
        // A part larger than the room left waits, though the window is not full; with no task
        // left to wait for, it is sent anyway.
        #expect(machine.send(1) == .send)
        #expect(machine.send(window) == .waitForCompletion)
        #expect(machine.inFlight == 1)
        #expect(machine.send(window, force: true) == .send)
        #expect(machine.inFlight == 1 + window)
    }

    @Test("discoveries wait for their origin's robots.txt, one fetch each, and are released by origin in the order found")
    func robotsHold() {
        var machine = Self.machine()
        var chain = Chain()
        let slow = "http://slow", late = "http://late"
        let (action, sightings) = Self.take(
            [
                Self.discovery("1.png", origin: slow), Self.discovery("a.png"), Self.discovery("1.png", origin: late),
                Self.discovery("2.png", origin: slow), Self.discovery("2.png", origin: late),
            ], machine: &machine, chain: &chain, held: [slow, late])
        #expect(
            sightings == [
                .hold(fetchesRobots: true), .validate(Candidate(key: CanonicalURL("http://h/a.png")!)),
                .hold(fetchesRobots: true), .hold(fetchesRobots: false), .hold(fetchesRobots: false),
            ])
        // Only the key whose origin's robots.txt is known is validated and loaded now.
        #expect(Self.paths(action.load) == ["a.png"])
        #expect(machine.release(robotsKnown: { $0.origin != slow && $0.origin != late }).isEmpty)

        // After the crawl's batches, the held keys go as a completion shows their robots.txt known.
        machine.batchesEnded()
        let unknown: (CanonicalURL) -> Bool = { $0.origin != slow && $0.origin != late }
        guard case .waitForCompletion = machine.next(robotsKnown: unknown, cancelled: false) else {
            Issue.record("held keys were released before any completion")
            return
        }
        machine.taskEnded()
        guard case .take(let none) = machine.next(robotsKnown: unknown, cancelled: false), none.isEmpty else {
            Issue.record("keys of an origin still unknown were released")
            return
        }
        machine.taskEnded()
        guard case .take(let released) = machine.next(robotsKnown: { $0.origin != slow }, cancelled: false) else {
            Issue.record("the known origin's keys were not released")
            return
        }
        #expect(released.map(\.key.string) == ["http://late/1.png", "http://late/2.png"])
        machine.taskEnded()
        guard case .take(let rest) = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the last origin's keys were not released")
            return
        }
        #expect(rest.map(\.key.string) == ["http://slow/1.png", "http://slow/2.png"])
        #expect(machine.held.isEmpty)
        let (taken, _) = Self.take(released + rest, machine: &machine, chain: &chain)
        #expect(
            taken.load.map(\.key.string) == ["http://late/1.png", "http://late/2.png", "http://slow/1.png", "http://slow/2.png"])
    }

    @Test("an icon of the last run is rejected again without a request, unless a page now links it as content")
    func previousIcons() throws {
        let icon = CanonicalURL("http://h/icons/back.gif")!
        let linked = CanonicalURL("http://h/icons/folder.gif")!
        var machine = Self.machine(previousDecorations: [icon, linked], previousIcons: [icon, linked])
        var chain = Chain()
        var asLink = Self.discovery("icons/folder.gif", photo: 1)
        asLink.reference.size = RenditionSize(role: .full)
        let (action, _) = Self.take([Self.discovery("icons/back.gif", photo: 0), asLink], machine: &machine, chain: &chain)
        #expect(action.load.isEmpty)
        machine.batchesEnded()
        guard case .waitForCompletion = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the suspects did not wait for the crawl")
            return
        }
        var summary = CrawlSummary()
        summary.documents[0] = .init(url: CanonicalURL("http://h/")!, kind: .page)
        _ = machine.crawlEnded(.success(summary), cancelled: false)
        guard case .load(let kept) = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the icon linked as content was not loaded")
            return
        }
        #expect(Self.paths(kept) == ["icons/folder.gif"])
        #expect(machine.catalog[icon.string]?.verdict == .rejected(.decoration))
    }

    /// Drives `machine` from its last loads to its end, which must be a success with `count` entries.
    static func finish(_ machine: inout CollectorStateMachine, expecting count: Int) throws {
        guard case .finishStreams = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the streams did not end after the last load")
            return
        }
        guard case .waitForCompletion = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the remaining tasks were not drained")
            return
        }
        machine.groupEmptied()
        guard case .finish(.success(let collected)) = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the collection did not succeed")
            return
        }
        #expect(collected.catalog.count == count)
    }

    @Test("decoration suspects wait for the end of the crawl: a decoration is rejected, a suspect that is not one loads")
    func decorationSuspects() throws {
        let previous = CanonicalURL("http://h/was-decoration.png")!
        var machine = Self.machine(previousDecorations: [previous])
        var chain = Chain()
        let (action, _) = Self.take(
            [
                Self.discovery("arrow.png", photo: 0, decoration: true), Self.discovery("photo.png", photo: 1),
                Self.discovery("was-decoration.png", photo: 2),
            ], machine: &machine, chain: &chain)
        #expect(Self.paths(action.load) == ["photo.png"])
        #expect(Self.paths(machine.suspects) == ["arrow.png", "was-decoration.png"])
        for part in machine.plan(action.load, found: [.none]) { _ = machine.send(part.count) }
        _ = machine.loaded([(action.load[0].key, Self.image(action.load[0].key))])

        machine.batchesEnded()
        guard case .waitForCompletion = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the suspects did not wait for the crawl")
            return
        }
        var summary = CrawlSummary()
        summary.documents[0] = .init(url: CanonicalURL("http://h/")!, kind: .page)
        _ = machine.crawlEnded(.success(summary), cancelled: false)
        guard case .load(let kept) = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the suspect that is no decoration was not loaded")
            return
        }
        #expect(Self.paths(kept) == ["was-decoration.png"])
        #expect(machine.catalog["http://h/arrow.png"]?.verdict == .rejected(.decoration))
        for part in machine.plan(kept, found: [.none]) { _ = machine.send(part.count) }
        _ = machine.loaded([(kept[0].key, Self.image(kept[0].key))])
        try Self.finish(&machine, expecting: 3)
    }

    @Test("a store that failed stops the run: nothing more is validated or loaded, the loads under way end, then failure")
    func storeFailed() {
        var machine = Self.machine()
        var chain = Chain()
        let (action, _) = Self.take([Self.discovery("a.png"), Self.discovery("b.png")], machine: &machine, chain: &chain)
        for part in machine.plan(action.load, found: [.none, .none]) { _ = machine.send(part.count) }
        #expect(machine.loaded([(action.load[0].key, .storeFailed("disk full"))]) == .cancelAll)
        let (after, sightings) = Self.take(
            [Self.discovery("c.png"), Self.discovery("g.png", guess: true)], machine: &machine, chain: &chain)
        #expect(sightings == [.skip, .skip])
        #expect(after.load.isEmpty && after.settledGuesses == 1)
        #expect(machine.catalog["http://h/c.png"] == nil)

        machine.batchesEnded()
        // b is still loading: the collection waits for it before the streams end.
        guard case .waitForCompletion = machine.next(robotsKnown: { _ in true }, cancelled: false) else {
            Issue.record("the collection did not wait for the load under way")
            return
        }
        _ = machine.loaded([(action.load[1].key, .failed(FetchFailure(.timeout, "timed out")))])
        guard case .finishStreams = machine.next(robotsKnown: { _ in true }, cancelled: true) else {
            Issue.record("the streams did not end")
            return
        }
        machine.groupEmptied()
        guard case .finish(.failure(let failure)) = machine.next(robotsKnown: { _ in true }, cancelled: true) else {
            Issue.record("the collection did not fail")
            return
        }
        #expect(failure == .storage("disk full"))
    }

    @Test("a failed crawl stops the run with the source unavailable, or cancelled when the run was cancelled")
    func crawlFailed() {
        for cancelled in [false, true] {
            var machine = Self.machine()
            machine.batchesEnded()
            let action = machine.crawlEnded(.failure(CrawlError(.startFailed, "no answer from http://h/")), cancelled: cancelled)
            #expect(action == .cancelAll)
            guard case .finishStreams = machine.next(robotsKnown: { _ in true }, cancelled: cancelled) else {
                Issue.record("the run did not stop")
                continue
            }
            machine.groupEmptied()
            guard case .finish(.failure(let failure)) = machine.next(robotsKnown: { _ in true }, cancelled: cancelled) else {
                Issue.record("the run did not fail")
                continue
            }
            #expect(failure == (cancelled ? .cancelled : .sourceUnavailable("no answer from http://h/")))
        }
    }

    @Test("a cancelled run loads nothing more, waits for the loads under way, and ends as cancelled")
    func cancelled() {
        var machine = Self.machine()
        var chain = Chain()
        let (action, _) = Self.take([Self.discovery("a.png")], machine: &machine, chain: &chain)
        for part in machine.plan(action.load, found: [.none]) { _ = machine.send(part.count) }
        let (after, sightings) = Self.take([Self.discovery("b.png")], machine: &machine, chain: &chain, cancelled: true)
        #expect(sightings == [.skip] && after.load.isEmpty)
        machine.batchesEnded()
        _ = machine.crawlEnded(.success(CrawlSummary()), cancelled: true)
        guard case .waitForCompletion = machine.next(robotsKnown: { _ in true }, cancelled: true) else {
            Issue.record("the load under way was not waited for")
            return
        }
        _ = machine.loaded([(action.load[0].key, .failed(FetchFailure(.timeout, "cancelled")))])
        guard case .finishStreams = machine.next(robotsKnown: { _ in true }, cancelled: true) else {
            Issue.record("the streams did not end")
            return
        }
        machine.groupEmptied()
        guard case .finish(.failure(let failure)) = machine.next(robotsKnown: { _ in true }, cancelled: true) else {
            Issue.record("the run did not end as cancelled")
            return
        }
        #expect(failure == .cancelled)
    }

    @Test("each guess settles once: at once when it loads nothing, with its load otherwise, at once when the run stops")
    func guesses() {
        var machine = Self.machine()
        var chain = Chain(rejected: ["http://h/refused.png"])
        let (action, _) = Self.take(
            [
                Self.discovery("g.png", document: 4, guess: true), Self.discovery("g.png", document: 5, guess: true),
                Self.discovery("refused.png", guess: true), Self.discovery("shown.png"),
            ], machine: &machine, chain: &chain)
        // The repeat and the rejection settle now; the accepted guess with its load.
        #expect(action.settledGuesses == 2)
        #expect(Self.paths(action.load) == ["g.png", "shown.png"])
        let parts = machine.plan(action.load, found: [.none, .none])
        let answers = parts.map { part -> CollectorStateMachine.GuessAnswer? in
            if case .load(_, let guess) = part { guess } else { nil }
        }
        #expect(answers == [CollectorStateMachine.GuessAnswer(linkedFrom: 4), nil])

        // A batch taken while the run goes on loads its guess; one taken as the run stops loads
        // nothing, and settles its guesses (a new one and a repeat) at once.
        let (running, _) = Self.take(
            [Self.discovery("h.png", guess: true), Self.discovery("i.png")], machine: &machine, chain: &chain)
        #expect(running.settledGuesses == 0 && running.load.count == 2)
        let (cancelled, _) = Self.take(
            [Self.discovery("j.png", guess: true), Self.discovery("h.png", guess: true)], machine: &machine, chain: &chain,
            cancelled: true)
        #expect(cancelled.settledGuesses == 2 && cancelled.load.isEmpty)
    }

    @Test("joined repeats' answers are counted; a store failure under one stops the run")
    func joins() {
        var machine = Self.machine()
        let key = CanonicalURL("http://h/a.png")!
        let answers = CollectorStateMachine.JoinAnswers([nil, Self.image(key), .failed(FetchFailure(.timeout, "timed out"))])
        #expect(answers == CollectorStateMachine.JoinAnswers(answered: 2, unanswered: 1))
        #expect(machine.joined(answers) == .none)
        #expect(machine.joinsAnswered == 2 && machine.joinsUnanswered == 1)
        #expect(machine.failure == nil)
        let failed = CollectorStateMachine.JoinAnswers([.storeFailed("disk full"), .storeFailed("later")])
        #expect(failed.storeFailure == "disk full")
        #expect(machine.joined(failed) == .cancelAll)
        #expect(machine.failure == .storage("disk full"))
    }
}
