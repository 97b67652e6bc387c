import AsyncHTTPClient
import Crypto
import Foundation
import MirrorCore
import MirrorEmbedded
import MirrorFetch
import NIOCore
import NIOHTTP1

/// What a source delivered.
package enum Download: Sendable, Equatable {
    /// New bytes, checked, in a temporary file.
    case file(DownloadedFile)
    /// 304: the stored copy is current; the response's validators (or the request's).
    case notModified(Validators)
    /// A dry run's probe found the image reachable and new or changed; no body was requested.
    case probed
    /// A guessed key (`ImageRequest.isGuess`) answered with an HTML page, read whole (at most
    /// `FetchConfiguration.maxDocumentBytes`): a page to crawl, not an image.
    case page(FetchedDocument)
}

/// Where image bytes come from. The HTTP implementation is `HTTPImageSource`; tests use fakes
/// that count calls and can pause, to prove coalescing without timing.
package protocol ImageSource: Sendable {
    /// Downloads `request.key` into a new file inside the folder at path `directory`, checks
    /// it, and returns it; answers `.notModified` when a conditional request finds the stored
    /// copy current; or says why not. Never leaves a partial file behind. (A path, not a `URL`:
    /// reading a `URL`'s path back for every image is work a resync does per image.)
    func download(_ request: ImageRequest, into directory: String) async -> Result<Download, FetchFailure>

    /// Downloads each of `requests` as `download` would, in the same order: for a batch of
    /// conditional requests (a resync's revalidation), which a source may send together.
    func revalidate(_ requests: [ImageRequest], into directory: String) async -> [Result<Download, FetchFailure>]
}

extension ImageSource {
    /// Each request on its own, all at once.
    package func revalidate(_ requests: [ImageRequest], into directory: String) async -> [Result<Download, FetchFailure>] {
        await withTaskGroup(of: (Int, Result<Download, FetchFailure>).self) { group in
            for (index, request) in requests.enumerated() {
                group.addTask { (index, await download(request, into: directory)) }
            }
            var results = [Result<Download, FetchFailure>?](repeating: nil, count: requests.count)
            for await (index, result) in group { results[index] = result }
            return results.map { $0 ?? .failure(FetchFailure(.networkError, "not asked")) }
        }
    }
}

/// Downloads over HTTP: streamed to a temporary file while hashing, `--max-size` enforced from
/// `Content-Length` and while streaming, completeness checked before the file is handed on.
package struct HTTPImageSource: ImageSource {
    let session: HTTPSession
    let gate: RequestGate
    /// `--max-size` in bytes, or nil.
    let maxSize: Int64?
    /// Bounds the transfers through async-http-client to `--concurrency` when the engine keeps
    /// more loads in flight for the pipelined client; nil when it does not.
    var slots: TransferSlots? = nil

    package init(session: HTTPSession, gate: @escaping RequestGate, maxSize: Int64?, slots: TransferSlots? = nil) {
        self.session = session
        self.gate = gate
        self.maxSize = maxSize
        self.slots = slots
    }

    package func download(_ request: ImageRequest, into directory: String) async -> Result<Download, FetchFailure> {
        let headers = Self.headers(request)
        switch await pipelined(request, into: directory) {
        case .answered(let result): return result
        case .retry(let attempt): return await fullInSlot(request, headers: headers, after: attempt, into: directory)
        case .fallback: return await fullInSlot(request, headers: headers, after: nil, into: directory)
        }
    }

    /// A batch of revalidations: those the pipelined client can carry go together
    /// (`PipelinedClient.get(batch:)`); whatever it does not settle (a redirect, a status to
    /// retry, a lost connection), and every request it cannot carry, goes through the full
    /// client on its own, as `download` would send it.
    package func revalidate(_ requests: [ImageRequest], into directory: String) async -> [Result<Download, FetchFailure>] {
        var results = [Result<Download, FetchFailure>?](repeating: nil, count: requests.count)
        var pending: [(index: Int, after: HTTPSession.Attempt?)] = []
        var carried: [Int] = []
        if let client = session.clients.pipelined {
            for (index, request) in requests.enumerated() {
                if await isPipelined(request.key) { carried.append(index) } else { pending.append((index, nil)) }
            }
            let answers = await client.get(batch: carried.map { (requests[$0].key, requestFields(requests[$0])) })
            for (index, answer) in zip(carried, answers) {
                switch decide(answer, for: requests[index], into: directory) {
                case .answered(let result): results[index] = result
                case .retry(let attempt): pending.append((index, attempt))
                case .fallback: pending.append((index, nil))
                }
            }
        } else {
            pending = requests.indices.map { ($0, nil) }
        }
        await withTaskGroup(of: (Int, Result<Download, FetchFailure>).self) { group in
            for (index, attempt) in pending {
                let request = requests[index]
                group.addTask {
                    (index, await fullInSlot(request, headers: Self.headers(request), after: attempt, into: directory))
                }
            }
            for await (index, result) in group { results[index] = result }
        }
        return results.map { $0 ?? .failure(FetchFailure(.networkError, "not asked")) }
    }

    /// The headers of an image GET (conditional with the request's validators).
    private static func headers(_ request: ImageRequest) -> [(String, String)] {
        [
            ("Accept", "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.5"),
            // Images are already compressed; identity keeps Content-Length comparable to the body.
            ("Accept-Encoding", "identity"),
        ] + (request.validators?.conditionalHeaders ?? [])
    }

    /// Through async-http-client, in one of the `--concurrency` transfer slots when there are slots.
    private func fullInSlot(
        _ request: ImageRequest, headers: [(String, String)], after earlier: HTTPSession.Attempt?, into directory: String
    ) async -> Result<Download, FetchFailure> {
        if let slots {
            return await slots.withSlot { await full(request, headers: headers, after: earlier, into: directory) }
        }
        return await full(request, headers: headers, after: earlier, into: directory)
    }

    /// Through async-http-client: redirects, retries, deadlines and named failures. `earlier`:
    /// how the pipelined attempt ended, when it is to be retried.
    private func full(
        _ request: ImageRequest, headers: [(String, String)], after earlier: HTTPSession.Attempt?, into directory: String
    ) async -> Result<Download, FetchFailure> {
        do {
            let download = try await session.get(
                request.key, headers: headers, deadline: session.configuration.imageDeadline, gate: gate, after: earlier
            ) { (success: HTTPSession.Success) async throws(HTTPSession.BodyError) -> Download in
                if success.response.status.code == 304 {
                    let headers = success.response.headers
                    return .notModified(
                        Validators(
                            etag: headers.first(name: "etag") ?? request.validators?.etag,
                            lastModified: headers.first(name: "last-modified") ?? request.validators?.lastModified))
                }
                if request.isGuess, let page = try await session.page(success) { return .page(page) }
                return .file(try await receive(success, key: request.key, into: directory))
            }
            return .success(download)
        } catch {
            return .failure(error)
        }
    }

    private func receive(
        _ success: HTTPSession.Success, key: CanonicalURL, into directory: String
    ) async throws(HTTPSession.BodyError) -> DownloadedFile {
        var body = try ReceivedBody(headers: success.response.headers, key: key, maxSize: maxSize, into: directory)
        defer { body.discard() }
        do {
            for try await buffer in success.body { try body.take(buffer) }
        } catch let error as HTTPSession.BodyError {
            throw error
        } catch {
            let failure = HTTPSession.classify(error, url: key)
            throw .interrupted(
                failure.reason == .timeout ? failure : FetchFailure(.truncated, "\(key): the body ended early (\(error))"))
        }
        return try body.finish()
    }

    /// How the pipelined client's attempt ended.
    private enum PipelinedOutcome {
        /// Decided: a 304, a checked download, or a final failure.
        case answered(Result<Download, FetchFailure>)
        /// A status worth retrying (5xx, 429/503): the full client retries after the delay.
        case retry(HTTPSession.Attempt)
        /// Not handled here (not eligible, a redirect, a large or encoded body, a lost
        /// connection): the full client asks.
        case fallback
    }

    /// The plain cases through the pipelined client, decided as the full client decides them.
    private func pipelined(_ request: ImageRequest, into directory: String) async -> PipelinedOutcome {
        guard let client = session.clients.pipelined, await isPipelined(request.key) else { return .fallback }
        let answer = await client.get(request.key, headers: requestFields(request), conditional: request.validators != nil)
        return decide(answer, for: request, into: directory)
    }

    /// Whether a GET of `key` may go through the pipelined client: plain HTTP, no proxy, and
    /// nothing that paces requests (`--rate`, a `Crawl-delay`).
    private func isPipelined(_ key: CanonicalURL) async -> Bool {
        guard key.scheme == "http", session.configuration.rate == nil, session.clients.routes.proxy(for: key) == nil,
            !session.health.isGivenUp(key),
            session.clients.pipelined != nil
        else { return false }
        return await session.crawlDelay(key) == nil
    }

    /// The request's header fields for the pipelined client, Host included.
    private func requestFields(_ request: ImageRequest) -> HTTPHeaders {
        let key = request.key
        var fields = HTTPHeaders()
        fields.add(name: "Host", value: key.port.map { "\(key.host):\($0)" } ?? key.host)
        for (name, value) in session.requestHeaders(for: key, Self.headers(request)) { fields.add(name: name, value: value) }
        return fields
    }

    /// What the pipelined client's answer to `request` means, as the full client would decide it.
    private func decide(_ answer: PipelinedClient.Answer, for request: ImageRequest, into directory: String) -> PipelinedOutcome {
        let key = request.key
        let head: HTTPResponseHead
        let parts: [ByteBuffer]
        switch answer {
        case .response(let responseHead, let body): (head, parts) = (responseHead, body)
        case .fallback: return .fallback
        case .timedOut(let stalled):
            // Final, as in the full client: the deadline and the speed limit are per item.
            let limit = session.configuration.lowSpeed
            return .answered(
                .failure(
                    FetchFailure(
                        .timeout,
                        stalled
                            ? "\(key) was slower than \(limit.bytesPerSecond) bytes/s for \(limit.duration) (--speed-limit, --speed-time)"
                            : "\(key) did not finish within \(session.configuration.imageDeadline)")))
        }
        switch head.status.code {
        case 200 where request.isGuess:
            // A guess that is a page reads as one; one that is an image as the full client
            // receives it (the pipelined client's decision needs no second look).
            let (mediaType, charset) = FetchedDocument.parseContentType(head.headers.first(name: "content-type"))
            guard let mediaType, FetchedDocument.htmlTypes.contains(mediaType) else { fallthrough }
            let length = parts.reduce(0) { $0 + $1.readableBytes }
            guard length <= session.configuration.maxDocumentBytes else { return .fallback }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(length)
            for part in parts { bytes += part.readableBytesView }
            return .answered(.success(.page(FetchedDocument(url: key, mediaType: mediaType, charset: charset, bytes: bytes))))
        case 200:
            do throws(HTTPSession.BodyError) {
                var body = try ReceivedBody(headers: head.headers, key: key, maxSize: maxSize, into: directory)
                defer { body.discard() }
                for part in parts { try body.take(part) }
                return .answered(.success(.file(try body.finish())))
            } catch {
                switch error {
                case .fatal(let failure): return .answered(.failure(failure))
                case .interrupted(let failure): return .retry(.retryable(failure, after: nil))
                }
            }
        case 304 where request.validators != nil:
            return .answered(
                .success(
                    .notModified(
                        Validators(
                            etag: head.headers.first(name: "etag") ?? request.validators?.etag,
                            lastModified: head.headers.first(name: "last-modified") ?? request.validators?.lastModified))))
        case 400..<600:
            switch session.refusal(head.status, headers: head.headers, url: key) {
            case .final(let failure): return .answered(.failure(failure))
            case let retryable: return .retry(retryable)
            }
        default:
            // Redirects (their targets pass the gate there), other 2xx, a 304 nobody asked for.
            return .fallback
        }
    }
}

/// A response body being received: written to a new file in the download directory while it is
/// hashed, `--max-size` enforced, its first and last bytes kept for `ContentInspector`; at the
/// end the declared length and the format are checked before the file is handed on.
struct ReceivedBody {
    private let key: CanonicalURL
    private let maxSize: Int64?
    private let declared: Int64?
    private let etag: String?
    private let lastModified: String?
    private let writer: TemporaryFileWriter
    private var kept = false
    private var hasher = SHA256()
    private var count: Int64 = 0
    private var head: [UInt8] = []
    private var tail: [UInt8] = []

    init(headers: HTTPHeaders, key: CanonicalURL, maxSize: Int64?, into directory: String) throws(HTTPSession.BodyError) {
        let identity = (headers.first(name: "content-encoding") ?? "identity").lowercased() == "identity"
        let declared = identity ? headers.first(name: "content-length").flatMap { Int64($0.trimmingSpaces) } : nil
        if let maxSize, let declared, declared > maxSize {
            throw .fatal(FetchFailure(.tooLarge, "\(key) is \(declared) bytes, over --max-size \(maxSize)"))
        }
        do {
            writer = try TemporaryFileWriter(inPath: directory)
        } catch {
            throw .fatal(.localWrite(directory, error))
        }
        self.key = key
        self.maxSize = maxSize
        self.declared = declared
        etag = headers.first(name: "etag")
        lastModified = headers.first(name: "last-modified")
    }

    /// Adds the next part of the body.
    mutating func take(_ buffer: ByteBuffer) throws(HTTPSession.BodyError) {
        count += Int64(buffer.readableBytes)
        if let maxSize, count > maxSize {
            throw .fatal(FetchFailure(.tooLarge, "\(key) grew past --max-size \(maxSize) bytes"))
        }
        let failed: (any Error)? = buffer.withUnsafeReadableBytes { raw in
            hasher.update(bufferPointer: raw)
            if head.count < ContentInspector.headLength {
                head.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw.prefix(ContentInspector.headLength - head.count)))
            }
            // The last `tailLength` bytes so far, without walking the whole buffer.
            let keep = min(raw.count, ContentInspector.tailLength)
            let overflow = tail.count + keep - ContentInspector.tailLength
            if overflow > 0 { tail.removeFirst(overflow) }
            tail.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[(raw.count - keep)...]))
            do {
                try writer.write(raw)
                return nil
            } catch {
                return error
            }
        }
        if let failed { throw .fatal(.localWrite(writer.path, failed)) }
    }

    /// Checks the whole body (declared length, format) and closes its file, which is kept.
    mutating func finish() throws(HTTPSession.BodyError) -> DownloadedFile {
        if let declared, declared != count {
            throw .interrupted(FetchFailure(.truncated, "\(key) declared \(declared) bytes but sent \(count)"))
        }
        let format: ImageFormat
        let writer = self.writer
        switch ContentInspector.inspect(head: head, tail: tail, length: count, read: { writer.read(at: $0, count: $1) }) {
        case .success(let detected): format = detected
        case .failure(let failure): throw .fatal(FetchFailure(failure.reason, "\(key): \(failure.detail)"))
        }
        // Both read here, off the store's actor, from the head already in memory and the file
        // just written, through its descriptor while it is still open (after `finish`, each
        // read would open the file again): the store keeps them with the row (`DiskStorage.stage`).
        let dimensions = ImageHeader.dimensions(
            format, head: head, length: count, read: { writer.read(at: $0, count: $1) })
        let embedded = EmbeddedMetadataReader.read(head: head, length: count, read: { writer.read(at: $0, count: $1) })
        do {
            // Not flushed here: the store flushes every download at once before publishing.
            try writer.finish(flush: false)
        } catch {
            throw .fatal(.localWrite(writer.path, error))
        }
        kept = true
        return DownloadedFile(
            temporaryPath: writer.path, sha256: hasher.finalize().hexString, byteCount: count, format: format,
            etag: etag, lastModified: lastModified, dimensions: dimensions, embedded: embedded)
    }

    /// Removes the file unless `finish` succeeded.
    func discard() {
        if !kept { writer.discard() }
    }
}
