import MirrorCatalog
import MirrorCore
import MirrorCrawl

/// The one line a run that found nothing to publish ends with (exit 3): what it read, what it
/// saw but could not use, and the likely fix.
struct EmptyCrawl {
    let source: CanonicalURL
    let summary: CrawlSummary
    let plan: PublishPlan
    /// Distinct image keys seen.
    let keys: Int

    var message: String {
        var read = [Self.count(summary.pages, "page")]
        let feeds = summary.documents.values.filter { $0.kind != .page }.count
        if feeds > 0 { read.append(Self.count(feeds, "feed or listing", plural: "feeds or listings")) }
        var unused: [String] = []
        for (reason, count) in (plan.policy.merging(plan.failed) { $0 + $1 }).sorted(by: { $0.key < $1.key }) {
            unused.append("\(Self.count(count, "image URL")) \(reason)")
        }
        let refusals = summary.refusals
        if refusals.outOfScope > 0 { unused.append("\(Self.count(refusals.outOfScope, "link")) out of the crawl scope") }
        if refusals.beyondPageLimit > 0 { unused.append("\(Self.count(refusals.beyondPageLimit, "page")) beyond --max-pages") }
        if refusals.beyondDepth > 0 { unused.append("\(Self.count(refusals.beyondDepth, "page")) beyond --max-depth") }
        if summary.robotsRefused > 0 { unused.append("\(Self.count(summary.robotsRefused, "page")) refused by robots.txt") }
        if summary.notPages > 0 { unused.append("\(Self.count(summary.notPages, "link")) that were not HTML pages") }
        if !summary.pageFailures.isEmpty {
            unused.append("\(Self.count(summary.pageFailures.count, "document")) that could not be read")
        }
        if summary.unusableReferences > 0 {
            unused.append("\(Self.count(summary.unusableReferences, "image reference")) with unreadable URLs")
        }
        var hints: [String] = []
        if plan.policy["out-of-scope"] != nil { hints.append("--allow-host HOST for images on other hosts") }
        if refusals.outOfScope > 0 { hints.append("--crawl-scope host to follow pages outside \(source.path)") }
        if refusals.beyondPageLimit > 0 || refusals.beyondDepth > 0 { hints.append("a higher --max-pages or --max-depth") }
        hints.append("--feed URL if the gallery lists its images in a feed or JSON file")
        let found = keys == 0 ? "found no image" : "published none of the \(Self.count(keys, "image URL")) it found"
        return "nothing to mirror from \(source): read \(read.joined(separator: " and ")) and \(found)"
            + (unused.isEmpty ? "" : "; saw " + unused.joined(separator: ", "))
            + "; the mirror was left as it was (try " + hints.joined(separator: ", or ") + ")"
    }

    static func count(_ value: Int, _ noun: String, plural: String? = nil) -> String {
        "\(value) " + (value == 1 ? noun : plural ?? noun + "s")
    }
}
