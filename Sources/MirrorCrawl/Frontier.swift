import MirrorCore

/// Decides which page the crawl fetches next: breadth-first from the start page, each page
/// once (by key), within the crawl scope, at most `maxDepth` links from the start and
/// `maxPages` pages in all. It counts what it turned away, so a run that finds little can say
/// why, and a limit that cuts the crawl is reported.
package struct Frontier {
    /// A page to fetch, numbered in crawl order (the order a one-at-a-time breadth-first crawl
    /// would fetch it in, whatever order concurrent fetches finish in).
    struct Page: Sendable {
        var url: CanonicalURL
        var depth: Int
        var sequence: Int
    }

    /// What the frontier turned away, counted once per distinct URL.
    package struct Refusals: Sendable, Equatable {
        package var outOfScope = 0
        package var beyondDepth = 0
        package var beyondPageLimit = 0
    }

    let scope: CrawlScope
    let maxDepth: Int
    let maxPages: Int
    private var queue: [Page] = []
    private var head = 0
    private var seen: Set<CanonicalURL> = []
    private(set) var refusals = Refusals()
    /// Pages read and found to be another page again (the same body, or one listing reached by
    /// several URLs): they do not count against `maxPages`.
    private var repeats = 0
    /// The first pages turned away by `maxPages` (at most `maxPages` of them), with the depth
    /// they were offered at: a repeat's place goes to the first of them.
    private var waiting: [(url: CanonicalURL, depth: Int)] = []
    private var waitingHead = 0
    /// Pages admitted so far (queued or fetched), repeats aside.
    var admitted: Int { queue.count - repeats }

    init(start: CanonicalURL, scope: CrawlScope, maxDepth: Int, maxPages: Int) {
        self.scope = scope
        self.maxDepth = max(0, maxDepth)
        self.maxPages = max(1, maxPages)
        seen = [start, scope.source]
        queue = [Page(url: start, depth: 0, sequence: 0)]
    }

    /// Offers a link found on a page at `depth`; returns the page when it is admitted.
    @discardableResult
    mutating func offer(_ url: CanonicalURL, from depth: Int) -> Page? {
        guard seen.insert(url).inserted else { return nil }
        guard scope.contains(url) else {
            refusals.outOfScope += 1
            return nil
        }
        guard depth + 1 <= maxDepth else {
            refusals.beyondDepth += 1
            return nil
        }
        guard admitted < maxPages else {
            refusals.beyondPageLimit += 1
            if waiting.count < maxPages { waiting.append((url, depth + 1)) }
            return nil
        }
        let page = Page(url: url, depth: depth + 1, sequence: queue.count)
        queue.append(page)
        return page
    }

    /// Says that a page read was one already read under another URL: it gives its place in
    /// `maxPages` back.
    mutating func repeated() {
        repeats += 1
        guard waitingHead < waiting.count else { return }
        let (url, depth) = waiting[waitingHead]
        waitingHead += 1
        refusals.beyondPageLimit -= 1
        queue.append(Page(url: url, depth: depth, sequence: queue.count))
    }

    /// The next page to fetch, in crawl order.
    mutating func next() -> Page? {
        guard head < queue.count else { return nil }
        defer { head += 1 }
        return queue[head]
    }
}
