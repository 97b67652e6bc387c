import Foundation
import MirrorCore
import MirrorCrawl
import MirrorFetch
import MirrorStore
import MirrorValidate

/// What a run has once it is prepared: the sessions and the gate every request passes, the
/// crawler with its start document fetched, and the mirror locked for this run.
struct PreparedRun {
    /// Requests of the crawl and the loads (robots.txt has a session of its own).
    let session: HTTPSession
    /// Asked before every request of a discovered page, feed or image: scope, then robots.txt.
    let gate: RequestGate
    let robots: RobotsCache
    let crawler: Crawler
    /// Stored pages and feeds for conditional requests; saved when the run has published.
    let cache: DocumentCache
    let layout: MirrorLayout
    /// Held for the whole run (nil for a dry run of a mirror that does not exist).
    let lock: MirrorLock?
    /// The source's answer, handed to the crawler once.
    let start: Handoff<Crawler.StartDocument>
    /// The mirror's directories that did not exist before this run.
    let created: CreatedDirectories
}

/// The directories of a mirror a run found missing and made: removed again when the run stops
/// with nothing to keep, so a first run that fails before it verified anything leaves no
/// directory behind.
struct CreatedDirectories {
    private let directories: [URL]
    /// A dry run creates nothing, so it removes nothing.
    private let dryRun: Bool

    /// The directories of `layout` that do not exist now.
    init(_ layout: MirrorLayout, dryRun: Bool) {
        directories = [layout.root, layout.state].filter { !FileManager.default.fileExists(atPath: $0.path) }
        self.dryRun = dryRun
    }

    /// Removes them, innermost first.
    func remove() {
        guard !dryRun else { return }
        for directory in directories.reversed() { try? FileManager.default.removeItem(at: directory) }
    }
}

/// The first phase of a run: the sessions, robots.txt, the gate, the mirror's lock, and the
/// source's start document, fetched before the store is opened so an unreachable source
/// changes nothing.
struct RunPreparation {
    let configuration: MirrorConfiguration
    let progress: ProgressBoard

    /// Prepares a run whose requests go through `clients`.
    /// - Throws: `MirrorError` when the mirror is locked or cannot be created, or the source
    ///   cannot be fetched; what this run created is removed first.
    func prepare(clients: HTTPClients) async throws(MirrorError) -> PreparedRun {
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
        let robots = RobotsCache(inScope: { url in url.isWeb && scope.contains(url) }) { url in
            await RobotsTxt.fetch(url, session: robotsSession, gate: scopeGate)
        }
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
        // with nothing to keep; one that verified downloads keeps them in `.catalog-mirror/`
        // for the next run (`DiskStorage.keepsDownloads()`).
        let layout = MirrorLayout(root: configuration.output)
        let created = CreatedDirectories(layout, dryRun: dryRun)
        let lock: MirrorLock?
        do {
            lock = try MirrorLock.acquire(layout, create: !dryRun)
        } catch let held as MirrorLock.Held {
            throw .locked(directory: held.path, pid: held.pid)
        } catch {
            created.remove()
            throw .storage("\(error)")
        }

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
            // The lock goes only after what this run created is removed.
            withExtendedLifetime(lock) { created.remove() }
            throw Task.isCancelled ? .cancelled : .sourceUnavailable(error.message)
        }
        return PreparedRun(
            session: session, gate: gate, robots: robots, crawler: crawler, cache: cache, layout: layout, lock: lock,
            start: start, created: created)
    }
}
