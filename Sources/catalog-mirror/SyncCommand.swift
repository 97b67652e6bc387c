import ArgumentParser
import CatalogMirror
import Foundation

/// `catalog-mirror sync [<source-url>] [--out DIR] [options]`.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Crawl a gallery, fetch its images, and write a static mirror.",
        discussion: """
            Without <source-url>, the settings saved in DIR by an earlier sync are used (the cron form). \
            Options given override the saved ones for this run and are saved.
            Exit status: 0 all good; 1 some items failed (the rest is published); 2 usage or settings \
            error; 3 the source could not be crawled (the mirror is left as it was); 4 the --max-delete \
            guard stopped the run (nothing deleted); 75 another sync holds the lock on DIR.
            """
    )

    @Argument(help: "The gallery's start page (or its feed or JSON listing). Omit it to use the settings saved in DIR.")
    var sourceURL: String?

    @OptionGroup var output: OutputOptions

    @Option(
        help: ArgumentHelp(
            "Read this RSS/Atom feed or JSON listing instead of discovering feeds from the pages.", valueName: "URL"))
    var feed: String?

    @Option(help: ArgumentHelp("Crawl at most N HTML pages, the start page included. (default: 2000)", valueName: "N"))
    var maxPages: Int?

    @Option(help: ArgumentHelp("Follow links at most N steps from the start page. (default: 20)", valueName: "N"))
    var maxDepth: Int?

    @Option(
        help: ArgumentHelp(
            "Which pages to crawl: 'directory' (pages under the start page's directory, like wget --no-parent) or 'host' (every page of the source's host). (default: directory)",
            valueName: "directory|host"))
    var crawlScope: CrawlConfiguration.Scope?

    @Option(
        help: ArgumentHelp(
            "Which renditions of a photo to mirror: 'all' (thumbnail, display size and original, as the source shows them) or 'largest' (only the biggest). (default: all)",
            valueName: "all|largest"))
    var variants: CrawlConfiguration.Variants?

    @Option(
        help: ArgumentHelp(
            "Transfer at most N images at once; on plain HTTP each connection also pipelines up to 16 requests. (default: 8)",
            valueName: "N"))
    var concurrency: Int?

    @Option(
        help: ArgumentHelp(
            "Only mirror images whose URL path matches GLOB (* within a segment, ** across). Repeatable.", valueName: "GLOB"))
    var include: [String] = []

    @Option(help: ArgumentHelp("Skip images whose URL path matches GLOB. Repeatable.", valueName: "GLOB"))
    var exclude: [String] = []

    @Option(help: ArgumentHelp("Also fetch images from HOST (default: the source's host only). Repeatable.", valueName: "HOST"))
    var allowHost: [String] = []

    @Option(help: ArgumentHelp("Reject images larger than BYTES (suffixes K, M, G allowed).", valueName: "BYTES"))
    var maxSize: ByteCount?

    @Option(
        help: ArgumentHelp(
            "Render pages with the templates in DIR (page.mustache and assets) instead of the built-in ones.", valueName: "DIR"))
    var template: String?

    @Option(
        help: ArgumentHelp(
            "Refuse to delete more than N items of the last run, or N% of them; over the limit nothing is deleted and the exit status is 4. (default: 50%)",
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

    @Option(help: ArgumentHelp("Open at most N connections to one host. (default: 8)", valueName: "N"))
    var connectionsPerHost: Int?

    @Flag(help: "Do not honour robots.txt rules and Crawl-delay (its Sitemap lines are still read).")
    var ignoreRobots = false

    @OptionGroup(title: "Network options") var network: NetworkOptions

    @Option(help: ArgumentHelp("Write a JSON summary of the run to FILE.", valueName: "FILE"))
    var report: String?

    @Flag(help: "Print only errors.")
    var quiet = false

    @OptionGroup(title: "Diagnostics") var log: LogOptions

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
        if let sourceURL { _ = try Self.webURL(sourceURL, option: "<source-url>") }
        if let feed { _ = try Self.webURL(feed, option: "--feed") }
        for host in allowHost where host.isEmpty || host.contains("/") || host.contains(" ") {
            throw ValidationError("--allow-host takes a host name such as images.example.com (got \"\(host)\")")
        }
        try network.validate()
    }

    static func webURL(_ text: String, option: String) throws -> CanonicalURL {
        guard let url = CanonicalURL(text), url.isWeb else {
            throw ValidationError("\(option) must be an absolute http or https URL (got \"\(text)\")")
        }
        return url
    }

    /// The settings this command line states (nil fields were not given).
    func givenSettings(source: String) -> MirrorSettings {
        var settings = MirrorSettings(source: source)
        settings.feed = feed.flatMap { try? Self.webURL($0, option: "--feed").string }
        settings.maxPages = maxPages
        settings.maxDepth = maxDepth
        settings.crawlScope = crawlScope
        settings.variants = variants
        settings.concurrency = concurrency
        settings.include = include.isEmpty ? nil : include
        settings.exclude = exclude.isEmpty ? nil : exclude
        settings.allowHost = allowHost.isEmpty ? nil : allowHost.map { $0.lowercased() }
        settings.maxSize = maxSize?.bytes
        settings.maxDelete = maxDelete
        settings.ignoreRobots = ignoreRobots ? true : nil
        settings.rate = rate
        settings.connectionsPerHost = connectionsPerHost
        settings.template = template.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        network.apply(to: &settings)
        return settings
    }

    func run() async throws {
        let layout = output.layout
        let saved: MirrorSettings?
        do {
            saved = try SettingsStore.load(layout)
        } catch {
            printError("catalog-mirror: error: \(error.message)")
            throw ExitCode(ExitStatus.usage)
        }
        let base: MirrorSettings
        let given: MirrorSettings
        if let sourceURL {
            let source = try Self.webURL(sourceURL, option: "<source-url>").string
            if let saved, saved.source != source {
                printError(
                    "catalog-mirror: error: \(layout.root.path) is a mirror of \(saved.source), not \(source); use another --out, or omit the URL to sync the saved source"
                )
                throw ExitCode(ExitStatus.usage)
            }
            (base, given) = (saved ?? MirrorSettings(source: source), givenSettings(source: source))
        } else if let saved {
            (base, given) = (saved, givenSettings(source: saved.source))
        } else {
            printError(
                "catalog-mirror: error: no <source-url> given and \(layout.root.path) has no saved settings (\(layout.settings.path)); run 'catalog-mirror sync <source-url> --out \(output.out)' once"
            )
            throw ExitCode(ExitStatus.usage)
        }
        let settings: MirrorSettings
        var configuration: MirrorConfiguration
        do {
            settings = try base.overridden(by: given)
            configuration = try settings.configuration(output: layout.root)
            try configuration.fetch.readNetworkSettings(settings, environment: ProcessInfo.processInfo.environment)
            configuration.dryRun = dryRun
            configuration.logger = log.logger
        } catch {
            printError("catalog-mirror: error: \(error.message)")
            throw ExitCode(ExitStatus.usage)
        }
        for warning in settings.networkWarnings { printError("catalog-mirror: warning: \(warning)") }
        var runner = SyncRunner(quiet: quiet, reportFile: report.map { URL(fileURLWithPath: $0) })
        runner.logs = log.isEnabled
        let outcome = await runner.run(configuration)
        if case .finished(let report) = outcome {
            if dryRun {
                for (verb, name) in [("add", "add"), ("replace", "replace"), ("delete", "delete")] {
                    for key in report.changes?[name] ?? [] { print("\(verb) \(key)") }
                }
            } else {
                do {
                    try SettingsStore.save(settings, layout)
                } catch {
                    printError("catalog-mirror: warning: \(error.message)")
                }
            }
            throw ExitCode(report.exitStatus)
        }
        throw ExitCode(outcome.exitStatus)
    }
}

extension MirrorSettings {
    /// The engine configuration these settings describe, for the mirror at `output`.
    func configuration(output: URL) throws(SettingsError) -> MirrorConfiguration {
        guard let source = CanonicalURL(source), source.isWeb else {
            throw SettingsError("the source \"\(self.source)\" is not an http or https URL (fix or delete the settings file)")
        }
        var configuration = MirrorConfiguration(source: source, output: output)
        if let feed {
            guard let url = CanonicalURL(feed), url.isWeb else {
                throw SettingsError(
                    "the feed \"\(feed)\" is not an http or https URL (fix the settings file, or give --feed URL)")
            }
            configuration.crawl.feed = url
        }
        if let maxPages { configuration.crawl.maxPages = max(1, maxPages) }
        if let maxDepth { configuration.crawl.maxDepth = max(0, maxDepth) }
        if let crawlScope { configuration.crawl.scope = crawlScope }
        if let variants { configuration.crawl.variants = variants }
        if let concurrency { configuration.fetch.concurrency = min(256, max(1, concurrency)) }
        configuration.validation.include = include ?? []
        configuration.validation.exclude = exclude ?? []
        configuration.validation.allowedHosts = allowHost ?? []
        configuration.validation.maxSize = maxSize
        configuration.publish.maxDelete = maxDelete ?? .default
        configuration.validation.honourRobots = !(ignoreRobots ?? false)
        configuration.fetch.rate = rate
        if let connectionsPerHost { configuration.fetch.connectionsPerHost = min(256, max(1, connectionsPerHost)) }
        configuration.publish.templateDirectory = template.map { URL(fileURLWithPath: $0) }
        return configuration
    }
}

extension CrawlConfiguration.Scope: ExpressibleByArgument {}
extension CrawlConfiguration.Variants: ExpressibleByArgument {}

extension DeleteLimit: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}
