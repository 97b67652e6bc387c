import Logging
import MirrorCore
import MirrorFetch

/// How a load ended, in the vocabulary of the stages' log (`Logger+Events`).
extension Logger {
    /// How loading an accepted key ended; `guess`: no document showed it as an image, so a
    /// failure is `unconfirmed` and fails nothing.
    package func outcome(_ outcome: ImageLoader.Outcome, for key: CanonicalURL, guess: Bool = false) {
        switch outcome {
        case .failed(let failure) where guess && !failure.reason.isPolicy && !failure.isLocalWrite:
            info("guessed key \(key): unconfirmed, not an image (\(failure.reason): \(failure.detail))")
        case .stored(let image, .network): info("image \(key): downloaded \(image.byteCount) bytes as \(image.path)")
        case .stored(let image, .disk): info("image \(key): unchanged (\(image.path))")
        case .failed(let failure): info("image \(key): failed \(failure.reason): \(failure.detail)")
        case .storeFailed(let message): info("image \(key): not stored: \(message)")
        case .probed: info("image \(key): new or changed (dry run: not downloaded)")
        case .page(let page): info("link \(key): an HTML page (\(page.bytes.count) bytes), read as a page")
        }
    }
}
