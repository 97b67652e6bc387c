import CBrotli
import NIOCore

/// Streams `Content-Encoding: br` through libbrotlidec, which async-http-client does not decode
/// (its decompressor knows gzip and deflate only). Output comes in pieces of at most
/// `chunkSize` bytes, so a small body that inflates to gigabytes never sits in memory at once;
/// the caller's own size cap then refuses it.
///
/// The only file that imports CBrotli. Owns the decoder state and frees it in `deinit`.
final class BrotliDecoder {
    /// Largest piece handed out by `next()`.
    static let chunkSize = 64 * 1024

    private let state: OpaquePointer
    private var input: [UInt8] = []
    private var consumed = 0
    private(set) var isFinished = false

    /// Nil when libbrotlidec cannot allocate a decoder.
    init?() {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { return nil }
        self.state = state
    }

    deinit { BrotliDecoderDestroyInstance(state) }

    /// What a step of decoding produced.
    enum Step {
        /// Decoded bytes (never empty).
        case output([UInt8])
        /// Everything given so far is decoded; feed more input.
        case needsInput
    }

    /// The error for a body that is not valid brotli.
    struct CorruptData: Error {}

    /// Queues compressed bytes; call `next()` until it answers `.needsInput`.
    func feed(_ buffer: ByteBuffer) {
        if consumed == input.count {
            input.removeAll(keepingCapacity: true)
            consumed = 0
        }
        input += buffer.readableBytesView
    }

    /// Decodes up to `chunkSize` bytes from the queued input.
    func next() throws(CorruptData) -> Step {
        if isFinished { return .needsInput }
        var output = [UInt8](repeating: 0, count: Self.chunkSize)
        var availableOut = output.count
        var availableIn = input.count - consumed
        let result = input.withUnsafeBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                var nextIn = inputBuffer.baseAddress.map { $0 + consumed }
                var nextOut = outputBuffer.baseAddress
                return BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
            }
        }
        consumed = input.count - availableIn
        let produced = Self.chunkSize - availableOut
        switch result {
        case BROTLI_DECODER_RESULT_ERROR:
            throw CorruptData()
        case BROTLI_DECODER_RESULT_SUCCESS:
            isFinished = true
        default:
            break
        }
        if produced > 0 { return .output(Array(output.prefix(produced))) }
        return .needsInput
    }
}
