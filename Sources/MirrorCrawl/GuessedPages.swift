import MirrorCore
import MirrorFetch
import Synchronization

/// The answers to the crawl's guesses: image URLs that a page only suggested (a link's target,
/// a `data-*` value, a script's string; `ImageReference.isGuess`) are asked for as images, and
/// those that answer with an HTML page (a photo's own page, such as `/wiki/File:X.jpg` or a
/// WordPress attachment page) come back here, to be read as pages.
///
/// The crawler sends guesses with the rest of its discoveries (`DiscoveryBatches` counts them);
/// the engine settles each guess once: at once when it loads nothing (a repeat, a rejection), or
/// when its load ends, with the page it found. When the crawler has nothing left to read, it
/// waits for every guess sent so far to be settled (`round(sent:)`) and reads the pages found,
/// sorted, so the crawl's order never depends on which answer came first. A lock and a
/// continuation rather than an actor: a cancelled crawl must be released synchronously.
package final class GuessedPages: Sendable {
    /// A guessed key that answered with a page.
    package struct Found: Sendable {
        /// The key the page was asked for (its URL before any redirect).
        var key: CanonicalURL
        var document: FetchedDocument
        /// The document where the key was first seen (in crawl order): the page links to it
        /// from there, one level deeper.
        var linkedFrom: Int

        package init(key: CanonicalURL, document: FetchedDocument, linkedFrom: Int) {
            self.key = key
            self.document = document
            self.linkedFrom = linkedFrom
        }
    }

    private struct State {
        var settled = 0
        var found: [Found] = []
        var waiter: (sent: Int, continuation: CheckedContinuation<[Found], Never>)?
        var isClosed = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Settles `count` guesses; `page` is the page one of them found.
    package func settle(_ count: Int, page: Found? = nil) {
        guard count > 0 || page != nil else { return }
        let ready: (CheckedContinuation<[Found], Never>, [Found])? = state.withLock { state in
            state.settled += count
            if let page { state.found.append(page) }
            guard let waiter = state.waiter, state.settled >= waiter.sent else { return nil }
            state.waiter = nil
            defer { state.found = [] }
            return (waiter.continuation, state.found)
        }
        if let (continuation, found) = ready { continuation.resume(returning: Self.sorted(found)) }
    }

    /// Waits until `sent` guesses (every guess the crawler sent so far) are settled, and returns
    /// the pages they found since the last round, by the document that linked them, then key.
    /// Returns at once, with what it has, once closed or when the waiting task is cancelled.
    func round(sent: Int) async -> [Found] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[Found], Never>) in
                let found: [Found]? = state.withLock { state in
                    guard !state.isClosed, !Task.isCancelled, state.settled < sent else {
                        defer { state.found = [] }
                        return state.found
                    }
                    state.waiter = (sent, continuation)
                    return nil
                }
                if let found { continuation.resume(returning: Self.sorted(found)) }
            }
        } onCancel: {
            close()
        }
    }

    /// No guess will be settled any more (the engine stopped): releases a waiting crawler and
    /// answers every later round at once.
    package func close() {
        let waiter = state.withLock { state in
            state.isClosed = true
            defer { state.waiter = nil }
            return state.waiter.map { ($0.continuation, state.found) }
        }
        if let (continuation, found) = waiter { continuation.resume(returning: Self.sorted(found)) }
    }

    private static func sorted(_ found: [Found]) -> [Found] {
        found.sorted { $0.linkedFrom != $1.linkedFrom ? $0.linkedFrom < $1.linkedFrom : $0.key < $1.key }
    }
}
