import Foundation
import Testing

/// The soak test (`Benchmarks/soak.py`), bounded for CI: syncs one after another against a
/// gallery that changes while they run, a third of them killed with SIGKILL (mostly in the
/// publish step), some with a second sync beside them, a reader of the served mirror all the
/// while, `verify` after every sync, and an exact comparison with the gallery at the end. It
/// fails on any missing, partial, lost or stray file, and when it did not exercise each of
/// those situations. The longer run is the benchmark regime (`Benchmarks/README.md`, "Soak").
///
/// Replay a failure with the seed it prints: `CATALOG_MIRROR_SOAK_SEED=N swift test --filter
/// SoakTests`, or `python3 Benchmarks/soak.py --binary .build/debug/catalog-mirror --seed N`.
@Suite("Soak")
struct SoakTests {
    static let python = ExternalTool(name: "python3", executable: "python3", install: "apt-get install python3")
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Benchmarks/soak.py")

    @Test("syncs killed, doubled and read from while the gallery changes: nothing missing, partial, lost or stray")
    func soak() async throws {
        let python = try Self.python.required()
        let binary = try #require(Binary.url, "build the catalog-mirror executable first (swift build)")
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["CATALOG_MIRROR_SOAK_SEED"] ?? "38"
        let seconds = environment["CATALOG_MIRROR_SOAK_SECONDS"] ?? "90"
        let run = try await ExternalTool.run(
            python,
            [Self.script.path, "--binary", binary.path, "--seconds", seconds, "--seed", seed, "--images", "40"])
        print(run.stdout, terminator: "")
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("soak passed"), "\(run.stdout)")
    }
}
