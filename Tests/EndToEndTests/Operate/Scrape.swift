import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// Samples of a Prometheus text exposition (a scrape, or a metrics file), by name and labels.
struct Scrape {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    let samples: [Sample]

    init(_ text: String) {
        var samples: [Sample] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let match = line.wholeMatch(of: /([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/), let value = Double(match.3)
            else { continue }
            var labels: [String: String] = [:]
            for label in (match.2 ?? "").matches(of: /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/) {
                labels[String(label.1)] = String(label.2)
                    .replacingOccurrences(of: "\\n", with: "\n").replacingOccurrences(of: "\\\"", with: "\"")
                    .replacingOccurrences(of: "\\\\", with: "\\")
            }
            samples.append(Sample(name: String(match.1), labels: labels, value: value))
        }
        self.samples = samples
    }

    /// The samples of `name` whose labels include `labels`.
    func all(_ name: String, _ labels: [String: String] = [:]) -> [Sample] {
        samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
    }

    /// The value of the one sample of `name` with `labels`; nil when there is none (or several).
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let found = all(name, labels)
        return found.count == 1 ? found[0].value : nil
    }
}

/// node_exporter with only its textfile collector, on a loopback port, reading `directory`.
struct NodeExporter {
    let url: String
    let process: Process
    let log: URL

    /// Starts it and waits until it answers a scrape (at most 20 s: it starts in milliseconds).
    static func start(textfiles directory: URL, log: URL) async throws -> NodeExporter {
        let executable = try ExternalTool.nodeExporter.required()
        let port = try freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=\(directory.path)",
            "--web.listen-address=127.0.0.1:\(port)",
        ]
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let exporter = NodeExporter(url: "http://127.0.0.1:\(port)/metrics", process: process, log: log)
        let deadline = ContinuousClock.now + .seconds(20)
        while true {
            if (try? await exporter.scrapeText()) != nil { return exporter }
            guard process.isRunning, ContinuousClock.now < deadline else {
                process.terminate()
                let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw ExporterError(description: "node_exporter did not answer on port \(port): \(output.suffix(500))")
            }
            try await Task.sleep(for: .milliseconds(25))
        }
    }

    struct ExporterError: Error, CustomStringConvertible { let description: String }

    func scrapeText() async throws -> String {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
        guard response.status == .ok else { throw ExporterError(description: "scrape answered \(response.status)") }
        let body = try await response.body.collect(upTo: 16 << 20)
        return String(buffer: body)
    }

    func scrape() async throws -> Scrape { Scrape(try await scrapeText()) }

    /// What node_exporter logged (a duplicate series across files is logged, not scraped).
    var logged: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// A TCP port nobody listens on now (bound to port 0, read, closed).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ExporterError(description: "socket: \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw ExporterError(description: "bind: \(errno)") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw ExporterError(description: "getsockname: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
