import ArgumentParser
import CatalogMirror
import Foundation

/// `catalog-mirror verify [--out DIR]`.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Re-hash every file listed in manifest.json.",
        discussion: "Exit status: 0 every file matches; 1 a file is missing or differs; 2 no readable manifest."
    )

    @OptionGroup var output: OutputOptions

    @Flag(help: "Print only problems.")
    var quiet = false

    @Option(
        help: ArgumentHelp(
            "Check the objects of this bucket and prefix against its manifest.json instead of DIR (present, size, SHA-256).",
            valueName: "s3://BUCKET/PREFIX"))
    var publish: String?

    func validate() throws {
        if let publish, ObjectStoreTarget(publish) == nil {
            throw ValidationError("--publish takes s3://BUCKET/PREFIX with a valid bucket name (got \"\(publish)\")")
        }
    }

    func run() async throws {
        if let publish, let target = ObjectStoreTarget(publish) {
            try await verify(target)
            return
        }
        let layout = output.layout
        let report: MirrorVerifier.Report
        do {
            report = try MirrorVerifier.verify(layout)
        } catch {
            printError("catalog-mirror: error: \(error.description)")
            throw ExitCode(ExitStatus.usage)
        }
        for problem in report.problems { printError("catalog-mirror: mismatch: \(problem)") }
        if report.isClean {
            if !quiet {
                printError("catalog-mirror: verified \(report.checked) files in \(layout.root.path): all match manifest.json")
            }
        } else {
            printError(
                "catalog-mirror: \(report.problems.count) of \(report.checked) files in \(layout.root.path) do not match manifest.json"
            )
            throw ExitCode(ExitStatus.itemsFailed)
        }
    }

    /// `verify --publish`: every item of the bucket's manifest has its object, size and hash.
    private func verify(_ target: ObjectStoreTarget) async throws {
        let result: (checked: Int, problems: [String])
        do {
            let bucket = try BucketPublishing(target: target, environment: ProcessInfo.processInfo.environment)
            result = try await bucket.verify()
        } catch {
            printError("catalog-mirror: error: \(error.description)")
            throw ExitCode(error.code == .failed ? ExitStatus.itemsFailed : ExitStatus.usage)
        }
        for problem in result.problems { printError("catalog-mirror: mismatch: \(target)\(problem)") }
        if result.problems.isEmpty {
            if !quiet {
                printError("catalog-mirror: verified \(result.checked) objects in \(target): all match its manifest.json")
            }
        } else {
            printError(
                "catalog-mirror: \(result.problems.count) of \(result.checked) objects in \(target) do not match its manifest.json"
            )
            throw ExitCode(ExitStatus.itemsFailed)
        }
    }
}
