import MirrorCore
import NIOCore

extension HTTPSession {
    /// Whether `success`'s `Content-Type` says HTML.
    package static func isPage(_ success: Success) -> Bool {
        let (mediaType, _) = FetchedDocument.parseContentType(success.response.headers.first(name: "content-type"))
        return mediaType.map(FetchedDocument.htmlTypes.contains) ?? false
    }

    /// The body of `success` as a page when its `Content-Type` says HTML, read whole (at most
    /// `maxDocumentBytes`); nil for any other type. A guessed image URL that answers with a
    /// page (a photo's own page: `/wiki/File:X.jpg`, an attachment page) is read this way,
    /// within the request that asked for an image, so it costs no second request.
    package func page(_ success: Success) async throws(BodyError) -> FetchedDocument? {
        let (mediaType, charset) = FetchedDocument.parseContentType(success.response.headers.first(name: "content-type"))
        guard let mediaType, FetchedDocument.htmlTypes.contains(mediaType) else { return nil }
        let limit = configuration.maxDocumentBytes
        try Self.refuseDeclaredLength(of: success, over: limit)
        var bytes: [UInt8] = []
        do {
            for try await buffer in success.body {
                guard bytes.count + buffer.readableBytes <= limit else {
                    throw BodyError.fatal(FetchFailure(.tooLarge, "\(success.url) is larger than \(limit) bytes"))
                }
                bytes += buffer.readableBytesView
            }
        } catch let error as BodyError {
            throw error
        } catch {
            throw .interrupted(Self.classify(error, url: success.url))
        }
        return FetchedDocument(url: success.url, mediaType: mediaType, charset: charset, bytes: bytes)
    }
}

extension HTTPSession {
    /// Refuses a response whose `Content-Length` already says it is larger than `limit`, at its
    /// headers: a 2 GB "page" costs no more than its headers, however slowly it would arrive.
    /// (A compressed body is at most a few bytes longer than what it inflates to.)
    package static func refuseDeclaredLength(of success: Success, over limit: Int) throws(BodyError) {
        guard let declared = success.response.headers.first(name: "content-length").flatMap({ Int64($0.trimmingSpaces) }),
            declared > Int64(limit)
        else { return }
        throw .fatal(FetchFailure(.tooLarge, "\(success.url) declares \(declared) bytes, more than \(limit)"))
    }
}
