import Foundation
import NIOSSL

/// How HTTPS servers are checked (`--ca-certificate`, `--no-check-certificate`).
package struct TLSOptions: Sendable, Equatable {
    /// A PEM file of certificates trusted in addition to the system's trust store.
    /// Default: nil (the system's store only).
    package var caCertificateFile: String?
    /// False with `--no-check-certificate`: any certificate is accepted (the CLI warns on every
    /// run). Default: true.
    package var checkCertificates: Bool = true

    /// Options with `caCertificateFile` (default none) and `checkCertificates` (default true).
    package init(caCertificateFile: String? = nil, checkCertificates: Bool = true) {
        self.caCertificateFile = caCertificateFile
        self.checkCertificates = checkCertificates
    }

    /// The client TLS configuration these options describe; offers HTTP/2 and HTTP/1.1 by ALPN.
    /// Throws a one-line `TLSOptions.Error` when the CA file cannot be used.
    package func clientConfiguration() throws(TLSOptions.Error) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        if !checkCertificates { tls.certificateVerification = .none }
        if let caCertificateFile {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(caCertificateFile)
            } catch {
                guard FileManager.default.isReadableFile(atPath: caCertificateFile) else {
                    throw Error("--ca-certificate \(caCertificateFile) cannot be read (check the path and its permissions)")
                }
                throw Error("--ca-certificate \(caCertificateFile) is not a PEM certificate bundle")
            }
            guard !certificates.isEmpty else {
                throw Error("--ca-certificate \(caCertificateFile) holds no PEM certificate")
            }
            tls.additionalTrustRoots = [.certificates(certificates)]
        }
        tls.applicationProtocols = ["h2", "http/1.1"]
        return tls
    }

    /// A TLS option that cannot be used, in one line naming the file.
    package struct Error: Swift.Error, Sendable, CustomStringConvertible {
        /// What is wrong and with which file, in one line.
        package let message: String
        init(_ message: String) { self.message = message }
        package var description: String { message }
    }
}
