import Foundation
import MirrorCore
import MirrorCrawl
import MirrorFetch
import MirrorObjectStore
import MirrorPublish

/// The settings a mirror was made with: the one declaration of every persisted `sync` option,
/// saved as `DIR/.catalog-mirror/settings.json` after each sync that exits 0 or 1, so the cron
/// form (`catalog-mirror sync --out DIR`) needs no flags.
///
/// Every field but `source` is optional, nil meaning "not given: the default" (the default is the
/// one of the stage configuration the field sets, named in each field's comment). Everything else
/// follows from this field list, with no second list anywhere:
/// - the file: the synthesized `Codable` (a missing key is nil, a nil field is not written), so a
///   file written by an older version, or trimmed by hand, still loads (`SettingsStore`);
/// - the command line: the CLI's option groups encode under these field names, and
///   `init(source:given:)` decodes this type from them, so an option is saved when its property
///   is named as a field here, and is for its run only otherwise (`--dry-run`, `--report`...);
/// - the merge: `overridden(by:)`, one pass over the encoded form;
/// - the engine: `MirrorConfiguration.init(settings:output:environment:)` below, one line a field.
///
/// A new setting is a field here, its line in that initializer, and its option (see
/// ARCHITECTURE.md, "Where do I change X").
public struct MirrorSettings: Codable, Sendable, Equatable {
    /// The schema version this build writes and reads: 1.
    public static let currentVersion = 1

    /// The schema version the file was written with. Default: `currentVersion`; a file
    /// without it reads as nil (version 1, the first).
    public var version: Int? = MirrorSettings.currentVersion
    /// The source URL, canonical. Required.
    public var source: String
    /// `--feed`: the feed or listing read instead of discovered ones, canonical. Default: nil
    /// (feeds discovered from the pages).
    public var feed: String?
    /// `--max-pages`: HTML pages crawled at most. Default: `CrawlConfiguration.maxPages` (2000).
    public var maxPages: Int?
    /// `--concurrency`: images transferred at once. Default: `FetchConfiguration.concurrency` (8).
    public var concurrency: Int?
    /// `--include`: globs an image path must match one of. Default: none (every path).
    public var include: [String]?
    /// `--exclude`: globs that reject an image path. Default: none.
    public var exclude: [String]?
    /// `--allow-host`: hosts in scope besides the source's, lower-cased. Default: none.
    public var allowHost: [String]?
    /// `--max-size`: the largest image accepted, in bytes. Default: nil (no limit).
    public var maxSize: Int64?
    /// `--max-document-size`: the largest page or JSON listing read whole into memory, in bytes.
    /// Default: `FetchConfiguration.maxDocumentBytes` (64 MiB).
    public var maxDocumentSize: Int64?
    /// `--max-delete`: items of the last run one run may delete. Default: `DeleteLimit.default` (50 %).
    public var maxDelete: DeleteLimit?
    /// `--template`: the template directory's absolute path. Default: nil (the built-in templates).
    public var template: String?
    /// `--ignore-robots`. Default: nil (robots.txt honoured).
    public var ignoreRobots: Bool?
    /// `--rate`: requests per second over all hosts. Default: nil (no limit).
    public var rate: Double?
    /// `--connections-per-host`. Default: `FetchConfiguration.connectionsPerHost` (8).
    public var connectionsPerHost: Int?
    /// `--max-depth`: links followed from the start page. Default: `CrawlConfiguration.maxDepth` (20).
    public var maxDepth: Int?
    /// `--crawl-scope`. Default: `CrawlConfiguration.scope` (`.directory`).
    public var crawlScope: CrawlConfiguration.Scope?
    /// `--variants`. Default: `CrawlConfiguration.variants` (`.all`).
    public var variants: CrawlConfiguration.Variants?
    /// `--ca-certificate`: the PEM file's absolute path. Default: nil (the system's trust store only).
    public var caCertificate: String?
    /// `--no-check-certificate`. Default: nil (certificates checked).
    public var noCheckCertificate: Bool?
    /// `--proxy`, without credentials (a proxy URL with credentials is used for its run only).
    /// Default: nil (the proxy variables of the environment).
    public var proxy: String?
    /// `--header`: `@/absolute/path` entries and inline headers that carry no credential.
    /// Default: none.
    public var header: [String]?
    /// `--user-agent`. Default: `FetchConfiguration.userAgent` (`catalog-mirror/VERSION`).
    public var userAgent: String?
    /// `--cookies`: the cookies file's absolute path (its contents are never copied here).
    /// Default: nil (no cookies).
    public var cookies: String?
    /// `--netrc`. Default: nil (no login).
    public var netrc: Bool?
    /// `--speed-limit` in bytes per second. Default: `LowSpeedLimit.bytesPerSecond` (1024).
    public var speedLimit: Int?
    /// `--speed-time` in seconds. Default: `LowSpeedLimit.duration` (30 s).
    public var speedTime: Int?
    /// `--strip-location`. Default: nil (`PublishConfiguration.stripLocation`: positions kept).
    public var stripLocation: Bool?
    /// `--metrics`: the absolute path of the Prometheus text file written after each run; an
    /// empty string turns a saved one off. Default: nil (no metrics file).
    public var metrics: String?
    /// `--publish`: the `s3://BUCKET/PREFIX` a completed run is copied to; an empty string turns
    /// a saved one off. Credentials are never saved (the environment's `AWS_*`). Default: nil.
    public var publish: String?

    /// Settings for `source` with every other field not given.
    public init(source: String) { self.source = source }

    /// The settings that `parts` give for `source`: each part is a value that encodes with this
    /// type's field names (the CLI's option groups). A key with a value sets its field; a key that
    /// is absent or null leaves it not given; a key that names no field (`dryRun`) is ignored.
    /// Throws a one-line `SettingsError` when a value has the wrong type for its field.
    public init(source: String, given parts: [any Encodable]) throws(SettingsError) {
        do {
            var object = try Self.jsonObject(MirrorSettings(source: source))
            for part in parts {
                for (key, value) in try Self.jsonObject(part) where !(value is NSNull) { object[key] = value }
            }
            self = try JSONDecoder().decode(MirrorSettings.self, from: JSONSerialization.data(withJSONObject: object))
        } catch {
            throw SettingsError("cannot read the options given as settings: \(error) (check the options)")
        }
    }

    /// Applies what the command line gave on top of `self`: a given scalar replaces the saved
    /// one; a given repeatable option replaces the whole saved list.
    ///
    /// Done on the encoded form, so the field list above is the only one: a field the command
    /// line did not give is nil, and nil fields are left out of the JSON object, so every key
    /// `other` has replaces `self`'s. Throws only for a value JSON cannot hold (a `rate` that is
    /// not finite).
    public func overridden(by other: MirrorSettings) throws(SettingsError) -> MirrorSettings {
        do {
            let merged = try Self.jsonObject(self).merging(Self.jsonObject(other)) { _, given in given }
            return try JSONDecoder().decode(MirrorSettings.self, from: JSONSerialization.data(withJSONObject: merged))
        } catch {
            throw SettingsError("cannot combine the saved settings with the options given: \(error) (check the options)")
        }
    }

    /// `value` encoded as a JSON object (nil fields of `MirrorSettings` left out, nil options null).
    private static func jsonObject(_ value: any Encodable) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any] else {
            throw SettingsError("the settings do not encode as a JSON object")
        }
        return object
    }
}

extension MirrorConfiguration {
    /// The configuration `settings` describe for the mirror at `output`: each field given
    /// replaces its stage's default, and the network side is read from the files the settings
    /// name (`--header @FILE`, `--cookies`, `--ca-certificate`, the `--netrc` file of
    /// `environment`) and from `environment`'s proxy variables. `dryRun` and `logger` keep
    /// their defaults. Throws a one-line `SettingsError` naming the value or file that cannot be
    /// used.
    ///
    /// Kept beside the field list: a new setting is its field above and its line here.
    public init(settings: MirrorSettings, output: URL, environment: [String: String]) throws(SettingsError) {
        guard let source = CanonicalURL(settings.source), source.isWeb else {
            throw SettingsError(
                "the source \"\(settings.source)\" is not an http or https URL (fix or delete the settings file)")
        }
        self.init(source: source, output: output)
        if let feed = settings.feed {
            guard let url = CanonicalURL(feed), url.isWeb else {
                throw SettingsError(
                    "the feed \"\(feed)\" is not an http or https URL (fix the settings file, or give --feed URL)")
            }
            crawl.feed = url
        }
        if let maxPages = settings.maxPages { crawl.maxPages = max(1, maxPages) }
        if let maxDepth = settings.maxDepth { crawl.maxDepth = max(0, maxDepth) }
        if let crawlScope = settings.crawlScope { crawl.scope = crawlScope }
        if let variants = settings.variants { crawl.variants = variants }
        if let concurrency = settings.concurrency { fetch.concurrency = min(256, max(1, concurrency)) }
        validation.include = settings.include ?? []
        validation.exclude = settings.exclude ?? []
        validation.allowedHosts = settings.allowHost ?? []
        validation.maxSize = settings.maxSize
        if let maxDocumentSize = settings.maxDocumentSize {
            fetch.maxDocumentBytes = Int(clamping: max(1 << 16, maxDocumentSize))
        }
        publish.maxDelete = settings.maxDelete ?? .default
        validation.honourRobots = !(settings.ignoreRobots ?? false)
        publish.stripLocation = settings.stripLocation ?? false
        fetch.rate = settings.rate
        if let connections = settings.connectionsPerHost { fetch.connectionsPerHost = min(256, max(1, connections)) }
        publish.templateDirectory = settings.template.map { URL(fileURLWithPath: $0) }
        fetch.tls = TLSOptions(
            caCertificateFile: settings.caCertificate, checkCertificates: !(settings.noCheckCertificate ?? false))
        fetch.proxy = try NetworkSettings.proxyRoutes(settings.proxy, tls: fetch.tls, environment: environment)
        let identity = try NetworkSettings.identity(
            headers: settings.header ?? [], cookies: settings.cookies, netrc: settings.netrc ?? false,
            host: source.host, environment: environment)
        if let agent = identity.userAgent { fetch.userAgent = agent }
        if let agent = settings.userAgent { fetch.userAgent = agent }
        fetch.identity = identity.identity
        if let speedLimit = settings.speedLimit { fetch.lowSpeed.bytesPerSecond = max(0, speedLimit) }
        if let speedTime = settings.speedTime { fetch.lowSpeed.duration = .seconds(max(0, speedTime)) }
        metricsFile = settings.metrics.flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
        if let publish = settings.publish, !publish.isEmpty {
            guard let target = ObjectStoreTarget(publish) else {
                throw SettingsError(
                    "--publish \"\(publish)\" is not s3://BUCKET/PREFIX (a valid bucket name, no empty or dot segments)")
            }
            do {
                bucket = try BucketPublishing(target: target, environment: environment)
            } catch {
                throw SettingsError(error.description)
            }
        }
    }
}
