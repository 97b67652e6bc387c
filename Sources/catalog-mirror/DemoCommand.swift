import ArgumentParser
import CatalogMirror
import Foundation
import SampleGallery

/// `catalog-mirror demo [--out DIR]`: the bundled sample gallery, served on a loopback port and
/// mirrored. Works offline.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Serve the bundled sample gallery on a loopback port and mirror it (works offline).",
        discussion: """
            The sample gallery has 32 images on paginated pages, an RSS feed, and a JSON listing that \
            repeats every image three times. One entry answers 200 with a JSON error instead of an \
            image; the mirror rejects it as not-an-image, as it should.
            """
    )

    @OptionGroup var output: OutputOptions

    @Option(help: ArgumentHelp("Write a JSON summary of the run to FILE.", valueName: "FILE"))
    var report: String?

    @Flag(help: "Print only errors.")
    var quiet = false

    @OptionGroup(title: "Diagnostics") var log: LogOptions

    func run() async throws {
        let layout = output.layout
        // The demo's source is on a new port every time, so its mirror is rebuilt from scratch;
        // refuse to touch a directory holding anything else.
        if let existing = try? Manifest.read(from: layout.manifest),
            !(CanonicalURL(existing.source).map { $0.host == "127.0.0.1" && $0.path == "/gallery/" } ?? false)
        {
            printError(
                "catalog-mirror: error: \(layout.root.path) holds a mirror of \(existing.source); demo writes only into a new directory or an earlier demo's (use --out)"
            )
            throw ExitCode(ExitStatus.usage)
        }
        if (try? SettingsStore.load(layout)) ?? nil != nil {
            printError(
                "catalog-mirror: error: \(layout.root.path) has saved sync settings; demo writes only into a new directory or an earlier demo's (use --out)"
            )
            throw ExitCode(ExitStatus.usage)
        }
        for name in ["images", ".catalog-mirror", "manifest.json", "assets"] {
            try? FileManager.default.removeItem(at: layout.root.appendingPathComponent(name))
        }

        let server = GalleryServer(catalog: .sample)
        let quiet = self.quiet
        let (logger, logs) = (log.logger, log.isEnabled)
        let reportFile = report.map { URL(fileURLWithPath: $0) }
        let status: Int32 = try await server.run { url in
            if !quiet { printError("catalog-mirror: sample gallery serving at \(url.absoluteString)") }
            guard let source = CanonicalURL(url.absoluteString) else { return ExitStatus.sourceUnavailable }
            var configuration = MirrorConfiguration(source: source, output: layout.root)
            configuration.publish.itemsPerPage = 12
            configuration.logger = logger
            var runner = SyncRunner(quiet: quiet, reportFile: reportFile)
            runner.logs = logs
            let outcome = await runner.run(configuration)
            guard case .finished(let report) = outcome else { return outcome.exitStatus }
            // The sample's one JSON-error entry is expected to fail; anything else is a real failure.
            if report.failed == ["not-an-image": 1] {
                if !quiet {
                    printError("catalog-mirror: the not-an-image rejection is the sample's JSON-error entry, as intended")
                }
                return ExitStatus.ok
            }
            return report.exitStatus
        }
        if !quiet && status <= 1 {
            print(
                """
                Mirror written to \(layout.root.path). Serve it with any static web server, for example:
                  python3 -m http.server -d \(output.out) 8000     then open http://127.0.0.1:8000/
                Check it:  catalog-mirror verify --out \(output.out)
                """)
        }
        throw ExitCode(status)
    }
}
