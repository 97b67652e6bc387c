import Logging

/// The events the stages log, each one line: `info` for what a stage decided (`--verbose`),
/// `debug` for every request (`--debug`). Kept together so the vocabulary of the log reads the
/// same from stage to stage.
extension Logger {
    /// A key seen for the first time and the validator chain's verdict on it; `guess`: the
    /// document only suggested it is an image (`ImageReference.isGuess`).
    func verdict(_ verdict: Verdict, for key: CanonicalURL, guess: Bool = false) {
        let kind = guess ? "guessed key" : "key"
        switch verdict {
        case .accepted: info("\(kind) \(key): accepted")
        case .rejected(let reason): info("\(kind) \(key): rejected \(reason)")
        case .duplicate: info("\(kind) \(key): duplicate")
        }
    }

    /// A verdict changed once the crawl was over and every page read: an accepted key found to
    /// be decoration, or a smaller rendition under `--variants largest`.
    func reconsidered(_ verdict: Verdict, for key: CanonicalURL) {
        if case .rejected(let reason) = verdict { info("key \(key): rejected \(reason) after the crawl") }
    }

    /// How loading an accepted key ended; `guess`: no document showed it as an image, so a
    /// failure is `unconfirmed` and fails nothing.
    func outcome(_ outcome: ImageLoader.Outcome, for key: CanonicalURL, guess: Bool = false) {
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
