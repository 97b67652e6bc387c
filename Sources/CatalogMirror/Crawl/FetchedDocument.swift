import AsyncHTTPClient
import NIOCore

/// A page, feed, listing or robots.txt, read whole (bounded) into memory.
struct FetchedDocument: Sendable {
    /// The URL the body finally came from (after redirects); relative URLs resolve against it.
    var url: CanonicalURL
    /// The media type of `Content-Type`, lower-cased, without parameters.
    var mediaType: String?
    /// The `charset` parameter of `Content-Type`, if any.
    var charset: String?
    var bytes: [UInt8]

    /// The media type (lower-cased, without parameters) and the `charset` parameter of a
    /// `Content-Type` header.
    static func parseContentType(_ header: String?) -> (mediaType: String?, charset: String?) {
        let parts = (header ?? "").split(separator: ";").map { $0.trimmingSpaces }
        let mediaType = parts.first.flatMap { $0.isEmpty ? nil : $0.lowercased() }
        let charset = parts.dropFirst().first { $0.lowercased().hasPrefix("charset=") }
            .map { String($0.dropFirst("charset=".count)).trimmingCharacters(in: ["\"", "'", " "]) }
        return (mediaType, charset)
    }

    /// What the body is, by its media type and, when that is vague, by its first bytes.
    enum Kind: Equatable { case html, xml, json, other }

    var kind: Kind {
        var start = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if start.starts(with: [0xEF, 0xBB, 0xBF]) {
            start = start.dropFirst(3).drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        }
        let prefix = String(decoding: start.prefix(256), as: UTF8.self).lowercased()
        switch mediaType {
        case "text/html", "application/xhtml+xml": return .html
        case .some(let type) where type.hasSuffix("json"): return .json
        default: break
        }
        if prefix.hasPrefix("{") || prefix.hasPrefix("[") { return .json }
        if prefix.hasPrefix("<!doctype html") || prefix.hasPrefix("<html") { return .html }
        if prefix.hasPrefix("<?xml") || prefix.hasPrefix("<rss") || prefix.hasPrefix("<feed") || prefix.hasPrefix("<rdf") {
            return .xml
        }
        if let type = mediaType, type.hasSuffix("xml") { return .xml }
        return prefix.hasPrefix("<") ? .html : .other
    }
}

extension HTTPSession {
    /// GETs a document, decompressing gzip/deflate, reading at most `maxDocumentBytes`. With a
    /// cache, the request is conditional and a 304 returns the stored copy.
    func document(
        _ url: CanonicalURL, accept: String, gate: @escaping RequestGate, cache: DocumentCache? = nil
    ) async throws(FetchFailure) -> FetchedDocument {
        let stored = await cache?.validators(for: url)
        let headers = [("Accept", accept), ("Accept-Encoding", "gzip, deflate")] + (stored?.conditionalHeaders ?? [])
        let limit = configuration.maxDocumentBytes
        return try await get(url, headers: headers, deadline: configuration.documentDeadline, gate: gate) {
            (success: Success) async throws(BodyError) -> FetchedDocument in
            if success.response.status.code == 304 {
                guard let copy = await cache?.document(for: url) else {
                    throw .fatal(FetchFailure(.networkError, "\(url) answered 304 but no stored copy is left"))
                }
                return copy
            }
            var bytes: [UInt8] = []
            do {
                for try await buffer in success.response.body {
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
