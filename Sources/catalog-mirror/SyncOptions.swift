import ArgumentParser
import CatalogMirror
import Foundation

/// The options of `sync` that shape what is mirrored, in the order `--help` lists them.
///
/// Each option whose property is named as a field of `MirrorSettings` is saved with the mirror
/// (its value reaches the settings through this group's encoding, `MirrorSettings.init(source:given:)`);
/// the others, here only `--dry-run`, are for their run only. Values are put in the form they are
/// saved in as they are parsed (`transform:`): paths absolute, hosts lower-cased, the feed
/// canonical. The defaults shown are read from the stage configurations that hold them.
struct SyncOptions: ParsableArguments, Encodable {
    @Option(
        help: ArgumentHelp(
            "Read this RSS/Atom feed or JSON listing instead of discovering feeds from the pages.", valueName: "URL"),
        transform: SavedForm.webURL)
    var feed: String?

    @Option(
        help: ArgumentHelp(
            "Crawl at most N HTML pages, the start page included. (default: \(CrawlConfiguration().maxPages))",
            valueName: "N"))
    var maxPages: Int?

    @Option(
        help: ArgumentHelp(
            "Follow links at most N steps from the start page. (default: \(CrawlConfiguration().maxDepth))",
            valueName: "N"))
    var maxDepth: Int?

    @Option(
        help: ArgumentHelp(
            "Which pages to crawl: 'directory' (pages under the start page's directory, like wget --no-parent) or 'host' (every page of the source's host). (default: \(CrawlConfiguration().scope.rawValue))",
            valueName: "directory|host"))
    var crawlScope: CrawlConfiguration.Scope?

    @Option(
        help: ArgumentHelp(
            "Which renditions of a photo to mirror: 'all' (thumbnail, display size and original, as the source shows them) or 'largest' (only the biggest). (default: \(CrawlConfiguration().variants.rawValue))",
            valueName: "all|largest"))
    var variants: CrawlConfiguration.Variants?

    @Option(
        help: ArgumentHelp(
            "Transfer at most N images at once; on plain HTTP each connection also pipelines up to \(FetchConfiguration().pipelineDepth) requests. (default: \(FetchConfiguration().concurrency))",
            valueName: "N"))
    var concurrency: Int?

    @Option(
        help: ArgumentHelp(
            "Only mirror images whose URL path matches GLOB (* within a segment, ** across). Repeatable.", valueName: "GLOB"))
    var include: [String] = []

    @Option(help: ArgumentHelp("Skip images whose URL path matches GLOB. Repeatable.", valueName: "GLOB"))
    var exclude: [String] = []

    @Option(
        help: ArgumentHelp("Also fetch images from HOST (default: the source's host only). Repeatable.", valueName: "HOST"),
        transform: { $0.lowercased() })
    var allowHost: [String] = []

    @Option(help: ArgumentHelp("Reject images larger than BYTES (suffixes K, M, G allowed).", valueName: "BYTES"))
    var maxSize: ByteCount?

    @Option(
        help: ArgumentHelp(
            "Read pages and JSON listings up to BYTES each (default 64M; feeds and sitemaps stream, any size).",
            valueName: "BYTES"))
    var maxDocumentSize: ByteCount?

    @Option(
        help: ArgumentHelp(
            "Render pages with the templates in DIR (page.mustache and assets) instead of the built-in ones.", valueName: "DIR"),
        transform: SavedForm.path)
    var template: String?

    @Option(
        help: ArgumentHelp(
            "Refuse to delete more than N items of the last run, or N% of them; over the limit nothing is deleted and the exit status is 4. (default: \(DeleteLimit.default))",
            valueName: "N|N%"))
    var maxDelete: DeleteLimit?

    @Flag(
        help:
            "Crawl, validate and revalidate (no image bodies), print what would be added, replaced and deleted, and change nothing."
    )
    var dryRun = false

    @Option(
        help: ArgumentHelp(
            "Send at most N requests per second, over all hosts (fractions allowed). (default: no limit)", valueName: "N"))
    var rate: Double?

    @Option(
        help: ArgumentHelp(
            "Open at most N connections to one host. (default: \(FetchConfiguration().connectionsPerHost))", valueName: "N"))
    var connectionsPerHost: Int?

    @Flag(help: "Do not honour robots.txt rules and Crawl-delay (its Sitemap lines are still read).")
    var ignoreRobots = false

    @Flag(
        help:
            "Leave photos' GPS positions out of the manifest, the pages, the search index and the mirror's own index (for mirrors that are published)."
    )
    var stripLocation = false

    @Option(
        help: ArgumentHelp(
            "After each run, replace FILE with the run's metrics in Prometheus's text format (for node_exporter's textfile collector); \"\" turns a saved FILE off.",
            valueName: "FILE"),
        transform: { $0.isEmpty ? "" : SavedForm.path($0) })
    var metrics: String?

    @Option(
        help: ArgumentHelp(
            "After each completed run, copy the mirror to this S3 bucket and prefix (credentials and endpoint from AWS_* and ~/.aws, never saved); \"\" turns a saved one off.",
            valueName: "s3://BUCKET/PREFIX"))
    var publish: String?

    func validate() throws {
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1 (got \(maxPages))") }
        if let maxDepth, maxDepth < 0 { throw ValidationError("--max-depth must be 0 or more (got \(maxDepth))") }
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate must be a positive number (got \(rate))") }
        if let connectionsPerHost, !(1...256).contains(connectionsPerHost) {
            throw ValidationError("--connections-per-host must be between 1 and 256 (got \(connectionsPerHost))")
        }
        if let concurrency, !(1...256).contains(concurrency) {
            throw ValidationError("--concurrency must be between 1 and 256 (got \(concurrency))")
        }
        if let feed { _ = try SavedForm.checkedWebURL(feed, option: "--feed") }
        if let publish, !publish.isEmpty, ObjectStoreTarget(publish) == nil {
            throw ValidationError("--publish takes s3://BUCKET/PREFIX with a valid bucket name (got \"\(publish)\")")
        }
        for host in allowHost where host.isEmpty || host.contains("/") || host.contains(" ") {
            throw ValidationError("--allow-host takes a host name such as images.example.com (got \"\(host)\")")
        }
    }
}

/// Option values in the form they are saved in: a cron job runs from another directory.
enum SavedForm {
    /// A file path made absolute against the working directory.
    @Sendable static func path(_ text: String) -> String {
        URL(fileURLWithPath: text).standardizedFileURL.path
    }

    /// A `--header` entry, with the path of `@FILE` made absolute.
    @Sendable static func header(_ text: String) -> String {
        text.hasPrefix("@") ? "@" + path(String(text.dropFirst())) : text
    }

    /// An http(s) URL in canonical form; anything else is left as given, for `validate()` to name.
    @Sendable static func webURL(_ text: String) -> String {
        CanonicalURL(text).flatMap { $0.isWeb ? $0.string : nil } ?? text
    }

    /// `text` as an http(s) URL, or a usage error naming `option`.
    static func checkedWebURL(_ text: String, option: String) throws -> CanonicalURL {
        guard let url = CanonicalURL(text), url.isWeb else {
            throw ValidationError("\(option) must be an absolute http or https URL (got \"\(text)\")")
        }
        return url
    }
}
