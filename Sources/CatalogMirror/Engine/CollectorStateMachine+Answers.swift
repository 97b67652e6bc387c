import MirrorCore
import MirrorCrawl
import MirrorFetch
import MirrorPipeline

extension CollectorStateMachine {
    /// What a batch's repeats had from the loader (`ImageLoader.join`), summed up in the task
    /// that waited for it: the outcomes themselves are their loads', and a completion waiting
    /// to be taken in holds only this.
    struct JoinAnswers: Sendable, Equatable {
        /// Repeats answered with their load's outcome (memory hits).
        var answered = 0
        /// Repeats of keys the loader no longer held (evicted): nothing was asked of anyone.
        var unanswered = 0
        /// The store's failure under a joined load, if any.
        var storeFailure: String?

        init(answered: Int = 0, unanswered: Int = 0, storeFailure: String? = nil) {
            (self.answered, self.unanswered, self.storeFailure) = (answered, unanswered, storeFailure)
        }

        init(_ outcomes: [ImageLoader.Outcome?]) {
            for outcome in outcomes {
                switch outcome {
                case nil: unanswered += 1
                case .storeFailed(let message)?:
                    answered += 1
                    storeFailure = storeFailure ?? message
                case _?: answered += 1
                }
            }
        }
    }

    /// What a load that settles a guess hands the crawler: the page the key turned out to be.
    struct GuessAnswer: Sendable, Equatable {
        /// The document that first named the key.
        var linkedFrom: Int

        func page(_ outcome: ImageLoader.Outcome, key: CanonicalURL) -> GuessedPages.Found? {
            guard case .page(let document) = outcome else { return nil }
            return GuessedPages.Found(key: key, document: document, linkedFrom: linkedFrom)
        }
    }
}
