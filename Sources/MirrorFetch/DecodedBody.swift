import AsyncHTTPClient
import MirrorCore
import NIOCore
import NIOHTTPCompression

/// A response body as the crawler reads it: every received byte counted by the transfer's
/// `TransferMeter` (for `--speed-limit`), `Content-Encoding: br` decoded (gzip and deflate are
/// decoded by the client already), and an inflation bomb turned into `too-large`.
package struct DecodedBody: AsyncSequence, Sendable {
    package typealias Element = ByteBuffer

    let response: HTTPClientResponse
    let meter: TransferMeter
    let url: CanonicalURL
    /// The inflated size refused, for the message. Default in `FetchConfiguration.maxDocumentBytes`.
    let inflationLimit: Int

    private var isBrotli: Bool {
        response.headers[canonicalForm: "content-encoding"].contains { $0.lowercased() == "br" }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: response.body.makeAsyncIterator(), meter: meter, url: url, inflationLimit: inflationLimit,
            decoder: isBrotli ? BrotliDecoder() : nil, brotli: isBrotli)
    }

    package struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator
        let meter: TransferMeter
        let url: CanonicalURL
        let inflationLimit: Int
        let decoder: BrotliDecoder?
        let brotli: Bool
        var inflated = 0

        package mutating func next() async throws -> ByteBuffer? {
            if brotli, decoder == nil {
                throw HTTPSession.BodyError.fatal(FetchFailure(.networkError, "\(url): cannot start a brotli decoder"))
            }
            while true {
                if let decoder {
                    let step: BrotliDecoder.Step
                    do {
                        step = try decoder.next()
                    } catch {
                        throw HTTPSession.BodyError.fatal(FetchFailure(.networkError, "\(url): the brotli body is corrupt"))
                    }
                    if case .output(let bytes) = step {
                        inflated += bytes.count
                        if inflated > inflationLimit { throw Self.bomb(url, inflationLimit) }
                        return ByteBuffer(bytes: bytes)
                    }
                }
                let buffer: ByteBuffer?
                do {
                    buffer = try await base.next()
                } catch NIOHTTPDecompression.DecompressionError.limit {
                    throw HTTPSession.BodyError.fatal(
                        FetchFailure(
                            .tooLarge,
                            "\(url) inflates to more than \(HTTPClients.maxDecompressionRatio) times its compressed size (a decompression bomb)"
                        ))
                }
                guard let buffer else {
                    if let decoder, !decoder.isFinished {
                        throw HTTPSession.BodyError.interrupted(FetchFailure(.truncated, "\(url): the brotli body ends early"))
                    }
                    return nil
                }
                meter.add(buffer.readableBytes)
                guard let decoder else { return buffer }
                decoder.feed(buffer)
            }
        }

        private static func bomb(_ url: CanonicalURL, _ limit: Int) -> HTTPSession.BodyError {
            .fatal(FetchFailure(.tooLarge, "\(url) inflates to more than \(limit) bytes"))
        }
    }
}
