import Logging

/// The events the stages log, each one line: `info` for what a stage decided (`--verbose`),
/// `debug` for every request (`--debug`). Kept together so the vocabulary of the log reads the
/// same from stage to stage.
extension Logger {
    /// A key seen for the first time and the validator chain's verdict on it; `guess`: the
    /// document only suggested it is an image (`ImageReference.isGuess`).
    package func verdict(_ verdict: Verdict, for key: CanonicalURL, guess: Bool = false) {
        let kind = guess ? "guessed key" : "key"
        switch verdict {
        case .accepted: info("\(kind) \(key): accepted")
        case .rejected(let reason): info("\(kind) \(key): rejected \(reason)")
        case .duplicate: info("\(kind) \(key): duplicate")
        }
    }

    /// A verdict changed once the crawl was over and every page read: an accepted key found to
    /// be decoration, or a smaller rendition under `--variants largest`.
    package func reconsidered(_ verdict: Verdict, for key: CanonicalURL) {
        if case .rejected(let reason) = verdict { info("key \(key): rejected \(reason) after the crawl") }
    }

    /// A logger that drops every event: the default of every stage, so the library writes
    /// nothing anywhere unless its user passes a logger of their own.
    package static let silent = Logger(label: "catalog-mirror") { _ in SwiftLogNoOpLogHandler() }
}
