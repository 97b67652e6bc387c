import AsyncHTTPClient
import Crypto
import Foundation
import MirrorCore
import MirrorFetch
import NIOCore

extension HTTPSession {
    /// GETs a document, decompressing gzip/deflate, reading at most `maxDocumentBytes`. With a
    /// cache, the request is conditional and a 304 returns the stored copy. With `htmlOnly`, a
    /// response whose `Content-Type` says it is not HTML is dropped once its headers arrive
    /// (`unsupported-type`): a link to a large file costs no more than its headers.
    package func document(
        _ url: CanonicalURL, accept: String, gate: @escaping RequestGate, cache: DocumentCache? = nil, htmlOnly: Bool = false
    ) async throws(FetchFailure) -> FetchedDocument {
        let stored = await cache?.validators(for: url)
        let headers = [("Accept", accept), ("Accept-Encoding", "gzip, deflate, br")] + (stored?.conditionalHeaders ?? [])
        let limit = configuration.maxDocumentBytes
        return try await get(url, headers: headers, deadline: configuration.documentDeadline, gate: gate) {
            (success: Success) async throws(BodyError) -> FetchedDocument in
            if success.response.status.code == 304 {
                guard let copy = await cache?.document(for: url) else {
                    throw .fatal(FetchFailure(.networkError, "\(url) answered 304 but no stored copy is left"))
                }
                return copy
            }
            if htmlOnly,
                let type = FetchedDocument.parseContentType(success.response.headers.first(name: "content-type")).mediaType,
                !FetchedDocument.htmlTypes.contains(type)
            {
                throw .fatal(FetchFailure(.unsupportedType, "\(success.url) is \(type), not an HTML page"))
            }
            try Self.refuseDeclaredLength(of: success, over: limit)
            var bytes: [UInt8] = []
            // Room for the declared length at once (a compressed body's is a start), and no more
            // than a quarter to spare at the end: grown by doubling, a large feed's buffer was
            // far larger than the feed, held until the feed was read, at the run's peak.
            if let declared = success.response.headers.first(name: "content-length").flatMap({ Int($0.trimmingSpaces) }),
                declared > 0
            {
                bytes.reserveCapacity(min(declared, limit))
            }
            do {
                for try await buffer in success.body {
                    if bytes.count + buffer.readableBytes > limit {
                        throw BodyError.fatal(FetchFailure(.tooLarge, "\(success.url) is larger than \(limit) bytes"))
                    }
                    bytes += buffer.readableBytesView
                }
            } catch let error as BodyError {
                throw error
            } catch {
                throw .interrupted(HTTPSession.classify(error, url: success.url))
            }
            if bytes.capacity - bytes.count > bytes.count / 4 {
                var fitted: [UInt8] = []
                fitted.reserveCapacity(bytes.count)
                fitted += bytes
                bytes = fitted
            }
            let (mediaType, charset) = FetchedDocument.parseContentType(success.response.headers.first(name: "content-type"))
            let document = FetchedDocument(url: success.url, mediaType: mediaType, charset: charset, bytes: bytes)
            let headers = success.response.headers
            await cache?.store(
                document, for: url,
                validators: Validators(etag: headers.first(name: "etag"), lastModified: headers.first(name: "last-modified")))
            return document
        }
    }
}

/// A feed, listing or sitemap body written to a file (bounded), so it can be read after its
/// request has ended and its connection slot is free.
package struct DownloadedDocument: Sendable {
    /// The URL the body finally came from (after redirects).
    var url: CanonicalURL
    var mediaType: String?
    var charset: String?
    /// Where the body is.
    var file: URL
    /// True when `file` is this run's download (to be stored in the cache or deleted); false
    /// when it is the cache's stored copy (after a 304).
    var isFresh: Bool
    var sha256: String
    var validators: Validators

    /// The first bytes of the body, to tell what it is.
    func prefix(_ count: Int) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: file.path) else { return [] }
        defer { try? handle.close() }
        return Array((try? handle.read(upToCount: count)) ?? Data())
    }

    /// What the body is, by its media type and first bytes.
    var kind: FetchedDocument.Kind {
        FetchedDocument(url: url, mediaType: mediaType, charset: charset, bytes: prefix(512)).kind
    }
}

extension HTTPSession {
    /// GETs a document into a file in `directory`, decompressing gzip/deflate and reading at most
    /// `maxStreamedDocumentBytes` (no limit by default), hashing as it goes. With a cache, the request is conditional and a 304
    /// returns the stored copy's file. The body is read to its end before anyone parses it: no
    /// parsing happens while the request holds its host's connection slot.
    func download(
        _ url: CanonicalURL, accept: String, gate: @escaping RequestGate, cache: DocumentCache?, directory: URL
    ) async throws(FetchFailure) -> DownloadedDocument {
        let stored = await cache?.validators(for: url)
        let headers = [("Accept", accept), ("Accept-Encoding", "gzip, deflate, br")] + (stored?.conditionalHeaders ?? [])
        let limit = configuration.maxStreamedDocumentBytes.map { Int(clamping: $0) } ?? Int.max
        return try await get(url, headers: headers, deadline: configuration.documentDeadline, gate: gate) {
            (success: Success) async throws(BodyError) -> DownloadedDocument in
            if success.response.status.code == 304 {
                guard let copy = await cache?.storedFile(for: url) else {
                    throw .fatal(FetchFailure(.networkError, "\(url) answered 304 but no stored copy is left"))
                }
                return copy
            }
            try Self.refuseDeclaredLength(of: success, over: limit)
            let writer: TemporaryFileWriter
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                writer = try TemporaryFileWriter(in: directory)
            } catch {
                throw .fatal(FetchFailure(.networkError, "cannot write \(directory.path): \(error)"))
            }
            var hasher = SHA256()
            var total = 0
            do {
                for try await buffer in success.body {
                    total += buffer.readableBytes
                    if total > limit {
                        throw BodyError.fatal(FetchFailure(.tooLarge, "\(success.url) is larger than \(limit) bytes"))
                    }
                    try buffer.withUnsafeReadableBytes { raw in
                        hasher.update(bufferPointer: raw)
                        try writer.write(raw)
                    }
                }
                try writer.finish(flush: false)
            } catch let error as BodyError {
                writer.discard()
                throw error
            } catch let error as TemporaryFileWriter.WriteError {
                writer.discard()
                throw .fatal(FetchFailure(.networkError, "cannot write \(writer.path): \(error)"))
            } catch {
                writer.discard()
                throw .interrupted(HTTPSession.classify(error, url: success.url))
            }
            let headers = success.response.headers
            let (mediaType, charset) = FetchedDocument.parseContentType(headers.first(name: "content-type"))
            return DownloadedDocument(
                url: success.url, mediaType: mediaType, charset: charset, file: writer.url, isFresh: true,
                sha256: hasher.finalize().hexString,
                validators: Validators(etag: headers.first(name: "etag"), lastModified: headers.first(name: "last-modified")))
        }
    }
}
