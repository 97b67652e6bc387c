import ArgumentParser
import CatalogMirror
import Foundation

/// `catalog-mirror`: keeps an offline, static copy of an online image catalog.
@main
struct CatalogMirrorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog-mirror",
        abstract: "Keep an offline, static copy of an online image catalog.",
        discussion: """
            Exit status: 0 all good; 1 finished, but some items failed (the rest is published); \
            2 usage or settings error; 3 the source could not be crawled (mirror left as it was); \
            4 the --max-delete guard stopped the run (nothing deleted); 75 another sync holds the lock.
            """,
        version: "\(CatalogMirrorVersion.current) (git \(gitRevision))",
        subcommands: [SyncCommand.self, VerifyCommand.self, CleanCommand.self, DemoCommand.self]
    )

    /// Runs the parsed command. Usage errors exit 2 (the documented status), not ArgumentParser's 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                let message = fullMessage(for: error)
                FileHandle.standardError.write(Data((message.isEmpty ? "catalog-mirror: usage error" : message).utf8 + [0x0A]))
                Foundation.exit(ExitStatus.usage)
            }
            exit(withError: error)
        }
    }
}

/// `--out DIR`, shared by every command.
struct OutputOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The mirror directory.", valueName: "DIR"))
    var out: String = "mirror"

    var layout: MirrorLayout { MirrorLayout(root: URL(fileURLWithPath: out)) }
}

/// Writes one line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
