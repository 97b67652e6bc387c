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

    @OptionGroup var options: SyncOptions

    @OptionGroup(title: "Network options") var network: NetworkOptions

    @Option(help: ArgumentHelp("Write a JSON summary of the run to FILE.", valueName: "FILE"))
    var report: String?

    @Flag(help: "Print only errors.")
    var quiet = false

    @OptionGroup(title: "Diagnostics") var log: LogOptions

    func validate() throws {
        if let sourceURL { _ = try SavedForm.checkedWebURL(sourceURL, option: "<source-url>") }
    }

    /// The settings this command line gives for `source` (fields of options not given are nil).
    func givenSettings(source: String) throws(SettingsError) -> MirrorSettings {
        try MirrorSettings(source: source, given: [options, network])
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
        if let sourceURL {
            let source = try SavedForm.checkedWebURL(sourceURL, option: "<source-url>").string
            if let saved, saved.source != source {
                printError(
                    "catalog-mirror: error: \(layout.root.path) is a mirror of \(saved.source), not \(source); use another --out, or omit the URL to sync the saved source"
                )
                throw ExitCode(ExitStatus.usage)
            }
            base = saved ?? MirrorSettings(source: source)
        } else if let saved {
            base = saved
        } else {
            printError(
                "catalog-mirror: error: no <source-url> given and \(layout.root.path) has no saved settings (\(layout.settings.path)); run 'catalog-mirror sync <source-url> --out \(output.out)' once"
            )
            throw ExitCode(ExitStatus.usage)
        }
        let settings: MirrorSettings
        var configuration: MirrorConfiguration
        do {
            settings = try base.overridden(by: givenSettings(source: base.source))
            configuration = try MirrorConfiguration(
                settings: settings, output: layout.root, environment: ProcessInfo.processInfo.environment)
            configuration.dryRun = options.dryRun
            configuration.logger = log.logger
        } catch {
            printError("catalog-mirror: error: \(error.message)")
            throw ExitCode(ExitStatus.usage)
        }
        for warning in settings.networkWarnings { printError("catalog-mirror: warning: \(warning)") }
        // Refused credentials change nothing: checked before the run writes anything.
        if let bucket = configuration.bucket, !options.dryRun {
            do {
                try await bucket.checkAccess()
            } catch {
                printError("catalog-mirror: error: \(error.description)")
                throw ExitCode(error.exitStatus)
            }
        }
        var runner = SyncRunner(quiet: quiet, reportFile: report.map { URL(fileURLWithPath: $0) })
        runner.logs = log.isEnabled
        let outcome = await runner.run(configuration)
        if case .finished(let report) = outcome {
            if options.dryRun {
                let verbs: [(String, RunChanges.Kind)] = [("add", .added), ("replace", .replaced), ("delete", .removed)]
                for (verb, kind) in verbs {
                    for entry in report.changes?.entries(kind) ?? RunChanges().entries(kind) { print("\(verb) \(entry.key)") }
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

extension CrawlConfiguration.Scope: ExpressibleByArgument {}
extension CrawlConfiguration.Variants: ExpressibleByArgument {}

extension DeleteLimit: ExpressibleByArgument {
    /// `--max-delete N` or `N%`, as `DeleteLimit.init(_:)` reads it.
    public init?(argument: String) { self.init(argument) }
}
