import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@testable import CatalogMirror
@testable import MirrorObjectStore

/// A real SeaweedFS (`weed server -s3`) on 127.0.0.1 with ephemeral ports, its data in a
/// temporary directory, one identity with a key and secret, anonymous read (as a bucket behind
/// a CDN is served), and a bucket `gallery`. In front of its S3 port, a counting proxy
/// (`Scripts/s3_proxy.py`) counts the requests that reach the store by kind, and can fail or
/// slow chosen PUTs; the mirror publishes through the proxy, readers read the store directly.
struct SeaweedFS {
    static let accessKey = "catalog-mirror-test"
    static let secretKey = "test-secret/with+signs"
    static let bucket = "gallery"

    let weed: Process
    let proxy: Process
    /// The S3 port of the store itself.
    let s3Port: Int
    /// The proxy's port, which `AWS_ENDPOINT_URL_S3` names.
    let proxyPort: Int
    let directory: URL
    /// The store's HTTPS port, when it was started with a certificate (`start(in:tls:)`).
    var httpsPort: Int? = nil

    /// The environment a sync publishing here runs with.
    var environment: [String: String] {
        [
            "AWS_ACCESS_KEY_ID": Self.accessKey, "AWS_SECRET_ACCESS_KEY": Self.secretKey, "AWS_REGION": "us-east-1",
            "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:\(proxyPort)", "AWS_PROFILE": "",
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        ]
    }

    /// Starts the store and the proxy in `directory`, waits until both answer, creates the bucket.
    /// With `tls`, the store also serves S3 over HTTPS with that certificate (`httpsPort`).
    static func start(in directory: URL, tls: ServerIdentity? = nil) async throws -> SeaweedFS {
        // Its ten ports are found free and then bound by another process: one taken in between
        // (by a test running beside this one) ends the store at once; it is started again on
        // other ports, in a fresh folder.
        var attempt = 0
        while true {
            attempt += 1
            let folder = directory.appendingPathComponent(attempt == 1 ? "weed" : "weed-\(attempt)")
            do {
                return try await startOnce(in: folder, tls: tls)
            } catch let failure as Failure where failure.exited && attempt < 3 {
                continue
            }
        }
    }

    private static func startOnce(in directory: URL, tls: ServerIdentity?) async throws -> SeaweedFS {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let weedPath = try ExternalTool.seaweedfs.required()
        let python = try ExternalTool(name: "python3", executable: "python3", install: "apt-get install python3").required()
        let data = directory.appendingPathComponent("weed-data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let identities = directory.appendingPathComponent("identities.json")
        try Data(
            """
            {"identities": [
              {"name": "publisher", "credentials": [{"accessKey": "\(accessKey)", "secretKey": "\(secretKey)"}],
               "actions": ["Admin", "Read", "Write", "List", "Tagging"]},
              {"name": "anonymous", "actions": ["Read"]}
            ]}
            """.utf8
        ).write(to: identities)
        let ports = try (0..<10).map { _ in try NodeExporter.freePort() }
        let weed = Process()
        weed.executableURL = URL(fileURLWithPath: weedPath)
        weed.arguments = [
            "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=\(data.path)", "-master.volumeSizeLimitMB=64",
            "-master.port=\(ports[0])", "-master.port.grpc=\(ports[1])", "-volume.port=\(ports[2])",
            "-volume.port.grpc=\(ports[3])", "-filer.port=\(ports[4])", "-filer.port.grpc=\(ports[5])", "-s3",
            "-s3.port=\(ports[6])", "-s3.port.grpc=\(ports[7])", "-s3.port.iceberg=0", "-s3.port.lance=0",
            "-s3.config=\(identities.path)",
        ]
        if let tls {
            let certificate = directory.appendingPathComponent("s3-cert.pem")
            let key = directory.appendingPathComponent("s3-key.pem")
            try Data(tls.certificatePEM.utf8).write(to: certificate)
            try Data(tls.keyPEM.utf8).write(to: key)
            weed.arguments? += ["-s3.port.https=\(ports[9])", "-s3.cert.file=\(certificate.path)", "-s3.key.file=\(key.path)"]
        }
        let log = directory.appendingPathComponent("weed.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        weed.standardOutput = try FileHandle(forWritingTo: log)
        weed.standardError = try FileHandle(forWritingTo: log)
        try weed.run()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts/s3_proxy.py")
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: python)
        proxy.arguments = [script.path, "\(ports[8])", "\(ports[6])"]
        proxy.standardOutput = FileHandle.nullDevice
        proxy.standardError = try FileHandle(forWritingTo: log)
        try proxy.run()
        let store = SeaweedFS(
            weed: weed, proxy: proxy, s3Port: ports[6], proxyPort: ports[8], directory: directory,
            httpsPort: tls == nil ? nil : ports[9])
        do {
            try await store.createBucket(deadline: .now + .seconds(90), log: log)
        } catch {
            store.stop()
            throw error
        }
        return store
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// True when the store exited while it started (a port taken), rather than timing out.
        var exited = false
    }

    /// Creates the bucket once the store takes requests (the filer and volume server start
    /// after the S3 port opens, so the first tries may fail).
    private func createBucket(deadline: ContinuousClock.Instant, log: URL) async throws {
        var last = ""
        while ContinuousClock.now < deadline {
            guard weed.isRunning else { break }
            do {
                let answer = try await signedRequest("PUT", path: "/\(Self.bucket)", port: s3Port)
                if answer == 200 || answer == 409 { return }
                last = "HTTP \(answer)"
            } catch {
                last = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(250))
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw Failure(
            description: "SeaweedFS did not create the bucket (\(last)): \(output.suffix(800))", exited: !weed.isRunning)
    }

    /// A request signed with the test identity, straight to `port`; its status.
    func signedRequest(_ method: String, path: String, port: Int) async throws -> Int {
        let endpoint = ObjectStoreEndpoint(
            scheme: "http", authority: "127.0.0.1:\(port)", basePath: "", region: "us-east-1",
            credentials: ObjectStoreCredentials(accessKeyID: Self.accessKey, secretAccessKey: Self.secretKey))
        let target = try #require(ObjectStoreTarget("s3://\(Self.bucket)"))
        return try await S3Client.with(target, endpoint: endpoint) { client in
            var client = client
            client.attempts = 1
            return try await client.send(method, key: String(path.dropFirst()), body: Data(), headers: []).status
        }
    }

    /// Stops both with SIGKILL: the test process may run with SIGTERM ignored (a signal test
    /// of the suite), which its children inherit, and the store's data is thrown away anyway.
    func stop() {
        for process in [proxy, weed] where process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    // MARK: - The proxy

    /// Requests that reached the store since the last reset, by kind (`PUT`, `LIST`, `DELETE`...).
    func counts() async throws -> [String: Int] {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(proxyPort)/__proxy/counts"), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return try JSONDecoder().decode([String: Int].self, from: Data(body.readableBytesView))
    }

    /// Every request counted since the last reset, as `KIND /bucket/key`, in arrival order.
    func requests() async throws -> [String] {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(proxyPort)/__proxy/requests"), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 16 << 20)
        return try JSONDecoder().decode([String].self, from: Data(body.readableBytesView))
    }

    func resetCounts() async throws { try await control("reset") }

    /// Every PUT whose path contains `match` answers 500 from now on (nil: none), or only the
    /// next `times` of them.
    func failPuts(matching match: String?, times: Int? = nil) async throws {
        let text = (match ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        try await control("fail?match=\(text)" + (times.map { "&times=\($0)" } ?? ""))
    }

    /// A signed PUT of `body` at `key`, straight to the store (a test changing what the bucket holds).
    func put(_ key: String, _ body: Data) async throws -> Int {
        let endpoint = ObjectStoreEndpoint(
            scheme: "http", authority: "127.0.0.1:\(s3Port)", basePath: "/\(Self.bucket)", region: "us-east-1",
            credentials: ObjectStoreCredentials(accessKeyID: Self.accessKey, secretAccessKey: Self.secretKey))
        let target = try #require(ObjectStoreTarget("s3://\(Self.bucket)"))
        return try await S3Client.with(target, endpoint: endpoint) { client in
            try await client.send("PUT", key: key, body: body, headers: []).status
        }
    }

    /// Every PUT waits `milliseconds` before it reaches the store.
    func delayPuts(milliseconds: Int) async throws { try await control("delay?ms=\(milliseconds)") }

    private func control(_ command: String) async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(proxyPort)/__proxy/\(command)")
        request.method = .POST
        _ = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    }

    // MARK: - Reading the bucket as a visitor does

    /// An anonymous GET of `key` from the store itself: status, headers, body.
    func anonymousGet(_ key: String) async throws -> (status: Int, headers: [String: String], body: Data) {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(s3Port)/\(Self.bucket)/\(key)"), timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 64 << 20)
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        return (Int(response.status.code), headers, Data(body.readableBytesView))
    }
}
