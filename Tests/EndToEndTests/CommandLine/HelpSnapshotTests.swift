import CatalogMirror
import Foundation
import MirrorTestSupport
import Testing

/// The `--help` text of every command, compared with the committed files in `HelpSnapshots/`,
/// as swift-argument-parser tests its example binaries: a renamed flag, a lost `help:` or a
/// changed default shows up as a failing diff here before a user or a cron job meets it.
///
/// After changing an option on purpose, regenerate the files and review their diff:
///
///     CATALOG_MIRROR_RECORD_SNAPSHOTS=1 swift test --filter HelpSnapshotTests
///     git diff Tests/EndToEndTests/CommandLine/HelpSnapshots
///
/// Recording writes the files and fails each test (so a recording run is never taken for a
/// passing one); run again without the variable to check.
@Suite("Help text snapshots")
struct HelpSnapshotTests {
    /// The commands whose help is pinned, by snapshot file name.
    static let commands: [(name: String, arguments: [String])] = [
        ("catalog-mirror", ["--help"]),
        ("sync", ["sync", "--help"]),
        ("verify", ["verify", "--help"]),
        ("clean", ["clean", "--help"]),
        ("demo", ["demo", "--help"]),
    ]

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "HelpSnapshots")

    static var recording: Bool { ProcessInfo.processInfo.environment["CATALOG_MIRROR_RECORD_SNAPSHOTS"] == "1" }

    @Test("--help matches its snapshot", arguments: HelpSnapshotTests.commands.map(\.name))
    func help(command: String) async throws {
        let arguments = try #require(Self.commands.first { $0.name == command }).arguments
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanup() }
        // The help is wrapped to the terminal's width: pin it, whatever the test's environment says.
        let result = try await Binary.run(arguments, in: scratch.url, environment: ["COLUMNS": "100", "LINES": "50"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(result.stderr.isEmpty, "\(arguments) wrote to standard error: \(result.stderr)")

        let snapshot = Self.directory.appendingPathComponent("\(command).txt")
        if Self.recording {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(result.stdout.utf8).write(to: snapshot)
            Issue.record("recorded \(snapshot.path); run again without CATALOG_MIRROR_RECORD_SNAPSHOTS to check it")
            return
        }
        let expected = try #require(
            try? String(contentsOf: snapshot, encoding: .utf8),
            "no snapshot \(snapshot.path): record it with CATALOG_MIRROR_RECORD_SNAPSHOTS=1")
        #expect(result.stdout == expected, "\(Self.firstDifference(expected, result.stdout))")
    }

    @Test("every subcommand has a snapshot")
    func everySubcommand() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.cleanup() }
        let root = try await Binary.run(["--help"], in: scratch.url, environment: ["COLUMNS": "100"])
        // The SUBCOMMANDS section lists each as "  name   abstract" (a wrapped abstract goes on
        // under it, indented further); `help` is the parser's own.
        let section = root.stdout.components(separatedBy: "SUBCOMMANDS:").last ?? ""
        let listed = section.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^  ([a-z][a-z0-9-]*)(?: |$)/).map { String($0.1) }
        }
        #expect(!listed.isEmpty, "\(root.stdout)")
        for name in listed where name != "help" {
            #expect(Self.commands.contains { $0.name == name }, "subcommand \(name) has no help snapshot")
        }
    }

    @Test("every field of the saved settings is an option of sync, named after it")
    func everySettingIsAnOption() throws {
        let help = try String(contentsOf: Self.directory.appendingPathComponent("sync.txt"), encoding: .utf8)
        // The fields by reflection, so a field added without its option fails here.
        let fields = Mirror(reflecting: MirrorSettings(source: "http://h/")).children.compactMap(\.label)
        #expect(fields.count > 20)
        for field in fields where field != "version" && field != "source" {
            let option = "--" + field.replacing(/[A-Z]/) { "-" + $0.output.lowercased() }
            let listed = help.contains("  \(option) ")
            #expect(listed, "the settings field \(field) has no option \(option) in sync's help")
        }
    }

    /// The first line where `expected` and `actual` part, for a readable failure.
    static func firstDifference(_ expected: String, _ actual: String) -> String {
        let (old, new) = (expected.components(separatedBy: "\n"), actual.components(separatedBy: "\n"))
        for index in 0..<max(old.count, new.count) {
            let (a, b) = (index < old.count ? old[index] : "<end>", index < new.count ? new[index] : "<end>")
            if a != b {
                return "line \(index + 1): expected \"\(a)\", got \"\(b)\""
                    + " (regenerate with CATALOG_MIRROR_RECORD_SNAPSHOTS=1 if intended)"
            }
        }
        return "same lines"
    }
}
