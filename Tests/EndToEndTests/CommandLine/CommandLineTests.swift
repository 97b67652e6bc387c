import Dispatch
import Foundation
import MirrorTestSupport
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorOperate
@testable import MirrorStore
@testable import SampleGallery

/// Runs the built `catalog-mirror` binary, as a user or cron would.
struct Binary {
    static let url: URL? = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL,
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug"),
        ]
        return candidates.map { $0.appendingPathComponent("catalog-mirror") }.first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// A started binary whose exit can be awaited.
    struct Running {
        let process: Process
        let exited: AsyncStream<Int32>

        /// The exit status, or minus the signal number when a signal ended it.
        func wait() async -> Int32 {
            var iterator = exited.makeAsyncIterator()
            return await iterator.next() ?? -1
        }
    }

    /// Starts the binary with `arguments` in `directory`, with this process's environment plus
    /// `environment`; output goes where the caller says.
    static func start(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:], stdout: Any = FileHandle.nullDevice,
        stderr: Any = FileHandle.nullDevice
    ) throws -> Running {
        let executable: URL = try #require(url, "build the catalog-mirror executable first (swift build)")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        process.currentDirectoryURL = directory
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        let exited = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { process in
            exited.continuation.yield(
                process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus)
            exited.continuation.finish()
        }
        try process.run()
        return Running(process: process, exited: exited.stream)
    }

    /// Runs the binary with `arguments` in `directory` (environment as `start`); standard error
    /// is a pipe, as under cron.
    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) async throws -> Result {
        let out = Pipe()
        let err = Pipe()
        let running = try start(arguments, in: directory, environment: environment, stdout: out, stderr: err)
        async let stdout = readToEnd(out.fileHandleForReading)
        async let stderr = readToEnd(err.fileHandleForReading)
        let (o, e) = await (stdout, stderr)
        let status = await running.wait()
        return Result(status: status, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// Reads `handle` to its end on a thread of its own. Not on a Dispatch global queue: on
    /// Linux the Swift concurrency pool runs on those same few threads, so a dozen blocked
    /// pipe reads starve the in-process test servers, whose requests then wait for the binary
    /// that waits for them (a deadlock broken only by timeouts).
    static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: readAll(handle)) }
            thread.start()
        }
    }

    /// Reads `handle` to its end with read(2), retrying when a signal interrupts it. Not
    /// `readDataToEndOfFile()`: on Linux it traps (`try!`) on EINTR, which the SIGCHLD of
    /// the many processes the suite starts can cause.
    static func readAll(_ handle: FileHandle) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[..<count])
            } else if count == 0 || errno != EINTR {
                return data
            }
        }
    }
}

@Suite("The catalog-mirror command line")
struct CommandLineTests {
    @Test("--help and --version work on every command")
    func help() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        for command in [[], ["sync"], ["verify"], ["demo"]] {
            let result = try await Binary.run(command + ["--help"], in: directory.url)
            #expect(result.status == 0, "\(command)")
            #expect((result.stdout + result.stderr).contains("USAGE"))
        }
        let sync = try await Binary.run(["sync", "--help"], in: directory.url)
        for option in [
            "--out", "--feed", "--max-pages", "--concurrency", "--include", "--exclude", "--allow-host", "--max-size", "--report",
            "--quiet", "--ca-certificate", "--no-check-certificate", "--proxy", "--header", "--user-agent", "--cookies",
            "--netrc", "--speed-limit", "--speed-time",
        ] {
            #expect(sync.stdout.contains(option), "sync --help lacks \(option)")
        }
        let version = try await Binary.run(["--version"], in: directory.url)
        #expect(version.status == 0)
        // The version and the git revision the binary was built from.
        #expect(
            version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).wholeMatch(
                of: /\d+\.\d+\.\d+ \(git ([0-9a-f]{7,40}|unknown)\)/) != nil, "\(version.stdout)")
        #expect(version.stdout.hasPrefix(CatalogMirrorVersion.current + " "))
    }

    @Test(
        "usage errors exit 2 with one clear line",
        arguments: [
            ["sync", "--bogus"], ["sync", "ftp://example.com/"], ["sync", "not a url"],
            ["sync", "--max-pages", "0", "http://h/"],
            ["sync", "--concurrency", "banana", "http://h/"], ["sync", "--max-size", "lots", "http://h/"], ["sync"], ["verify"],
            ["frobnicate"],
        ])
    func usageErrors(arguments: [String]) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let result = try await Binary.run(arguments, in: directory.url)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(!result.stderr.isEmpty)
        #expect(!result.stderr.contains("Fatal error"))
        #expect(
            !FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("mirror").path)
                || arguments == ["verify"])
    }

    @Test("a corrupt settings file is exit 2 naming the file, and nothing changes")
    func corruptSettings() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let state = directory.url.appendingPathComponent("mirror/.catalog-mirror")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try Data("{\"source\": ".utf8).write(to: state.appendingPathComponent("settings.json"))
        let result = try await Binary.run(["sync"], in: directory.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("settings.json"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try String(contentsOf: state.appendingPathComponent("settings.json"), encoding: .utf8) == "{\"source\": ")
    }

    @Test("sync saves its settings; the cron form reuses them; another URL into the same DIR is refused")
    func syncAndCron() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = GalleryServer(catalog: Fixture.catalog())
        try await server.run { url in
            // Standard error is a pipe here, as under cron: warnings and one summary line, no progress.
            let first = try await Binary.run(
                ["sync", url.absoluteString, "--max-pages", "10", "--report", "report.json"], in: directory.url)
            #expect(first.status == 1, "\(first.stderr)")
            let lines = first.stderr.split(separator: "\n")
            #expect(lines.allSatisfy { $0.hasPrefix("catalog-mirror: ") })
            #expect(lines.filter { $0.contains("warning:") }.count == 2)
            #expect(lines.last?.contains(" in 12 files, ") == true, "\(first.stderr)")
            #expect(!first.stderr.contains("\r"))
            let report = try RunReport.decode(Data(contentsOf: directory.url.appendingPathComponent("report.json")))
            #expect(report.exitStatus == 1)
            #expect(report.failed == ["http-404": 1, "not-an-image": 1])
            #expect(report.added == 12 && report.bytesDownloaded > 0 && report.durationSeconds > 0)
            let phases = report.phases
            #expect(Set(phases.keys) == ["crawl", "fetch", "publish"])
            #expect(phases["crawl"]! <= phases["fetch"]! && phases["fetch"]! <= phases["publish"]!)
            let settings = try SettingsStore.load(MirrorLayout(root: directory.url.appendingPathComponent("mirror")))
            #expect(settings?.source == url.absoluteString)
            #expect(settings?.maxPages == 10)

            let cron = try await Binary.run(["sync", "--quiet"], in: directory.url)
            #expect(cron.status == 1)
            #expect(cron.stderr.isEmpty, "--quiet printed: \(cron.stderr)")

            let other = try await Binary.run(["sync", "http://127.0.0.1:1/elsewhere/"], in: directory.url)
            #expect(other.status == 2)
            #expect(other.stderr.contains(url.absoluteString) && other.stderr.contains("http://127.0.0.1:1/elsewhere/"))

            let verify = try await Binary.run(["verify"], in: directory.url)
            #expect(verify.status == 0, "\(verify.stderr)")
        }
    }

    @Test("an unreachable source exits 3")
    func unreachable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let closed = try await TestServer().run(routes: { _, _ in }) { origin in origin }
        let result = try await Binary.run(["sync", closed + "/gallery/"], in: directory.url)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains(closed))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("mirror").path))
    }

    @Test("demo mirrors the sample gallery; verify accepts it, then catches a damaged file")
    func demoAndVerify() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let demo = try await Binary.run(["demo"], in: directory.url)
        #expect(demo.status == 0, "\(demo.stderr)")
        #expect(demo.stdout.contains("python3 -m http.server"))
        let mirror = directory.url.appendingPathComponent("mirror")
        #expect(try unresolvedReferences(in: mirror) == [])
        #expect(try await Binary.run(["verify"], in: directory.url).status == 0)
        let manifest = try Manifest.read(from: mirror.appendingPathComponent("manifest.json"))
        #expect(manifest.items.count == SampleImage.bundled.count)
        #expect(manifest.rejected.contains { $0.reason == "not-an-image" })

        // A second demo into the same directory works too.
        #expect(try await Binary.run(["demo", "--quiet"], in: directory.url).status == 0)

        let victim = mirror.appendingPathComponent(
            try #require(Manifest.read(from: mirror.appendingPathComponent("manifest.json")).items.first).path)
        try Data("tampered".utf8).write(to: victim)
        let damaged = try await Binary.run(["verify"], in: directory.url)
        #expect(damaged.status == 1)
        #expect(damaged.stderr.contains(victim.lastPathComponent))
        try FileManager.default.removeItem(at: victim)
        #expect(try await Binary.run(["verify"], in: directory.url).status == 1)
        #expect(try await Binary.run(["verify", "--out", "nowhere"], in: directory.url).status == 2)
    }
}

@Suite("Stopping and odd sources")
struct StoppingTests {
    @Test("SIGINT during downloads stops the run at once and leaves nothing outside .catalog-mirror/")
    func interrupt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = TestServer()
        /// `done` is set when the test is done: the stuck downloads then end, and do not hold up
        /// the server's shutdown. `answered` is set when a stuck download is answered.
        final class Release: Sendable {
            let done = Mutex(false)
            let answered = Mutex(false)
        }
        let release = Release()
        defer { release.done.withLock { $0 = true } }
        try await server.run(routes: { router, _ in
            router.get("/") { _, _ in html("<img src=\"/stuck.png\"><img src=\"/quick.png\">") }
            router.get("/quick.png") { _, _ in bytes(Fixture.png) }
            router.get("/stuck.png") { _, _ in
                for _ in 0..<3_000 where !release.done.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(20)) }
                release.answered.withLock { $0 = true }
                return bytes(Fixture.png)
            }
        }) { origin in
            // Into a new folder, and into one that was there (and empty) before.
            let existing = directory.url.appendingPathComponent("existing")
            try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: false)
            for output in [directory.url.appendingPathComponent("m"), existing] {
                let quickBefore = server.log.filter { $0 == "/quick.png" }.count
                let stuckBefore = server.log.filter { $0 == "/stuck.png" }.count
                let running = try Binary.start(["sync", origin + "/", "--out", output.path], in: directory.url)
                // Wait (by condition, not by time) until the stuck download is under way and the
                // quick one is staged.
                let staged = output.appendingPathComponent(".catalog-mirror/staged").path
                while server.log.filter({ $0 == "/stuck.png" }).count == stuckBefore
                    || server.log.filter({ $0 == "/quick.png" }).count == quickBefore
                    || ((try? FileManager.default.contentsOfDirectory(atPath: staged))?.isEmpty ?? true)
                {
                    try await Task.sleep(for: .milliseconds(20))
                }
                running.process.interrupt()
                #expect(await running.wait() == 130)
                // It stopped before the server answered the stalled download (a minute from now,
                // or when this test ends): the pipelined path used to wait for the answer.
                #expect(!release.answered.withLock { $0 }, "the run waited for the stalled download")
                // The verified download is kept for the next run, in .catalog-mirror/ only: no
                // page, no manifest, no images/.
                #expect(try FileManager.default.contentsOfDirectory(atPath: output.path) == [".catalog-mirror"])
                let rows = try StateDatabase.open(MirrorLayout(root: output), readOnly: true).allImages()
                #expect(rows.map(\.key.string) == [origin + "/quick.png"])

                // `clean` throws it away; then nothing of the run is left but its empty state.
                let clean = try await Binary.run(["clean", "--out", output.path], in: directory.url)
                #expect(clean.status == 0, "\(clean.stderr)")
                #expect(clean.stderr.contains("removed 1 download kept for the next sync"), "\(clean.stderr)")
                #expect(try StateDatabase.open(MirrorLayout(root: output), readOnly: true).allImages().isEmpty)
                #expect(
                    try FileManager.default.contentsOfDirectory(
                        atPath: output.appendingPathComponent(".catalog-mirror/staged").path
                    ).isEmpty)
            }
            release.done.withLock { $0 = true }
        }
    }

    @Test("a JSON listing can be the source itself")
    func listingAsSource() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = GalleryServer(catalog: Fixture.catalog())
        try await server.run { url in
            let output = directory.url.appendingPathComponent("m")
            let report = try await MirrorEngine(
                configuration: testConfiguration(source: url.absoluteString + "images", output: output)
            ).run()
            #expect(report.published == 12)
            #expect(report.pages == 0)
            #expect(report.feeds == 1)
            #expect(!server.requestLog.contains("/gallery/"))
        }
    }
}

@Suite("The sync options through the binary")
struct SyncOptionTests {
    @Test("--feed, --max-pages, --concurrency, --include, --exclude, --allow-host and --max-size shape the mirror")
    func options() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = GalleryServer(catalog: Fixture.catalog())
        try await server.run { url in
            let origin = "http://127.0.0.1:\(url.port!)"
            // Only the listing is read (no pages), and only small images pass.
            let sized = try await Binary.run(
                [
                    "sync", url.absoluteString, "--feed", url.absoluteString + "images", "--max-pages", "1", "--concurrency", "1",
                    "--max-size", "12K", "--out", "sized",
                ], in: directory.url)
            #expect(sized.status == 1, "\(sized.stderr)")
            let manifest = try Manifest.read(from: directory.url.appendingPathComponent("sized/manifest.json"))
            #expect(!manifest.items.isEmpty && manifest.items.allSatisfy { $0.bytes <= 12 * 1024 })
            #expect(manifest.rejected.contains { $0.reason == "too-large" })
            #expect(!server.requestLog.contains("/gallery/feed.rss"))
            #expect(server.requestLog.filter { $0.hasPrefix("/gallery/?page") }.isEmpty)

            // Filters: the private link is excluded before robots.txt is even consulted.
            let filtered = try await Binary.run(
                [
                    "sync", url.absoluteString, "--exclude", "/gallery/private/**", "--include", "/gallery/**",
                    "--allow-host", "127.0.0.2", "--out", "filtered",
                ], in: directory.url)
            #expect(filtered.status == 1)
            let rejected = try Manifest.read(from: directory.url.appendingPathComponent("filtered/manifest.json")).rejected
            #expect(rejected.contains(.init(key: origin + "/gallery/private/preview.png", reason: "excluded")))
            let settings = try SettingsStore.load(MirrorLayout(root: directory.url.appendingPathComponent("filtered")))
            #expect(settings?.exclude == ["/gallery/private/**"] && settings?.allowHost == ["127.0.0.2"])
        }
    }

    @Test("the prune guard exits 4 through the binary and the report says how many would go")
    func guardExit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = GalleryServer(catalog: Fixture.catalog())
        try await server.run { url in
            #expect(try await Binary.run(["sync", url.absoluteString], in: directory.url).status == 1)
            server.update { $0.entries = Array($0.entries.prefix(2)) }
            let guarded = try await Binary.run(["sync", "--report", "r.json"], in: directory.url)
            #expect(guarded.status == 4)
            #expect(guarded.stderr.contains("--max-delete"))
            let report = try RunReport.decode(Data(contentsOf: directory.url.appendingPathComponent("r.json")))
            #expect(report.exitStatus == 4 && report.removed == 10)
            #expect(try await Binary.run(["sync", "--max-delete", "banana"], in: directory.url).status == 2)
            #expect(try await Binary.run(["sync", "--max-delete", "101%"], in: directory.url).status == 2)
            let allowed = try await Binary.run(["sync", "--max-delete", "10", "--report", "r.json"], in: directory.url)
            #expect(allowed.status == 0, "\(allowed.stderr)")
            let done = try RunReport.decode(Data(contentsOf: directory.url.appendingPathComponent("r.json")))
            #expect(done.removed == 10 && done.unchanged == 2 && done.exitStatus == 0)
            #expect(
                try SettingsStore.load(MirrorLayout(root: directory.url.appendingPathComponent("mirror")))?.maxDelete
                    == .count(10))
        }
    }
}
