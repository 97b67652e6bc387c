import Logging
import MirrorCore
import MirrorFetch
import MirrorMarkup

extension Crawler {
    /// What a crawl has taken in, page by page in crawl order (`take`): the frontier of pages
    /// still to read, the bodies and listings already read (one page reached by several URLs
    /// is read once), the scripts and data files whose photos a page was given, and the feeds
    /// the pages advertise. A value: `crawlPages` owns it and its task group never shares it.
    struct Ledger {
        var frontier: Frontier
        /// The feeds found, in order of discovery.
        private(set) var feeds: [CanonicalURL] = []
        private var seenFeeds: Set<CanonicalURL> = []
        /// Pages by the hash of their body.
        private var bodies: [String: Int] = [:]
        /// Pages by their path and the images they show (`listingKey`).
        private var listings: [String: Int] = [:]
        /// Scripts and data files whose photos a page has been given: a file several pages load
        /// (a listing every page advertises) gives its photos to the first of them in crawl
        /// order only. Its photos on later pages would be repeats (a photo's album is the first
        /// page it is found on), and P pages times N photos of them made a crawl quadratic.
        private var givenResources: Set<CanonicalURL> = []

        init(frontier: Frontier) {
            self.frontier = frontier
        }

        /// Takes a page into the crawl: its links, feeds and photo links now, counted in
        /// `summary`; its references are returned, to be sent in order (nil for a page that
        /// failed, is no page, was refused, or repeats one already read).
        mutating func take(
            _ result: PageResult, into summary: inout CrawlSummary, logger: Logger, progress: ProgressBoard
        ) -> Emission? {
            switch result {
            case .failed(let message):
                logger.info("page failed: \(message)")
                summary.pageFailures.append(message)
            case .deadLink(let message):
                logger.info("dead link: \(message)")
                summary.deadLinks += 1
                summary.warnings.append(message)
            case .notPage:
                summary.notPages += 1
            case .refused(let reason):
                if reason == .robots { summary.robotsRefused += 1 } else { summary.refusals.outOfScope += 1 }
            case .read(let page, let url, var scan, let base, let bodyHash, let warnings, let resources):
                logger.info(
                    "page \(url) read (depth \(page.depth)): \(scan.images.count) image references, \(scan.links.count) links, \(scan.feeds.count) feeds"
                )
                summary.pages += 1
                summary.warnings += warnings
                progress.update { $0.pagesCrawled += 1 }
                // `/gallery/` and `/gallery/index.html` are often one page, and one listing is
                // reached by several URLs (`?sort=date`, `?view=grid`, tracking parameters): read
                // once, counted once (in `--max-pages` and in which images most pages show).
                let listing = Crawler.listingKey(url, scan.images)
                if let earlier = bodies[bodyHash] ?? listing.flatMap({ listings[$0] }) {
                    summary.pageNumbers[page.url] = earlier
                    summary.pageNumbers[url] = summary.pageNumbers[url] ?? earlier
                    frontier.repeated()
                    return nil
                }
                bodies[bodyHash] = page.sequence
                if let listing { listings[listing] = page.sequence }
                for resource in resources where givenResources.insert(resource.url).inserted {
                    scan.addPhotos(resource.photos, fromScript: resource.isScript)
                }
                summary.pageNumbers[page.url] = page.sequence
                summary.pageNumbers[url] = summary.pageNumbers[url] ?? page.sequence
                summary.documents[page.sequence] = .init(url: url, kind: .page, title: scan.title, heading: scan.heading)
                // JSON documents a page links are its data, read with it (`PageResources`).
                for link in scan.feeds where !link.type.contains("json") {
                    guard let feed = CanonicalURL(link.href, relativeTo: base), feed.isWeb, seenFeeds.insert(feed).inserted
                    else { continue }
                    feeds.append(feed)
                }
                for link in scan.links {
                    guard let target = CanonicalURL(link.href, relativeTo: base), target.isWeb else { continue }
                    if let photo = link.photo {
                        summary.photoLinks.append(.init(document: page.sequence, photo: photo, page: target))
                    }
                    frontier.offer(target, from: page.depth)
                }
                return Emission(images: scan.images, base: base, document: page.sequence)
            }
            return nil
        }
    }
}
