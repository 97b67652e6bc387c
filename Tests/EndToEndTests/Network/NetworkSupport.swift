import Crypto
import Foundation
import Hummingbird
import HummingbirdHTTP2
import Logging
import MirrorTestSupport
import NIOCore
import NIOPosix
import NIOSSL
import SwiftASN1
import Synchronization
import Testing
import X509

@testable import CatalogMirror

/// A test certificate authority and the server certificates it signs, made fresh in each test
/// (no private key is committed).
struct TestAuthority {
    let key = P256.Signing.PrivateKey()
    let certificate: Certificate
    let name: DistinguishedName

    init(commonName: String = "catalog-mirror test CA") throws {
        name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: now - 3600,
            notValidAfter: now + 86_400, issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            }, issuerPrivateKey: .init(key))
    }

    /// The authority's certificate as PEM (what `--ca-certificate` reads).
    var pem: String { (try? certificate.serializeAsPEM().pemString) ?? "" }

    /// Writes the authority's PEM into `directory` and returns its path.
    func writePEM(into directory: URL) throws -> String {
        let url = directory.appendingPathComponent("ca-\(UUID().uuidString).pem")
        try Data(pem.utf8).write(to: url)
        return url.path
    }

    /// A server certificate for `names` (DNS names, or IPv4 addresses), valid from `from` to `until`.
    func serverIdentity(
        names: [String] = ["127.0.0.1", "localhost"], from: Date = Date() - 3600, until: Date = Date() + 86_400
    ) throws -> ServerIdentity {
        let leafKey = P256.Signing.PrivateKey()
        let alternatives = names.map { name -> GeneralName in
            let parts = name.split(separator: ".").compactMap { UInt8($0) }
            return parts.count == 4 ? .ipAddress(ASN1OctetString(contentBytes: ArraySlice(parts))) : .dnsName(name)
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey), notValidBefore: from,
            notValidAfter: until, issuer: name, subject: try DistinguishedName { CommonName(names.first ?? "server") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                SubjectAlternativeNames(alternatives)
                try ExtendedKeyUsage([.serverAuth])
            }, issuerPrivateKey: .init(key))
        return ServerIdentity(certificatePEM: try leaf.serializeAsPEM().pemString, keyPEM: leafKey.pemRepresentation)
    }
}

/// A server certificate and its key, as PEM.
struct ServerIdentity: Sendable {
    var certificatePEM: String
    var keyPEM: String

    func tlsConfiguration() throws -> TLSConfiguration {
        TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)))
    }
}

/// Serves `router` over TLS on 127.0.0.1 (HTTP/2 or HTTP/1.1 by ALPN) and runs `body` with the port.
func serveTLS<T: Sendable>(
    _ router: Router<BasicRequestContext>, identity: ServerIdentity, _ body: @Sendable (Int) async throws -> T
) async throws -> T {
    try await withServer(label: "tls-test-server") { onServerRunning, logger in
        Application(
            router: router, server: try .http2Upgrade(tlsConfiguration: try identity.tlsConfiguration()),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)), onServerRunning: onServerRunning, logger: logger)
    } _: { port in
        try await body(port)
    }
}

/// A forward proxy on 127.0.0.1 that speaks CONNECT (how async-http-client uses a proxy for
/// http and https alike), records every tunnel's target, and optionally demands credentials.
final class ConnectProxy: Sendable {
    /// `host:port` of every tunnel opened, in order.
    let tunnels = Mutex<[String]>([])
    /// The `Proxy-Authorization` value required, or nil for none.
    let requiredAuthorization: String?

    init(requiredAuthorization: String? = nil) {
        self.requiredAuthorization = requiredAuthorization
    }

    var log: [String] { tunnels.withLock { $0 } }

    /// Runs the proxy while `body` runs with its port.
    func run<T: Sendable>(_ body: @Sendable (Int) async throws -> T) async throws -> T {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let port = server.channel.localAddress?.port ?? 0
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await withThrowingDiscardingTaskGroup { connections in
                    try await server.executeThenClose { inbound in
                        for try await connection in inbound {
                            connections.addTask { try? await self.serve(connection) }
                        }
                    }
                }
                return nil
            }
            defer { group.cancelAll() }
            return try await body(port)
        }
    }

    private func serve(_ connection: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async throws {
        try await connection.executeThenClose { inbound, outbound in
            var iterator = inbound.makeAsyncIterator()
            var head = ByteBuffer()
            var end: Int?
            while end == nil {
                guard var chunk = try await iterator.next() else { return }
                head.writeBuffer(&chunk)
                end = String(buffer: head).range(of: "\r\n\r\n").map { String(buffer: head)[..<$0.upperBound].utf8.count }
                if head.readableBytes > 64 * 1024 { return }
            }
            let text = String(buffer: head)
            let lines = text.components(separatedBy: "\r\n")
            let request = lines[0].split(separator: " ")
            guard request.count == 3, request[0] == "CONNECT" else {
                try await outbound.write(ByteBuffer(string: "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n"))
                return
            }
            let target = String(request[1])
            if let requiredAuthorization {
                let given = lines.first { $0.lowercased().hasPrefix("proxy-authorization:") }
                    .map { $0.dropFirst("proxy-authorization:".count).trimmingCharacters(in: .whitespaces) }
                guard given == requiredAuthorization else {
                    try await outbound.write(
                        ByteBuffer(
                            string:
                                "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"test\"\r\nContent-Length: 0\r\n\r\n"
                        ))
                    return
                }
            }
            tunnels.withLock { $0.append(target) }
            guard let colon = target.lastIndex(of: ":"), let port = Int(target[target.index(after: colon)...]) else { return }
            let upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: String(target[..<colon]), port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            // Everything after the connect happens inside `executeThenClose`: an upstream
            // channel dropped without it (the client gone before the 200 went out) ends the test
            // process ("Deinited NIOAsyncWriter without calling finish()").
            try await upstream.executeThenClose { upstreamIn, upstreamOut in
                try await outbound.write(ByteBuffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n"))
                if let end, head.readableBytes > end {
                    head.moveReaderIndex(forwardBy: end)
                    try await upstreamOut.write(head)
                }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for try await chunk in upstreamIn { try await outbound.write(chunk) }
                    }
                    while let chunk = try await iterator.next() { try await upstreamOut.write(chunk) }
                    group.cancelAll()
                }
            }
        }
    }
}

/// Runs the built binary with `arguments` and extra `environment` variables, standard error a
/// pipe (as under cron).
func runBinary(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) async throws -> Binary.Result {
    let binary = try #require(Binary.url, "build the catalog-mirror executable first (swift build)")
    var merged = ProcessInfo.processInfo.environment
    for key in ["http_proxy", "https_proxy", "all_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"] {
        merged[key] = nil
    }
    merged.merge(environment) { $1 }
    let run = try await ExternalTool.run(binary.path, arguments, in: directory, environment: merged)
    return Binary.Result(status: run.status, stdout: run.stdout, stderr: run.stderr)
}

/// Every file under `root` whose bytes contain `secret`, as paths relative to `root`.
func filesContaining(_ secret: String, under root: URL) -> [String] {
    var found: [String] = []
    let needle = Data(secret.utf8)
    let enumerator = FileManager.default.enumerator(atPath: root.path)
    while let path = enumerator?.nextObject() as? String {
        guard let data = FileManager.default.contents(atPath: root.appendingPathComponent(path).path) else { continue }
        if data.range(of: needle) != nil { found.append(path) }
    }
    return found
}
