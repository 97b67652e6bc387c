import Foundation
import Testing

/// A program of the system that a test drives as an operator would: node_exporter, promtool,
/// python3 with feedparser. `.ci/run` installs them.
///
/// A test that needs one runs when it is there, or when `CI` is `true` (then a missing tool
/// fails the test, naming what `.ci/run` must install); elsewhere it is skipped with a one-line
/// note saying what to install.
struct ExternalTool: Sendable {
    /// The executable's name, looked up on `PATH` (and in the sbin folders, where Debian puts some).
    let name: String
    /// What installs it, for the note.
    let install: String
    /// An extra check that it works (python3 with a module), as arguments to run it with.
    var probe: [String]?

    static let nodeExporter = ExternalTool(name: "prometheus-node-exporter", install: "apt-get install prometheus-node-exporter")
    static let promtool = ExternalTool(name: "promtool", install: "apt-get install prometheus")
    static let feedparser = ExternalTool(
        name: "python3", install: "python3 -m pip install feedparser", probe: ["-c", "import feedparser"])

    static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The executable's path, when it is installed (and its probe passes).
    var path: String? {
        let folders =
            (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
            + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
        guard let path = folders.map({ "\($0)/\(name)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) })
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

    /// Whether a test needing `tools` runs here (see the type's comment).
    static func runs(_ tools: ExternalTool...) -> Bool {
        isCI || tools.allSatisfy { $0.path != nil }
    }

    /// The note of a test skipped for want of `tools`.
    static func note(_ tools: ExternalTool...) -> Comment {
        Comment(rawValue: "needs " + tools.map { "\($0.name) (\($0.install))" }.joined(separator: " and "))
    }

    /// The path, or a failure that says what to install (under CI, what `.ci/run` must install).
    func required() throws -> String {
        try #require(path, "\(name) is not installed: \(install)\(Self.isCI ? " (CI=true: .ci/run must install it)" : "")")
    }

    /// Runs it with `arguments` (and `input` on standard input) and waits for it.
    func run(_ arguments: [String], input: Data? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await Self.run(required(), arguments, input: input)
    }

    /// Runs `executable` with `arguments` (and `input` on standard input) and waits for it.
    static func run(_ executable: String, _ arguments: [String], input: Data? = nil) async throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
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
}
