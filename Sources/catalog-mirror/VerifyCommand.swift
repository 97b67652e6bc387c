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

    func run() async throws {
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
}
