import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore

/// The cache validators of a stored response (RFC 9110 section 8.8).
public struct Validators: Sendable, Equatable, Codable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// True when there is something to send a conditional request with.
    public var isEmpty: Bool { etag == nil && lastModified == nil }

    /// `If-None-Match` / `If-Modified-Since` headers for a conditional GET.
    var conditionalHeaders: [(String, String)] {
        var headers: [(String, String)] = []
        if let etag { headers.append(("If-None-Match", etag)) }
        if let lastModified { headers.append(("If-Modified-Since", lastModified)) }
        return headers
    }
}

/// What the loader asks a source for.
public struct ImageRequest: Sendable, Equatable {
    /// The key, also the URL requested.
    public var key: CanonicalURL
    /// Catalog title, used for the file name when the image is new.
    public var title: String?
    /// The length the listing declared, if any.
    public var declaredLength: Int64?
    /// Validators of the stored copy; with them the request is conditional.
    public var validators: Validators?

    public init(key: CanonicalURL, title: String? = nil, declaredLength: Int64? = nil, validators: Validators? = nil) {
        self.key = key
        self.title = title
        self.declaredLength = declaredLength
        self.validators = validators
    }
}

/// What a source delivered.
public enum Download: Sendable, Equatable {
    /// New bytes, checked, in a temporary file.
    case file(DownloadedFile)
    /// 304: the stored copy is current; the response's validators (or the request's).
    case notModified(Validators)
    /// A dry run's probe found the image reachable and new or changed; no body was requested.
    case probed
}

/// A complete, checked download waiting in the state directory to be stored.
public struct DownloadedFile: Sendable, Equatable {
    /// The temporary file, inside `.catalog-mirror/`.
    public var temporaryURL: URL
    /// Hex SHA-256 of the bytes.
    public var sha256: String
    /// Number of bytes.
    public var byteCount: Int64
    /// The detected format.
    public var format: ImageFormat
    /// The `ETag` response header.
    public var etag: String?
    /// The `Last-Modified` response header.
    public var lastModified: String?
}

/// Where image bytes come from. The HTTP implementation is `HTTPImageSource`; tests use fakes
/// that count calls and can pause, to prove coalescing without timing.
public protocol ImageSource: Sendable {
    /// Downloads `request.key` into a new file inside `directory`, checks it, and returns it;
    /// answers `.notModified` when a conditional request finds the stored copy current; or says
    /// why not. Never leaves a partial file behind.
    func download(_ request: ImageRequest, into directory: URL) async -> Result<Download, FetchFailure>
}

/// Downloads over HTTP: streamed to a temporary file while hashing, `--max-size` enforced from
/// `Content-Length` and while streaming, completeness checked before the file is handed on.
struct HTTPImageSource: ImageSource {
    let session: HTTPSession
    let gate: RequestGate
    /// `--max-size` in bytes, or nil.
    let maxSize: Int64?

    func download(_ request: ImageRequest, into directory: URL) async -> Result<Download, FetchFailure> {
        let headers =
            [
                ("Accept", "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9,*/*;q=0.5"),
                // Images are already compressed; identity keeps Content-Length comparable to the body.
                ("Accept-Encoding", "identity"),
            ] + (request.validators?.conditionalHeaders ?? [])
        do {
            let download = try await session.get(
                request.key, headers: headers, deadline: session.configuration.imageDeadline, gate: gate
            ) { (success: HTTPSession.Success) async throws(HTTPSession.BodyError) -> Download in
                if success.response.status.code == 304 {
                    let headers = success.response.headers
                    return .notModified(
                        Validators(
                            etag: headers.first(name: "etag") ?? request.validators?.etag,
                            lastModified: headers.first(name: "last-modified") ?? request.validators?.lastModified))
                }
                return .file(try await receive(success, key: request.key, into: directory))
            }
            return .success(download)
        } catch {
            return .failure(error)
        }
    }

    private func receive(
        _ success: HTTPSession.Success, key: CanonicalURL, into directory: URL
    ) async throws(HTTPSession.BodyError) -> DownloadedFile {
        let headers = success.response.headers
        let identity = (headers.first(name: "content-encoding") ?? "identity").lowercased() == "identity"
        let declared = identity ? headers.first(name: "content-length").flatMap { Int64($0.trimmingSpaces) } : nil
        if let maxSize, let declared, declared > maxSize {
            throw .fatal(FetchFailure(.tooLarge, "\(key) is \(declared) bytes, over --max-size \(maxSize)"))
        }
        let writer: TemporaryFileWriter
        do {
            writer = try TemporaryFileWriter(in: directory)
        } catch {
            throw .fatal(FetchFailure(.networkError, "cannot write into \(directory.path): \(error)"))
        }
        var keep = false
        defer { if !keep { writer.discard() } }
        var hasher = SHA256()
        var count: Int64 = 0
        var head: [UInt8] = []
        var tail: [UInt8] = []
        do {
            for try await buffer in success.body {
                count += Int64(buffer.readableBytes)
                if let maxSize, count > maxSize {
                    throw HTTPSession.BodyError.fatal(FetchFailure(.tooLarge, "\(key) grew past --max-size \(maxSize) bytes"))
                }
                try buffer.withUnsafeReadableBytes { raw in
                    hasher.update(bufferPointer: raw)
                    if head.count < ContentInspector.headLength {
                        head.append(
                            contentsOf: UnsafeRawBufferPointer(rebasing: raw.prefix(ContentInspector.headLength - head.count)))
                    }
                    // The last `tailLength` bytes so far, without walking the whole buffer.
                    let keep = min(raw.count, ContentInspector.tailLength)
                    let overflow = tail.count + keep - ContentInspector.tailLength
                    if overflow > 0 { tail.removeFirst(overflow) }
                    tail.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[(raw.count - keep)...]))
                    try writer.write(raw)
                }
            }
        } catch let error as HTTPSession.BodyError {
            throw error
        } catch let error as TemporaryFileWriter.WriteError {
            throw .fatal(FetchFailure(.networkError, "cannot write \(writer.url.path): \(error)"))
        } catch {
            let failure = HTTPSession.classify(error, url: key)
            throw .interrupted(
                failure.reason == .timeout ? failure : FetchFailure(.truncated, "\(key): the body ended early (\(error))"))
        }
        if let declared, declared != count {
            throw .interrupted(FetchFailure(.truncated, "\(key) declared \(declared) bytes but sent \(count)"))
        }
        let format: ImageFormat
        switch ContentInspector.inspect(head: head, tail: tail, length: count, read: { writer.read(at: $0, count: $1) }) {
        case .success(let detected): format = detected
        case .failure(let failure): throw .fatal(FetchFailure(failure.reason, "\(key): \(failure.detail)"))
        }
        do {
            // Not flushed here: the store flushes every download at once before publishing.
            try writer.finish(flush: false)
        } catch {
            throw .fatal(FetchFailure(.networkError, "cannot write \(writer.url.path): \(error)"))
        }
        keep = true
        let digest = hasher.finalize().hexString
        return DownloadedFile(
            temporaryURL: writer.url, sha256: digest, byteCount: count, format: format,
            etag: headers.first(name: "etag"), lastModified: headers.first(name: "last-modified"))
    }
}
