import MirrorCore
import MirrorFetch
import MirrorMarkup

/// Fetches and reads what a page loads beside its markup, and gives the photos found there to
/// the page (so they count as found on it: its album, its crawl order):
///
/// - its `<script src>` files inside the crawl scope, read by `ScriptReader` (`.external`);
/// - the JSON documents its scripts name (`'data.json'`, resolved against the page, as the
///   script would load them): listings, read by `JSONReader`;
/// - those it links with `<link rel="alternate" type="application/json">` (unless `--feed`
///   replaced feed discovery): a listing or a JSON Feed, or an API's answer (WordPress's
///   `/wp-json/`, oEmbed), read only for the image URLs it holds as such
///   (`JSONReader.isAPIDocument(_:)`).
///
/// Every request passes the crawl's gate and the session's pacing, conditional on the cache as
/// pages are; each URL is fetched and read once per run, whichever page names it first, and
/// its photos go to the first page in crawl order that names it (the crawler decides, as it
/// takes the pages in order: `Resource`). Failures are warnings: a missing
/// script or data file does not fail the run.
struct PageResources: Sendable {
    let session: HTTPSession
    let gate: RequestGate
    let cache: DocumentCache?
    /// Scripts are read only inside it (a library on a CDN is no part of the gallery).
    let scope: CrawlScope
    /// Whether `<link rel="alternate">` JSON documents are read (not with `--feed`).
    let discoversFeeds: Bool
    private let readings = Readings()

    /// Script files read per page at most.
    static let maxScripts = 32
    /// JSON documents read per page at most.
    static let maxDataFiles = 16
    static let scriptAccept = "application/javascript,text/javascript;q=0.9,*/*;q=0.5"
    static let jsonAccept = "application/json,application/feed+json;q=0.9,*/*;q=0.5"

    init(session: HTTPSession, gate: @escaping RequestGate, cache: DocumentCache?, scope: CrawlScope, discoversFeeds: Bool) {
        self.session = session
        self.gate = gate
        self.cache = cache
        self.scope = scope
        self.discoversFeeds = discoversFeeds
    }

    /// What one script or data file gave: photos with URLs as written, and data files named.
    struct Reading: Sendable {
        var findings = ScriptFindings()
        /// A data file's own title (its top-level `title` or `name`).
        var title: String?
        /// Why it could not be read, in one line naming it.
        var failure: String?
    }

    /// The photos of one script or data file, as the file wrote them and the base they resolve
    /// against. They are resolved (`photos`) only for the page that is given the file: a
    /// listing every page advertises is named by P pages, and resolving its N photos for each
    /// of them, to keep them for the first page only, was P x N key resolutions.
    struct Resource: Sendable {
        var url: CanonicalURL
        /// The reading's photos, unresolved: one array shared by every page naming the file.
        fileprivate var written: [[ImageReference]]
        fileprivate var base: CanonicalURL
        /// Photos of a data file are marked `isFromDataFile`.
        fileprivate var isDataFile: Bool
        /// Whether the file is a script (its lone URLs are photos of their own: `addPhotos`).
        var isScript: Bool { !isDataFile }

        /// The photos with their URLs made absolute against the base (unusable ones kept as
        /// written, for the crawler to count).
        var photos: [[ImageReference]] {
            written.map { photo in
                photo.map { reference in
                    var reference = reference
                    if let url = CanonicalURL(reference.url.trimmingSpaces, relativeTo: base) { reference.url = url.string }
                    if isDataFile { reference.isFromDataFile = true }
                    return reference
                }
            }
        }
    }

    /// What the scripts and data files of one page hold.
    struct Found: Sendable {
        /// Each file's photos, in the order the page names them.
        var resources: [Resource] = []
        /// The first data file's title: a page that has none of its own takes it (fgallery
        /// sets `document.title` from its `data.json`).
        var title: String?
        /// Scripts and data files that could not be read, one line each.
        var warnings: [String] = []
    }

    /// The photos `scan`'s scripts and data files hold, read against the page's `base`.
    func found(for scan: PageScan, base: CanonicalURL) async -> Found {
        var found = Found()
        // Data files, each with the base its URLs resolve against.
        var dataFiles: [(url: CanonicalURL, base: CanonicalURL)] = []
        var seen: Set<CanonicalURL> = []
        func addDataFile(_ href: String, base documentBase: CanonicalURL?) {
            guard dataFiles.count < Self.maxDataFiles, let url = CanonicalURL(href, relativeTo: base), url.isWeb,
                seen.insert(url).inserted
            else { return }
            dataFiles.append((url, documentBase ?? url))
        }
        for href in scan.dataFiles { addDataFile(href, base: base) }
        if discoversFeeds {
            for feed in scan.feeds where feed.type.contains("json") { addDataFile(feed.href, base: nil) }
        }
        var scripts: [CanonicalURL] = []
        for href in scan.scriptSources {
            guard scripts.count < Self.maxScripts, let url = CanonicalURL(href, relativeTo: base), scope.contains(url),
                seen.insert(url).inserted
            else { continue }
            scripts.append(url)
        }
        for script in scripts {
            let reading = await readings.reading(of: script) { await read(script: script) }
            if let failure = reading.failure { found.warnings.append(failure) }
            if !reading.findings.isComplete { found.warnings.append(ScriptFindings.incompleteWarning("script \(script)")) }
            found.resources.append(Resource(url: script, written: reading.findings.photos, base: base, isDataFile: false))
            for href in reading.findings.dataFiles { addDataFile(href, base: base) }
        }
        for (url, documentBase) in dataFiles {
            let reading = await readings.reading(of: url) { await read(dataFile: url) }
            if let failure = reading.failure { found.warnings.append(failure) }
            found.resources.append(Resource(url: url, written: reading.findings.photos, base: documentBase, isDataFile: true))
            found.title = found.title ?? reading.title
        }
        return found
    }

    private func read(script url: CanonicalURL) async -> Reading {
        if let refusal = await gate(url) { return Reading(failure: "script \(url) is \(refusal.rawValue); not read") }
        do {
            let document = try await session.document(url, accept: Self.scriptAccept, gate: gate, cache: cache)
            // An HTML answer is an error page or a soft 404, not a script.
            guard document.kind != .html else { return Reading() }
            return Reading(findings: ScriptReader.read(document.bytes, origin: .external))
        } catch {
            return Reading(failure: "script \(url): \(error.detail) (\(error.reason))")
        }
    }

    private func read(dataFile url: CanonicalURL) async -> Reading {
        if let refusal = await gate(url) { return Reading(failure: "data file \(url) is \(refusal.rawValue); not read") }
        do {
            let document = try await session.document(url, accept: Self.jsonAccept, gate: gate, cache: cache)
            // An HTML answer is a page (an advertised JSON feed that is off, a soft 404), not a
            // broken data file: the site is healthy, and cron mails warnings.
            guard document.kind != .html else { return Reading() }
            let (photos, title) = try JSONReader.photosAndTitle(document.bytes)
            return Reading(findings: ScriptFindings(photos: photos), title: title)
        } catch let failure as FetchFailure {
            return Reading(failure: "data file \(url): \(failure.detail) (\(failure.reason))")
        } catch {
            return Reading(failure: "cannot read the data file \(url): \(error)")
        }
    }
}

/// The readings of scripts and data files, by URL, for the whole run: the first page to name
/// one starts its reading and every later page awaits the same task (a table of in-flight work
/// keyed by request, as an image pipeline shares one download between callers).
private actor Readings {
    private var tasks: [CanonicalURL: Task<PageResources.Reading, Never>] = [:]

    func reading(
        of url: CanonicalURL, read: @escaping @Sendable () async -> PageResources.Reading
    ) async -> PageResources.Reading {
        if let task = tasks[url] { return await task.value }
        let task = Task { await read() }
        tasks[url] = task
        return await task.value
    }
}
