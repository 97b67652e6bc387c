import AsyncHTTPClient
import Foundation
import MirrorCore
import MirrorFetch

/// The image source of a dry run: revalidates with conditional HEAD requests, so no image body
/// is ever requested. A 304 (or, without validators, an equal `Content-Length`) means unchanged.
/// A guessed key whose HEAD says HTML is a page, as in a real run: its body is read with a GET.
package struct ProbeImageSource: ImageSource {
    let session: HTTPSession
    let gate: RequestGate
    /// `--max-size`, checked against `Content-Length`.
    let maxSize: Int64?
    /// Sizes of the stored copies, for servers that send no validators.
    let storedSizes: @Sendable (CanonicalURL) async -> Int64?

    package init(
        session: HTTPSession, gate: @escaping RequestGate, maxSize: Int64?,
        storedSizes: @escaping @Sendable (CanonicalURL) async -> Int64?
    ) {
        self.session = session
        self.gate = gate
        self.maxSize = maxSize
        self.storedSizes = storedSizes
    }

    package func download(_ request: ImageRequest, into directory: String) async -> Result<Download, FetchFailure> {
        let storedSize = await storedSizes(request.key)
        do {
            let probe = try await session.get(
                request.key, method: .HEAD, headers: request.validators?.conditionalHeaders ?? [],
                deadline: session.configuration.documentDeadline, gate: gate
            ) { (success: HTTPSession.Success) async throws(HTTPSession.BodyError) -> Download? in
                let headers = success.response.headers
                let validators = Validators(etag: headers.first(name: "etag"), lastModified: headers.first(name: "last-modified"))
                if success.response.status.code == 304 { return .notModified(validators) }
                let length = headers.first(name: "content-length").flatMap { Int64($0) }
                if let maxSize, let length, length > maxSize {
                    throw .fatal(FetchFailure(.tooLarge, "\(request.key) is \(length) bytes, over --max-size \(maxSize)"))
                }
                if request.validators == nil, let storedSize, storedSize == length { return .notModified(validators) }
                // A page: read with a GET below (nil stands for it).
                if request.isGuess, HTTPSession.isPage(success) { return nil }
                return .probed
            }
            guard let probe else { return await session.page(at: request.key, gate: gate) }
            return .success(probe)
        } catch {
            return .failure(error)
        }
    }
}
