import Crypto
import Foundation

/// An image key found by the crawler, with the catalog text of this sighting.
public struct Discovery: Sendable {
    public var key: CanonicalURL
    public var reference: ImageReference
}

/// Settings of the crawl.
public struct CrawlConfiguration: Sendable {
    /// `--feed`: read this feed or listing instead of discovering feeds. Default: nil.
    public var feed: CanonicalURL?
    /// `--max-pages`: HTML pages fetched at most, the start page included. Default: 50.
    public var maxPages: Int = 50

    public init(feed: CanonicalURL? = nil, maxPages: Int = 50) {
        self.feed = feed
        self.maxPages = maxPages
    }
}

/// The source could not be crawled: the start page, the feed or the listing could not be
/// fetched or read. The run stops and the mirror is left as it was (exit 3).
public struct CrawlError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// What the crawl saw besides images.
struct CrawlSummary: Sendable {
    var pages = 0
    var feeds = 0
    /// Pages after the first that could not be fetched or read (each makes the exit status 1).
    var pageFailures: [String] = []
    /// References whose URL could not be read at all.
    var unusableReferences = 0
}

/// Fetches the gallery's pages (start page, `rel="next"` and numbered page links within the
/// source's directory) and its feeds or listing, and emits every image reference as a key.
struct Crawler: Sendable {
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
    var cache: DocumentCache? = nil
    /// robots.txt, for the sitemaps it names; nil to skip sitemap discovery.
    var robots: RobotsCache? = nil
    /// Sitemaps read at most (an index may list many).
    static let maxSitemaps = 100

    static let pageAccept = "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"
    static let feedAccept =
        "application/rss+xml,application/atom+xml,application/feed+json,application/json;q=0.9,application/xml;q=0.8,*/*;q=0.5"
    /// Schemes that name no fetchable resource (inline data, scripts); skipped, not keys.
    static let inertSchemes: Set<String> = ["data", "javascript", "about", "blob", "mailto", "tel"]

    /// Fetches the start page; failure means the source cannot be crawled.
    func fetchStart() async throws(CrawlError) -> FetchedDocument {
        do {
            return try await session.document(source, accept: Self.pageAccept, gate: startGate, cache: cache)
        } catch {
            throw CrawlError(message: "cannot crawl \(source): \(error.detail) (\(error.reason))")
        }
    }

    /// Crawls from the fetched start page, calling `emit` for every image reference in order.
    func crawl(start: FetchedDocument, emit: @escaping @Sendable (Discovery) async -> Void) async throws(CrawlError)
        -> CrawlSummary
    {
        var summary = CrawlSummary()
        var feeds: [CanonicalURL] = configuration.feed.map { [$0] } ?? []
        var seenFeeds = Set(feeds)
        if start.kind == .json || start.kind == .xml {
            // The source is itself a feed or listing: read it as one.
            try await readFeed(start, summary: &summary, emit: emit)
        } else {
            var queue: [CanonicalURL] = [start.url]
            var visited: Set<CanonicalURL> = [source, start.url]
            var next = 0
            // `/gallery/` and `/gallery/?page=1` are often one page; scan each body once.
            var scannedBodies: Set<String> = []
            while next < queue.count, summary.pages < configuration.maxPages {
                let url = queue[next]
                next += 1
                let document: FetchedDocument
                if next == 1 {
                    document = start
                } else {
                    do {
                        document = try await session.document(url, accept: Self.pageAccept, gate: gate, cache: cache)
                    } catch {
                        summary.pageFailures.append("page \(url): \(error.detail) (\(error.reason))")
                        continue
                    }
                }
                summary.pages += 1
                progress.update { $0.pagesCrawled += 1 }
                guard scannedBodies.insert(SHA256.hash(data: document.bytes).hexString).inserted else { continue }
                let scan: PageScan
                do {
                    scan = try HTMLScanner.scan(document.bytes, url: document.url.string, encoding: document.charset)
                } catch {
                    if next == 1 { throw CrawlError(message: "cannot read \(url) as HTML: \(error)") }
                    summary.pageFailures.append("page \(url): \(error)")
                    continue
                }
                let base = scan.baseHref.flatMap { CanonicalURL($0, relativeTo: document.url) } ?? document.url
                for reference in scan.images {
                    await emitReference(reference, base: base, summary: &summary, emit: emit)
                }
                if configuration.feed == nil {
                    for link in scan.feeds {
                        guard let feed = CanonicalURL(link.href, relativeTo: base), feed.isWeb, !seenFeeds.contains(feed) else {
                            continue
                        }
                        seenFeeds.insert(feed)
                        feeds.append(feed)
                    }
                }
                for link in scan.pageLinks {
                    guard let page = CanonicalURL(link, relativeTo: base), isWithinSite(page), !visited.contains(page) else {
                        continue
                    }
                    visited.insert(page)
                    queue.append(page)
                }
            }
        }
        for feed in feeds {
            if let refusal = await gate(feed) {
                summary.pageFailures.append("feed \(feed) is \(refusal); not read")
                continue
            }
            try await readFeed(at: feed, summary: &summary, emit: emit)
        }
        if configuration.feed == nil, let robots {
            await readSitemaps(named: robots.policy(for: source), summary: &summary, emit: emit)
        }
        return summary
    }

    /// Reads the sitemaps robots.txt names (and those their indexes list) for image entries.
    /// A sitemap that cannot be read is a warning, not an outage: it is an extra way in.
    private func readSitemaps(
        named robots: RobotsTxt, summary: inout CrawlSummary, emit: @Sendable (Discovery) async -> Void
    ) async {
        guard let robotsURL = CanonicalURL(source.origin + "/robots.txt") else { return }
        var queue = robots.sitemaps.compactMap { CanonicalURL($0, relativeTo: robotsURL) }
        var seen = Set(queue)
        var read = 0
        while !queue.isEmpty, read < Self.maxSitemaps {
            let sitemap = queue.removeFirst()
            read += 1
            if let refusal = await gate(sitemap) {
                summary.pageFailures.append("sitemap \(sitemap) is \(refusal); not read")
                continue
            }
            let scan: FeedScanner.Scan
            do {
                let document = try await session.document(
                    sitemap, accept: "application/xml,text/xml;q=0.9,*/*;q=0.5", gate: gate, cache: cache)
                scan = try FeedScanner.scan(document.bytes, url: document.url.string)
                for child in scan.sitemaps.compactMap({ CanonicalURL($0, relativeTo: document.url) })
                where seen.insert(child).inserted {
                    queue.append(child)
                }
                summary.feeds += 1
                progress.update { $0.feedsRead += 1 }
                for reference in scan.images {
                    await emitReference(reference, base: document.url, summary: &summary, emit: emit)
                }
            } catch let error as FetchFailure {
                summary.pageFailures.append("sitemap \(sitemap): \(error.detail) (\(error.reason))")
            } catch {
                summary.pageFailures.append("sitemap \(sitemap): \(error)")
            }
        }
    }

    /// What reading one feed found.
    private struct FeedResult: Sendable {
        /// Set when the body was not XML and was read whole instead of streamed.
        var document: FetchedDocument?
        var sitemaps: [String] = []
        var unusable = 0
    }

    /// Reads the feed or listing at `url`. An XML feed streams: its body goes into the SAX
    /// parser as it arrives and each item's keys are emitted as soon as the item closes, so
    /// memory stays bounded however long the feed is, and downloads start before it ends.
    /// JSON listings, and anything that is not XML, are read whole.
    private func readFeed(
        at url: CanonicalURL, summary: inout CrawlSummary, emit: @escaping @Sendable (Discovery) async -> Void
    ) async throws(CrawlError) {
        let stored = await cache?.validators(for: url)
        let headers = [("Accept", Self.feedAccept), ("Accept-Encoding", "gzip, deflate")] + (stored?.conditionalHeaders ?? [])
        let limit = session.configuration.maxDocumentBytes
        let clock = TransferClock()
        let cache = self.cache
        let result: FeedResult
        do {
            result = try await session.get(
                url, headers: headers, deadline: session.configuration.documentDeadline, gate: gate, clock: clock
            ) { (success: HTTPSession.Success) async throws(HTTPSession.BodyError) -> FeedResult in
                if success.response.status.code == 304 {
                    guard let copy = await cache?.document(for: url) else {
                        throw .fatal(FetchFailure(.networkError, "\(url) answered 304 but no stored copy is left"))
                    }
                    return FeedResult(document: copy)
                }
                return try await Self.stream(success, limit: limit, clock: clock, cache: cache, requested: url, emit: emit)
            }
        } catch {
            throw CrawlError(
                message: "cannot read the feed \(url): \(error.detail)"
                    + (error.reason.rawValue == "unreadable" ? "" : " (\(error.reason))"))
        }
        if let document = result.document {
            try await readFeed(document, summary: &summary, emit: emit)
            return
        }
        summary.feeds += 1
        summary.unusableReferences += result.unusable
        progress.update { $0.feedsRead += 1 }
    }

    private static func stream(
        _ success: HTTPSession.Success, limit: Int, clock: TransferClock, cache: DocumentCache?, requested: CanonicalURL,
        emit: @escaping @Sendable (Discovery) async -> Void
    ) async throws(HTTPSession.BodyError) -> FeedResult {
        let headers = success.response.headers
        let (mediaType, charset) = FetchedDocument.parseContentType(headers.first(name: "content-type"))
        var parser: FeedStreamParser?
        var buffered: [UInt8] = []
        var total = 0
        var result = FeedResult()
        var writer: TemporaryFileWriter?
        var hasher = SHA256()
        defer { writer?.discard() }
        func deliver(_ references: [ImageReference]) async {
            clock.pause()
            defer { clock.resume() }
            for reference in references where !Self.isInert(reference) {
                if let discovery = Self.discovery(reference, base: success.url) {
                    await emit(discovery)
                } else {
                    result.unusable += 1
                }
            }
        }
        do {
            for try await buffer in success.response.body {
                total += buffer.readableBytes
                if total > limit {
                    throw HTTPSession.BodyError.fatal(FetchFailure(.tooLarge, "\(success.url) is larger than \(limit) bytes"))
                }
                if parser == nil {
                    buffered += buffer.readableBytesView
                    let probe = FetchedDocument(
                        url: success.url, mediaType: mediaType, charset: charset, bytes: Array(buffered.prefix(512)))
                    guard buffered.count >= 256 else { continue }
                    guard probe.kind == .xml else { continue }  // read whole; decided at the end
                    parser = FeedStreamParser(url: success.url.string)
                    if cache?.isWritable == true, let directory = cache?.directory {
                        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                        writer = try? TemporaryFileWriter(in: directory)
                    }
                    let chunk = buffered
                    buffered = []
                    hasher.update(data: chunk)
                    try chunk.withUnsafeBytes { try writer?.write($0) }
                    await deliver(try chunk.withUnsafeBytes { raw throws(MarkupError) in try parser!.feed(raw) })
                    continue
                }
                let references = try buffer.withUnsafeReadableBytes { raw throws(MarkupError) in
                    hasher.update(bufferPointer: raw)
                    try? writer?.write(raw)
                    return try parser!.feed(raw)
                }
                await deliver(references)
            }
        } catch let error as HTTPSession.BodyError {
            throw error
        } catch let error as MarkupError {
            throw .fatal(FetchFailure(RejectionReason(rawValue: "unreadable"), error.message))
        } catch {
            throw .interrupted(HTTPSession.classify(error, url: success.url))
        }
        guard let parser else {
            // Short or not XML: read whole, like any other document.
            let document = FetchedDocument(url: success.url, mediaType: mediaType, charset: charset, bytes: buffered)
            await cache?.store(
                document, for: requested,
                validators: Validators(etag: headers.first(name: "etag"), lastModified: headers.first(name: "last-modified")))
            return FeedResult(document: document)
        }
        do {
            await deliver(try parser.finish())
        } catch {
            throw .fatal(FetchFailure(RejectionReason(rawValue: "unreadable"), error.message))
        }
        result.sitemaps = parser.sitemaps
        if let file = writer, (try? file.finish()) != nil {
            writer = nil
            await cache?.store(
                file: file.url, sha256: hasher.finalize().hexString, for: requested, finalURL: success.url, mediaType: mediaType,
                charset: charset,
                validators: Validators(etag: headers.first(name: "etag"), lastModified: headers.first(name: "last-modified")))
        }
        return result
    }

    /// True for references that name no fetchable resource (`data:`, `javascript:`, ...).
    static func isInert(_ reference: ImageReference) -> Bool {
        // Bytes up to the first ":" only; the longest inert scheme has 10 letters.
        let utf8 = reference.url.utf8
        guard let colon = utf8.prefix(64).firstIndex(of: UInt8(ascii: ":")) else { return false }
        let scheme = String(decoding: utf8[..<colon], as: UTF8.self).trimmingSpaces
        return scheme.utf8.count <= 10 && inertSchemes.contains(scheme.lowercased())
    }

    /// The discovery for `reference` found in a document at `base`, or nil when its URL is
    /// unusable.
    static func discovery(_ reference: ImageReference, base: CanonicalURL) -> Discovery? {
        CanonicalURL(reference.url.trimmingSpaces, relativeTo: base).map { Discovery(key: $0, reference: reference) }
    }

    private func readFeed(
        _ document: FetchedDocument, summary: inout CrawlSummary, emit: @Sendable (Discovery) async -> Void
    ) async throws(CrawlError) {
        let references: [ImageReference]
        switch document.kind {
        case .json:
            do {
                references = try JSONReader.read(document.bytes)
            } catch {
                throw CrawlError(message: "cannot read the listing \(document.url): \(error)")
            }
        case .xml:
            do {
                references = try FeedScanner.scan(document.bytes, url: document.url.string).images
            } catch {
                throw CrawlError(message: "cannot read the feed \(document.url): \(error)")
            }
        case .html, .other:
            throw CrawlError(
                message:
                    "cannot read the feed \(document.url): it is \(document.mediaType ?? "not a feed"), not RSS, Atom or a JSON listing"
            )
        }
        summary.feeds += 1
        progress.update { $0.feedsRead += 1 }
        for reference in references {
            await emitReference(reference, base: document.url, summary: &summary, emit: emit)
        }
    }

    private func emitReference(
        _ reference: ImageReference, base: CanonicalURL, summary: inout CrawlSummary,
        emit: @Sendable (Discovery) async -> Void
    ) async {
        guard !Self.isInert(reference) else { return }
        guard let discovery = Self.discovery(reference, base: base) else {
            summary.unusableReferences += 1
            return
        }
        await emit(discovery)
    }

    /// Pages are followed only on the source's host and port, under the source's directory
    /// (like `wget --no-parent`).
    func isWithinSite(_ url: CanonicalURL) -> Bool {
        guard url.scheme == source.scheme, url.host == source.host, url.port == source.port else { return false }
        let directory =
            source.path.hasSuffix("/")
            ? source.path : String(source.path[...(source.path.lastIndex(of: "/") ?? source.path.startIndex)])
        return url.path.hasPrefix(directory) && !HTMLScanner.hasImageExtension(url.path)
    }
}
