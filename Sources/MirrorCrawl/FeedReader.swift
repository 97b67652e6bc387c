import Foundation
import MirrorCore
import MirrorFetch
import MirrorMarkup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads feeds, JSON documents and sitemaps. Each is downloaded whole into a file first, so its
/// request ends and frees its connection slot before any of it is parsed (a streamed feed that
/// emitted keys while holding the slot could wait on its own downloads with one connection per
/// host). XML is then parsed from the file in 64 KB chunks through libxml2's push parser, so a
/// feed of 100,000 items needs the memory of one item; keys are emitted as items close.
struct FeedReader: Sendable {
    let session: HTTPSession
    let gate: RequestGate
    let cache: DocumentCache?
    /// Where downloads are written before they are read.
    let directory: URL

    static let accept =
        "application/rss+xml,application/atom+xml,application/feed+json,application/json;q=0.9,application/xml;q=0.8,*/*;q=0.5"
    static let sitemapAccept = "application/xml,text/xml;q=0.9,*/*;q=0.5"
    static let chunkSize = 64 * 1024

    /// What reading one document found besides its images.
    struct Reading: Sendable {
        var kind: CrawlSummary.Document.Kind
        var url: CanonicalURL
        /// Sitemaps a sitemap index lists.
        var sitemaps: [CanonicalURL] = []
        /// References whose URL could not be read.
        var unusable = 0
        var warnings: [String] = []
    }

    /// A document that could not be read, in one line naming it.
    struct Failure: Error, Sendable {
        var message: String
        /// The server answered that it is not there (4xx: `Crawler.isDeadLink`).
        var isDeadLink = false
        /// The server answered with an HTML page: an advertised feed that is off (a wiki's
        /// `Special:RecentChanges?feed=atom` answers its special page).
        var isPage = false
        /// The request was never sent: the scope or robots.txt refuses the URL (a policy, no
        /// failure of the source).
        var isRefused = false
    }

    /// Fetches and reads the document at `url`, emitting its images as document `number`.
    func read(
        at url: CanonicalURL, accept: String = FeedReader.accept, number: Int,
        emit: @Sendable (Discovery) async -> Void
    ) async throws(Failure) -> Reading {
        if let refusal = await gate(url) { throw Failure(message: "\(url) is \(refusal); not read", isRefused: true) }
        let download: DownloadedDocument
        do {
            download = try await session.download(url, accept: accept, gate: gate, cache: cache, directory: directory)
        } catch {
            throw Failure(
                message: "cannot read \(url): \(error.detail) (\(error.reason))", isDeadLink: Crawler.isDeadLink(error.reason))
        }
        defer { if download.isFresh { try? FileManager.default.removeItem(at: download.file) } }
        let reading = try await read(download, number: number, emit: emit)
        await cache?.keep(download, for: url)
        return reading
    }

    /// Reads a document downloaded already (the source itself, given as a feed or listing), then
    /// keeps it for the next run's conditional request, as `read(at:)` does.
    func read(
        downloaded download: DownloadedDocument, for url: CanonicalURL, number: Int, emit: @Sendable (Discovery) async -> Void
    ) async throws(Failure) -> Reading {
        defer { if download.isFresh { try? FileManager.default.removeItem(at: download.file) } }
        let reading = try await read(download, number: number, emit: emit)
        await cache?.keep(download, for: url)
        return reading
    }

    private func read(_ download: DownloadedDocument, number: Int, emit: @Sendable (Discovery) async -> Void)
        async throws(Failure) -> Reading
    {
        let path = download.file.path
        // JSON is read whole, within the limit of what is held in memory; a feed or a sitemap
        // streams from the file, whatever its size.
        let limit = session.configuration.maxDocumentBytes
        if download.kind == .json, let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int,
            size > limit
        {
            throw Failure(
                message:
                    "cannot read the listing \(download.url): \(size) bytes, more than the \(limit) a document read whole may be (raise --max-document-size) (too-large)"
            )
        }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(message: "cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: Self.chunkSize)
        return try await read(
            kind: download.kind, url: download.url, mediaType: download.mediaType, charset: download.charset, number: number,
            emit: emit,
            nextChunk: { () throws(Failure) -> ArraySlice<UInt8>? in
                while true {
                    let got = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                    if got < 0, errno == EINTR { continue }
                    if got < 0 { throw Failure(message: "cannot read \(path): \(String(cString: strerror(errno)))") }
                    return got == 0 ? nil : buffer[..<got]
                }
            }, whole: { Array(FileManager.default.contents(atPath: path) ?? Data()) })
    }

    /// Reads XML as a stream of chunks from `chunks`, or JSON whole from `whole`.
    private func read(
        kind: FetchedDocument.Kind, url: CanonicalURL, mediaType: String?, charset: String?, number: Int,
        emit: @Sendable (Discovery) async -> Void,
        nextChunk: () throws(Failure) -> ArraySlice<UInt8>?, whole: () -> [UInt8]
    ) async throws(Failure) -> Reading {
        var reading = Reading(kind: .feed, url: url)
        func deliver(_ references: [ImageReference]) async {
            for reference in references where !Crawler.isInert(reference) {
                guard let key = reference.resolvedKey ?? CanonicalURL(reference.url, relativeTo: url) else {
                    reading.unusable += 1
                    continue
                }
                await emit(Discovery(key: key, reference: reference, document: number))
            }
        }
        switch kind {
        case .xml:
            let parser = FeedStreamParser(url: url.string, charset: charset)
            while let chunk = try nextChunk() {
                let parsed = chunk.withUnsafeBytes { raw in Result { () throws(MarkupError) in try parser.feed(raw) } }
                switch parsed {
                case .success(let references): await deliver(references)
                case .failure(let error): throw Failure(message: "cannot read the feed \(url): \(error.message)")
                }
            }
            let last = Result { () throws(MarkupError) in try parser.finish() }
            switch last {
            case .success(let references): await deliver(references)
            case .failure(let error): throw Failure(message: "cannot read the feed \(url): \(error.message)")
            }
            if parser.kind == .sitemap { reading.kind = .sitemap }
            // Entity declarations and recovered ill-formedness: read anyway, said once each.
            reading.warnings += parser.warnings
            reading.sitemaps = parser.sitemaps.compactMap { CanonicalURL($0, relativeTo: url) }
        case .json:
            let references: [ImageReference]
            do {
                references = try JSONReader.read(whole())
            } catch {
                throw Failure(message: "cannot read the listing \(url): \(error)")
            }
            reading.kind = .listing
            await deliver(references)
        case .html:
            // An advertised feed that answers with a page (a wiki's special page whose feed is
            // off): the caller decides, as the page is the site's own and healthy.
            throw Failure(message: "cannot read the feed \(url): it is an HTML page, not RSS, Atom or JSON", isPage: true)
        case .other:
            // An advertised feed that answers with something else is the source's broken link,
            // not an outage.
            throw Failure(
                message: "cannot read the feed \(url): it is \(mediaType ?? "not a feed"), not RSS, Atom or JSON",
                isDeadLink: true)
        }
        return reading
    }
}
