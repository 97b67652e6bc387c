import Foundation
import Logging
import MirrorCore
import MirrorCrawl
import MirrorFetch
import MirrorPublish
import MirrorValidate

/// Everything one sync needs, as a value: built by the CLI from the merged settings
/// (`init(settings:output:environment:)`, beside `MirrorSettings`' fields), or by tests directly.
/// Each stage gets its own nested part, whose fields hold the defaults.
public struct MirrorConfiguration: Sendable {
    /// The gallery's start page (or a feed or listing URL).
    public var source: CanonicalURL
    /// The mirror directory (`--out`). Default: `./mirror`.
    public var output: URL
    /// The crawl's limits, scope and feed. Default: `CrawlConfiguration()`.
    public var crawl: CrawlConfiguration
    /// The validator chain's rules and their order. Default: `ValidationConfiguration()`.
    public var validation: ValidationConfiguration

    /// Whether the run tells decoration (icons, buttons, a theme's furniture) from photos: not
    /// when `--include` names what to mirror, since images asked for by name are never furniture.
    var findsDecorations: Bool { validation.include.isEmpty }
    /// The HTTP side: concurrency, timeouts, TLS, proxy, identity. Default: `FetchConfiguration()`.
    public var fetch: FetchConfiguration
    /// The generated site. Default: `PublishConfiguration()`.
    public var publish: PublishConfiguration
    /// The clock used for `generatedAt`, `firstSeen` and `lastChecked`. Default: the system clock.
    public var now: @Sendable () -> Date
    /// `--dry-run`: crawl, validate and revalidate (HEAD only), report what would change, write
    /// nothing. Default: false.
    public var dryRun: Bool = false
    /// `--metrics FILE`: where the caller writes the run's metrics when it ends
    /// (`RunMetrics`); the engine itself never reads it. Default: nil (none).
    public var metricsFile: URL?
    /// `--publish s3://BUCKET/PREFIX`: the bucket a completed run's mirror is copied to
    /// (`BucketPublishing`). Default: nil (none).
    public var bucket: BucketPublishing?
    /// Where the stages say what they decided (`info`: pages read, keys and their verdicts,
    /// each fetch's outcome) and what they sent (`debug`: every request with its status and
    /// time). Default: `MirrorConfiguration.silentLogger`, which drops everything.
    public var logger: Logger

    /// A logger that drops every event: the default, so the library writes nothing anywhere
    /// unless its user passes a logger of their own.
    public static let silentLogger = Logger.silent

    /// A configuration for mirroring `source` into `output` (default `./mirror`), every stage
    /// at its defaults unless given, the system clock, and no logging.
    public init(
        source: CanonicalURL, output: URL = URL(fileURLWithPath: "mirror"), crawl: CrawlConfiguration = .init(),
        validation: ValidationConfiguration = .init(), fetch: FetchConfiguration = .init(),
        publish: PublishConfiguration = .init(), now: @escaping @Sendable () -> Date = { Date() },
        logger: Logger = MirrorConfiguration.silentLogger
    ) {
        self.source = source
        self.output = output
        self.crawl = crawl
        self.validation = validation
        self.fetch = fetch
        self.publish = publish
        self.now = now
        self.logger = logger
    }
}
