import Crypto
import Foundation
import Logging
import MirrorCore
import MirrorFetch
import MirrorMarkup
import MirrorValidate

/// Crawls a gallery and emits every image reference it finds as a `Discovery`:
///
/// 1. pages, breadth-first from the start page (`Frontier` decides what comes next), several
///    fetched and parsed at once but read in crawl order, so the result is the same as a crawl
///    one page at a time;
/// 2. the feeds and JSON documents the pages advertise (or `--feed`);
/// 3. the sitemaps robots.txt names (sitemap indexes followed).
///
/// Readers (`HTMLScanner`, `FeedReader`) turn documents into values and never fetch; every
/// request passes the gate (scope, robots) and the session's pacing (rate, per host).
package struct Crawler: Sendable {
    let source: CanonicalURL
    let configuration: CrawlConfiguration
    let session: HTTPSession
    /// Asked before every redirect hop of the start page (the user named that page, so robots.txt
    /// does not apply to it, but scope does).
    let startGate: RequestGate
    /// Asked before requesting a discovered page or feed and before every redirect hop.
    let gate: RequestGate
    let progress: ProgressBoard
    /// Stored pages and feeds for conditional requests; nil to always fetch in full.
    package var cache: DocumentCache? = nil
    /// robots.txt, for the sitemaps it names; nil to skip sitemap discovery.
    package var robots: RobotsCache? = nil
    /// Where feeds are downloaded before they are read. Default: the system's temporary directory.
    package var downloads: URL = FileManager.default.temporaryDirectory
    /// Told at `info` of each document read, failed or refused, and what it held. Default: silent.
    package var logger: Logger = Logger.silent

    package init(
        source: CanonicalURL, configuration: CrawlConfiguration, session: HTTPSession, startGate: @escaping RequestGate,
        gate: @escaping RequestGate, progress: ProgressBoard, cache: DocumentCache? = nil, robots: RobotsCache? = nil,
        downloads: URL = FileManager.default.temporaryDirectory, logger: Logger = Logger.silent
    ) {
        self.source = source
        self.configuration = configuration
        self.session = session
        self.startGate = startGate
        self.gate = gate
        self.progress = progress
        self.cache = cache
        self.robots = robots
        self.downloads = downloads
        self.logger = logger
    }
    /// Sitemaps read at most (an index may list many).
    static let maxSitemaps = 100

    static let pageAccept = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
    /// Schemes that name no fetchable resource (inline data, scripts); skipped, not keys.
    static let inertSchemes: Set<String> = ["data", "javascript", "about", "blob", "mailto", "tel"]

    private var feedReader: FeedReader {
        FeedReader(session: session, gate: gate, cache: cache, directory: downloads)
    }

    /// What the source's URL answered: a page, read whole (at most `maxDocumentBytes`), or a
    /// feed or listing, in a file, to be read as a stream (a feed of a million items is).
    package enum StartDocument: Sendable {
        case page(FetchedDocument)
        case file(DownloadedDocument)
    }

    /// Fetches the start page (or the feed or listing given as the source) into a file; failure
    /// means the source cannot be crawled.
    package func fetchStart() async throws(CrawlError) -> StartDocument {
        let download: DownloadedDocument
        do {
            download = try await session.download(
                source, accept: Self.pageAccept, gate: startGate, cache: cache, directory: downloads)
        } catch {
            throw CrawlError.startFailed(source, error)
        }
        if download.kind == .json || download.kind == .xml { return .file(download) }
        // A page is read whole: within the limit of what is held in memory.
        defer { if download.isFresh { try? FileManager.default.removeItem(at: download.file) } }
        let limit = session.configuration.maxDocumentBytes
        let size = (try? FileManager.default.attributesOfItem(atPath: download.file.path))?[.size] as? Int ?? 0
        guard size <= limit, let data = FileManager.default.contents(atPath: download.file.path) else {
            throw CrawlError.startFailed(
                source,
                FetchFailure(
                    .tooLarge,
                    "\(download.url) is \(size) bytes, more than the \(limit) a page may be (raise --max-document-size)"))
        }
        await cache?.keep(download, for: source)
        return .page(
            FetchedDocument(url: download.url, mediaType: download.mediaType, charset: download.charset, bytes: Array(data)))
    }

    /// Crawls from the fetched start page, sending every image reference to `batches` in crawl
    /// order (the batch being filled is sent whenever a document has been read). With
    /// `guesses`, the pages that guessed image URLs turn out to be are read too, once every
    /// other page is (`GuessedPages`).
    package func crawl(
        start: StartDocument, into batches: DiscoveryBatches, guesses: GuessedPages? = nil
    ) async throws(CrawlError) -> CrawlSummary {
        let emit: @Sendable (Discovery) async -> Void = { await batches.send($0) }
        var summary = CrawlSummary()
        var feeds: [CanonicalURL] = configuration.feed.map { [$0] } ?? []
        let startURL: CanonicalURL
        switch start {
        case .file(let download):
            // The source is itself a feed or listing: read it as one.
            startURL = download.url
            do {
                let reading = try await feedReader.read(downloaded: download, for: source, number: 0, emit: emit)
                await batches.flush()
                record(reading, number: 0, summary: &summary)
            } catch {
                throw CrawlError.startUnreadable(error.message)
            }
        case .page(let page):
            startURL = page.url
            let discovered = try await crawlPages(start: page, summary: &summary, batches: batches, guesses: guesses)
            if configuration.feed == nil { feeds += discovered }
        }
        var seen: Set<CanonicalURL> = [startURL]
        for feed in feeds where seen.insert(feed).inserted {
            let number = nextDocumentNumber(summary)
            do {
                let reading = try await feedReader.read(at: feed, number: number, emit: emit)
                await batches.flush()
                record(reading, number: number, summary: &summary)
            } catch {
                await batches.flush()
                // A feed a page advertises that answers with a page is skipped, with a note for
                // --verbose: the site is healthy, and cron mails warnings. The pages a crawl
                // reads are its links; a feed given with --feed that is no feed is a warning.
                if error.isPage, feed != configuration.feed {
                    logger.info("feed \(feed) skipped: \(error.message)")
                    continue
                }
                // One out of scope or refused by robots.txt is not requested, as a page's link
                // there is not: a policy, said with --verbose (a warning for a --feed given).
                if error.isRefused {
                    if feed == configuration.feed { summary.warnings.append(error.message) }
                    logger.info("feed \(feed) skipped: \(error.message)")
                    continue
                }
                logger.info("feed failed: \(error.message)")
                if error.isDeadLink || error.isPage {
                    summary.deadLinks += 1
                    summary.warnings.append(error.message)
                } else {
                    summary.pageFailures.append(error.message)
                }
            }
        }
        if configuration.feed == nil, let robots {
            await readSitemaps(named: robots.policy(for: source), seen: &seen, summary: &summary, batches: batches)
        }
        summary.warnings += limitWarnings(summary.refusals)
        return summary
    }

    private func nextDocumentNumber(_ summary: CrawlSummary) -> Int {
        (summary.documents.keys.max() ?? -1) + 1
    }

    private func record(_ reading: FeedReader.Reading, number: Int, summary: inout CrawlSummary) {
        logger.info(
            "\(reading.kind) \(reading.url) read\(reading.sitemaps.isEmpty ? "" : ", \(reading.sitemaps.count) sitemaps listed")\(reading.unusable == 0 ? "" : ", \(reading.unusable) unreadable image URLs")"
        )
        summary.documents[number] = .init(url: reading.url, kind: reading.kind)
        summary.feeds += 1
        summary.unusableReferences += reading.unusable
        summary.warnings += reading.warnings
        progress.update { $0.feedsRead += 1 }
    }

    /// The warnings for limits that cut the crawl short.
    private func limitWarnings(_ refusals: Frontier.Refusals) -> [String] {
        var lines: [String] = []
        if refusals.beyondPageLimit > 0 {
            lines.append(
                "--max-pages \(configuration.maxPages) reached: \(refusals.beyondPageLimit) more "
                    + (refusals.beyondPageLimit == 1 ? "page was" : "pages were") + " not crawled")
        }
        if refusals.beyondDepth > 0 {
            lines.append(
                "--max-depth \(configuration.maxDepth) reached: \(refusals.beyondDepth) deeper "
                    + (refusals.beyondDepth == 1 ? "page was" : "pages were") + " not crawled")
        }
        return lines
    }

    // MARK: - Pages

    /// How fetching one page ended.
    enum PageResult: Sendable {
        /// `resources`: the photos of the scripts and data files the page loads, each file's
        /// apart, given to the page only if no earlier page (in crawl order) named that file.
        case read(
            Frontier.Page, url: CanonicalURL, scan: PageScan, base: CanonicalURL, bodyHash: String, warnings: [String],
            resources: [PageResources.Resource] = [])
        case failed(String)
        /// The link leads nowhere: the server answered 4xx (a red link of a wiki, a page taken
        /// down). The source's own broken link, said in a warning; it fails nothing.
        case deadLink(String)
        /// The response was not an HTML page.
        case notPage
        case refused(RejectionReason)
    }

    /// The image references of one committed page, sent to the engine in crawl order.
    struct Emission: Sendable {
        let images: [ImageReference]
        let base: CanonicalURL
        let document: Int
    }

    /// What finished in the crawl's task group: a page fetched and read, or a page's
    /// references sent.
    private enum Step: Sendable {
        case page(Int, PageResult)
        case emitted(Unreadable)
    }

    /// The references of one page whose URL could not be read.
    private struct Unreadable: Sendable {
        /// The page's number.
        let document: Int
        /// How many of them the page shows as images: these are counted and warned about. A
        /// guess that is no URL (a script's `"wgPageName":"File:Sunset.jpg"`, which a browser
        /// would read as a `file:` URL) is only a string that looked like one, and fails nothing.
        var shown = 0
        /// The first few of them, guesses too, for `-v`.
        var examples: [ImageReference] = []
    }

    /// How many unreadable references `-v` names in a crawl.
    static let unreadableExamples = 5

    /// How far the reading of pages runs ahead of the engine: no page is fetched while the
    /// committed pages waiting for their references to be sent hold `readAheadReferences`
    /// references, or number `readAheadPages`, counting pages read but not yet committed. A
    /// reference held this way costs about 300 bytes with its strings. Reading further ahead
    /// gained no time on two cores: 20,000 references held up to 6 MB, and a cold sync of
    /// 10,000 photos peaked 0.6 MB higher than with 2,000, which still keep the next pages of
    /// a gallery (tens to hundreds of photos each) read while one page's are sent.
    static let readAheadReferences = 2_000
    static let readAheadPages = 64

    /// Crawls the pages; returns the feeds they advertise, in order of discovery.
    ///
    /// Pages are fetched and read up to `pageConcurrency` at a time and committed in crawl
    /// order. A committed page's links go to the frontier at once; its references are sent by
    /// one task at a time, in the same order, while the next pages are fetched and read. The
    /// engine takes references as fast as it can check their images, so a start page whose
    /// data file lists every photo used to hold back the reading of every other page until
    /// the last of those photos was revalidated, then read them all at the end of the run, on
    /// one core, with the other one idle.
    ///
    /// When no page is left to read, the pages found among the guesses sent so far
    /// (`GuessedPages.round(sent:)`) join the crawl one level below the page that linked them,
    /// within its scope and limits, in a fixed order; the crawl ends when a round finds none.
    private func crawlPages(
        start: FetchedDocument, summary: inout CrawlSummary, batches: DiscoveryBatches, guesses: GuessedPages?
    ) async throws(CrawlError) -> [CanonicalURL] {
        var ledger = Ledger(
            frontier: Frontier(
                start: start.url, scope: CrawlScope(source: source, scope: configuration.scope),
                maxDepth: configuration.maxDepth, maxPages: configuration.maxPages))
        guard let first = ledger.frontier.next() else { return [] }
        let resources = PageResources(
            session: session, gate: gate, cache: cache, scope: ledger.frontier.scope,
            discoversFeeds: configuration.feed == nil)
        var startResult: PageResult
        do {
            startResult = try Self.read(start, page: first)
        } catch {
            throw CrawlError.startUnreadable("cannot read \(start.url) as HTML: \(error)")
        }
        startResult = await Self.addResources(to: startResult, from: resources)
        var pending: [Int: PageResult] = [0: startResult]
        var nextToRead = 0
        /// Each page's depth, by its number: a guessed page is one level below its link's page.
        var depths: [Int: Int] = [first.sequence: first.depth]
        let concurrency = max(1, configuration.pageConcurrency)

        await withTaskGroup(of: Step.self) { group in
            var inFlight = 0
            var emissions: [Emission] = []
            var queuedReferences = 0
            var emitting = false
            var unreadableLogged = 0
            while true {
                while let result = pending.removeValue(forKey: nextToRead) {
                    nextToRead += 1
                    if let emission = ledger.take(result, into: &summary, logger: logger, progress: progress) {
                        emissions.append(emission)
                        queuedReferences += emission.images.count
                    }
                }
                if !emitting, !emissions.isEmpty {
                    let emission = emissions.removeFirst()
                    queuedReferences -= emission.images.count
                    emitting = true
                    group.addTask { .emitted(await Self.send(emission, to: batches)) }
                }
                while inFlight < concurrency, queuedReferences < Self.readAheadReferences,
                    pending.count + emissions.count < Self.readAheadPages, let page = ledger.frontier.next()
                {
                    inFlight += 1
                    depths[page.sequence] = page.depth
                    group.addTask { .page(page.sequence, await Self.addResources(to: fetch(page), from: resources)) }
                }
                if inFlight == 0, !emitting {
                    // Every page is read and its references sent: the pages among the guesses.
                    guard let guesses else { break }
                    var admitted = 0
                    for found in await guesses.round(sent: batches.guessesSent) {
                        guard let depth = depths[found.linkedFrom], ledger.frontier.offer(found.key, from: depth) != nil,
                            let page = ledger.frontier.next()
                        else { continue }
                        logger.info("link \(found.key) is a page (depth \(page.depth)); read as one")
                        inFlight += 1
                        admitted += 1
                        depths[page.sequence] = page.depth
                        let document = found.document
                        group.addTask {
                            .page(
                                page.sequence,
                                await Self.addResources(to: Self.read(found: document, page: page), from: resources))
                        }
                    }
                    if admitted == 0 { break }
                }
                guard let step = await group.next() else { break }
                switch step {
                case .page(let sequence, let result):
                    inFlight -= 1
                    pending[sequence] = result
                case .emitted(let unreadable):
                    emitting = false
                    summary.unusableReferences += unreadable.shown
                    let page = summary.documents[unreadable.document]?.url.string ?? "#\(unreadable.document)"
                    for reference in unreadable.examples where unreadableLogged < Self.unreadableExamples {
                        unreadableLogged += 1
                        logger.info(
                            "page \(page): image URL \"\(reference.url.prefix(200))\" cannot be read\(reference.isGuess ? " (a guess; ignored)" : "")"
                        )
                    }
                }
            }
        }
        summary.refusals.outOfScope += ledger.frontier.refusals.outOfScope
        summary.refusals.beyondDepth += ledger.frontier.refusals.beyondDepth
        summary.refusals.beyondPageLimit += ledger.frontier.refusals.beyondPageLimit
        return ledger.feeds
    }

    /// What makes two URLs one listing: the same path (the query aside) showing the same set of
    /// images, in whatever order. Nil for a page that shows none.
    static func listingKey(_ url: CanonicalURL, _ images: [ImageReference]) -> String? {
        guard !images.isEmpty else { return nil }
        var hasher = SHA256()
        for image in Set(images.map(\.url)).sorted() {
            hasher.update(data: Array(image.utf8))
            hasher.update(data: [0])
        }
        return url.origin + url.path + " " + hasher.finalize().hexString
    }

    /// Sends a page's references to the engine, then the batch they end.
    /// - Returns: those that resolved to no URL.
    private static func send(_ emission: Emission, to batches: DiscoveryBatches) async -> Unreadable {
        var unreadable = Unreadable(document: emission.document)
        for reference in emission.images where !isInert(reference) {
            guard let discovery = discovery(reference, base: emission.base, document: emission.document) else {
                if !reference.isGuess { unreadable.shown += 1 }
                if unreadable.examples.count < unreadableExamples { unreadable.examples.append(reference) }
                continue
            }
            await batches.send(discovery)
        }
        await batches.flush()
        return unreadable
    }

    private func fetch(_ page: Frontier.Page) async -> PageResult {
        if let refusal = await gate(page.url) {
            logger.info("page \(page.url) not requested: \(refusal)")
            return .refused(refusal)
        }
        let document: FetchedDocument
        do {
            document = try await session.document(page.url, accept: Self.pageAccept, gate: gate, cache: cache, htmlOnly: true)
        } catch {
            if error.reason == .unsupportedType {
                logger.info("link \(page.url) is not an HTML page; dropped")
                return .notPage
            }
            // A link that redirects out of scope (or where robots.txt forbids) is refused as the
            // link itself would be: the gate stopped it before the target was asked.
            if error.reason == .outOfScope || error.reason == .robots {
                logger.info("page \(page.url) not read: \(error.detail)")
                return .refused(error.reason)
            }
            let message = "page \(page.url): \(error.detail) (\(error.reason))"
            return Self.isDeadLink(error.reason) ? .deadLink(message) : .failed(message)
        }
        guard document.kind == .html else {
            logger.info("link \(page.url) is not an HTML page; dropped")
            return .notPage
        }
        do {
            return try Self.read(document, page: page)
        } catch {
            return .failed("page \(page.url): \(error)")
        }
    }

    /// A page a guessed image URL answered with, read as a fetched page is.
    private static func read(found document: FetchedDocument, page: Frontier.Page) -> PageResult {
        guard document.kind == .html else { return .notPage }
        do {
            return try read(document, page: page)
        } catch {
            return .failed("page \(page.url): \(error)")
        }
    }

    private static func read(_ document: FetchedDocument, page: Frontier.Page) throws(MarkupError) -> PageResult {
        let scan = try HTMLScanner.scan(document.bytes, url: document.url.string, encoding: document.charset)
        let base = scan.baseHref.flatMap { CanonicalURL($0, relativeTo: document.url) } ?? document.url
        return .read(
            page, url: document.url, scan: scan, base: base, bodyHash: SHA256.hash(data: document.bytes).hexString,
            warnings: scan.scriptsIncomplete ? [ScriptFindings.incompleteWarning("page \(document.url)")] : [])
    }

    /// A page read, with the photos of the scripts and data files it loads added to its own.
    private static func addResources(to result: PageResult, from resources: PageResources) async -> PageResult {
        guard case .read(let page, let url, var scan, let base, let bodyHash, let warnings, _) = result else { return result }
        let found = await resources.found(for: scan, base: base)
        if scan.title == nil { scan.title = found.title }
        return .read(
            page, url: url, scan: scan, base: base, bodyHash: bodyHash, warnings: warnings + found.warnings,
            resources: found.resources)
    }

    // MARK: - Sitemaps

    /// Reads the sitemaps robots.txt names (and those their indexes list) for image entries.
    /// A sitemap that cannot be read is a warning, not an outage: it is an extra way in.
    private func readSitemaps(
        named robots: RobotsTxt, seen: inout Set<CanonicalURL>, summary: inout CrawlSummary, batches: DiscoveryBatches
    ) async {
        let emit: @Sendable (Discovery) async -> Void = { await batches.send($0) }
        guard let robotsURL = CanonicalURL(source.origin + "/robots.txt") else { return }
        var queue = robots.sitemaps.compactMap { CanonicalURL($0, relativeTo: robotsURL) }.filter { seen.insert($0).inserted }
        var read = 0
        while !queue.isEmpty, read < Self.maxSitemaps {
            let sitemap = queue.removeFirst()
            read += 1
            let number = nextDocumentNumber(summary)
            do {
                let reading = try await feedReader.read(at: sitemap, accept: FeedReader.sitemapAccept, number: number, emit: emit)
                await batches.flush()
                record(reading, number: number, summary: &summary)
                queue += reading.sitemaps.filter { seen.insert($0).inserted }
            } catch {
                await batches.flush()
                if error.isDeadLink {
                    summary.deadLinks += 1
                    summary.warnings.append("sitemap: " + error.message)
                } else {
                    summary.pageFailures.append("sitemap: " + error.message)
                }
            }
        }
    }

    // MARK: - References

    private static let httpsLetters = Array("https".utf8)

    /// Whether a document's failure is the source's answer that it is not there (4xx): a link
    /// to a page that does not exist fails no run (wikis link pages not yet written).
    static func isDeadLink(_ reason: RejectionReason) -> Bool {
        reason.rawValue.hasPrefix("http-4") && reason != .http(429)
    }

    /// True for references that name no fetchable resource (`data:`, `javascript:`, ...).
    static func isInert(_ reference: ImageReference) -> Bool {
        // Bytes up to the first ":" only; the longest inert scheme has 10 letters.
        let utf8 = reference.url.utf8
        guard let colon = utf8.prefix(64).firstIndex(of: UInt8(ascii: ":")) else { return false }
        // http and https, in any case, without making a string (most references are one).
        let letters = Self.httpsLetters
        var count = 0
        for byte in utf8[..<colon] {
            guard count < letters.count, byte | 0x20 == letters[count] else {
                count = -1
                break
            }
            count += 1
        }
        if count == 4 || count == 5 { return false }
        let scheme = String(decoding: utf8[..<colon], as: UTF8.self).trimmingSpaces
        return scheme.utf8.count <= 10 && inertSchemes.contains(scheme.lowercased())
    }

    /// The discovery for `reference` found in document `document` at `base`, or nil when its URL
    /// is unusable.
    static func discovery(_ reference: ImageReference, base: CanonicalURL, document: Int = 0) -> Discovery? {
        (reference.resolvedKey ?? CanonicalURL(reference.url, relativeTo: base)).map {
            Discovery(key: $0, reference: reference, document: document)
        }
    }
}
