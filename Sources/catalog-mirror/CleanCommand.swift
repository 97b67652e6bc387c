import ArgumentParser
import CatalogMirror
import Foundation

/// `catalog-mirror clean [--out DIR]`: throws away what a stopped sync kept for the next one.
struct CleanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Throw away the downloads a stopped sync kept for the next one.",
        discussion: """
            A sync that stops before it publishes (a failure, a full disk, a signal, kill -9) keeps \
            the images it downloaded and verified in DIR/.catalog-mirror/, so the next sync fetches \
            only the rest. clean removes them, and any file a sync was writing. The published mirror \
            (images/, the pages, manifest.json) and the saved settings are left as they are.

            Exit status: 0 done (or nothing to remove); 1 a file or the index could not be changed; \
            2 DIR is not a mirror; 75 a sync holds the lock on DIR.
            """
    )

    @OptionGroup var output: OutputOptions

    @Flag(help: "Print only errors.")
    var quiet = false

    func run() async throws {
        let layout = output.layout
        let discarded: Leftovers.Discarded
        do {
            discarded = try await Leftovers.discard(in: layout)
        } catch {
            printError("catalog-mirror: error: \(error.message)")
            switch error.code {
            case .notAMirror: throw ExitCode(ExitStatus.usage)
            case .inUse: throw ExitCode(ExitStatus.locked)
            default: throw ExitCode(ExitStatus.itemsFailed)
            }
        }
        guard !quiet else { return }
        if discarded.files == 0 && discarded.downloads == 0 {
            printError("catalog-mirror: nothing to remove in \(layout.root.path)")
        } else {
            let size = ByteCountFormatter.string(fromByteCount: discarded.bytes, countStyle: .file)
            printError(
                "catalog-mirror: removed \(counted(discarded.downloads, "download")) kept for the next sync and "
                    + "\(counted(discarded.files, "file")) (\(size)) from \(layout.root.path)/.catalog-mirror")
        }
    }
}

/// "1 file", "2 files".
private func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
