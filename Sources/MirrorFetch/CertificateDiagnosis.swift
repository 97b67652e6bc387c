import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Turns a failed TLS handshake into one line a user can act on: which host, what is wrong with
/// its certificate (expired, not yet valid, issued for other names, or signed by no trusted
/// authority) and what to do about it.
///
/// BoringSSL reports every verification failure as the same `CERTIFICATE_VERIFY_FAILED`, and
/// async-http-client offers no hook into verification, so after such a failure one more
/// handshake is made to the same host with a verification callback that records the server's
/// certificate and refuses it; the certificate is then examined here. Written by hand because
/// no library turns a verification failure into a user-facing explanation.
enum CertificateDiagnosis {
    /// True when `error` is a TLS handshake that failed on the server's certificate.
    static func isCertificateFailure(_ error: any Error) -> Bool {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname { return true }
        guard let ssl = error as? NIOSSLError, case .handshakeFailed(let inner) = ssl else { return false }
        let text = "\(inner)"
        return text.contains("CERTIFICATE_VERIFY_FAILED") || text.contains("certificate verify failed")
    }

    /// True when `error` is a TLS failure of any kind (handshake, protocol, unclean end).
    static func isTLSFailure(_ error: any Error) -> Bool {
        error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError
    }

    /// The one-line explanation of why `host`'s certificate was refused.
    static func explain(host: String, port: Int, options: TLSOptions) async -> String {
        let seen = await peerCertificate(host: host, port: port)
        guard let seen else {
            return "the certificate of \(host) is not trusted; \(untrustedFix)"
        }
        let now = time(nil)
        if seen.notAfter < now {
            return
                "the certificate of \(host) expired on \(day(seen.notAfter)); the server must renew it (--no-check-certificate skips the check)"
        }
        if seen.notBefore > now {
            return
                "the certificate of \(host) is not valid until \(day(seen.notBefore)) (check this machine's clock; --no-check-certificate skips the check)"
        }
        if !seen.names.isEmpty, !seen.names.contains(where: { matches(pattern: $0, host: host) }) {
            let names = seen.names.prefix(5).joined(separator: ", ")
            return
                "the certificate of \(host) is issued for \(names), not \(host); use the name the certificate is issued for in the URL (--no-check-certificate skips the check)"
        }
        let trusted =
            options.caCertificateFile.map { "the system's trust store or --ca-certificate \($0)" } ?? "the system's trust store"
        return "the certificate of \(host) is not signed by an authority in \(trusted); \(untrustedFix)"
    }

    private static let untrustedFix =
        "pass the issuing authority's certificate with --ca-certificate FILE (PEM), or --no-check-certificate to skip the check"

    /// `pattern` (a DNS name of the certificate, `*.` allowed as its whole first label, or an IP
    /// address) covers `host`, compared case-insensitively as RFC 6125 section 6.4 says.
    static func matches(pattern: String, host: String) -> Bool {
        let pattern = pattern.lowercased()
        let host = host.lowercased().trimmingCharacters(in: ["[", "]"])
        if pattern == host { return true }
        if let left = ipv6Bytes(pattern), let right = ipv6Bytes(host) { return left == right }
        guard pattern.hasPrefix("*."), let dot = host.firstIndex(of: ".") else { return false }
        return host[dot...] == pattern.dropFirst() && host[..<dot].isEmpty == false
    }

    private static func day(_ time: time_t) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(time)))
    }

    /// What the handshake showed of the server's leaf certificate.
    struct Seen: Sendable {
        var notBefore: time_t
        var notAfter: time_t
        /// DNS names and IP addresses of its subject alternative names.
        var names: [String]
    }

    /// Connects to `host:port`, records the leaf certificate during the handshake and refuses
    /// it, so nothing is ever sent. Nil when the server cannot be reached or shows none.
    static func peerCertificate(host: String, port: Int) async -> Seen? {
        // Not `.none`: with verification off, NIOSSL never calls the custom callback.
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .noHostnameVerification
        guard let context = try? NIOSSLContext(configuration: configuration) else { return nil }
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.next().makePromise(of: Seen?.self)
        let serverName = isIPAddress(host) ? nil : host
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(
                        context: context, serverHostname: serverName,
                        customVerificationCallback: { chain, verdict in
                            promise.succeed(chain.first.map(Self.seen))
                            verdict.succeed(NIOSSLVerificationResult.failed)
                        })
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: host.trimmingCharacters(in: ["[", "]"]), port: port).get()
        } catch {
            promise.succeed(nil)
            return try? await promise.futureResult.get()
        }
        channel.closeFuture.whenComplete { _ in promise.succeed(nil) }
        let seen = try? await promise.futureResult.get()
        try? await channel.close()
        return seen
    }

    private static func seen(_ certificate: NIOSSLCertificate) -> Seen {
        var names: [String] = []
        for name in certificate._subjectAlternativeNames() {
            let bytes = Array(name.contents)
            switch name.nameType {
            case .dnsName:
                names.append(String(decoding: bytes, as: UTF8.self))
            case .ipAddress where bytes.count == 4:
                names.append(bytes.map(String.init).joined(separator: "."))
            case .ipAddress where bytes.count == 16:
                names.append(
                    stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
                        .joined(separator: ":"))
            default:
                break
            }
        }
        return Seen(notBefore: certificate.notValidBefore, notAfter: certificate.notValidAfter, names: names)
    }

    /// The 16 bytes of an IPv6 address, so `::1` and `0:0:0:0:0:0:0:1` compare equal.
    private static func ipv6Bytes(_ text: String) -> [UInt8]? {
        guard text.contains(":") else { return nil }
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
    }
}
