import Crypto
import Foundation

/// A fresh directory under the system temporary directory, removed by `cleanup()`.
package struct TemporaryDirectory {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-mirror-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    package func cleanup() { try? FileManager.default.removeItem(at: url) }
}

/// The SHA-256 of `bytes`, in lower-case hex (as the manifest writes it).
package func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
}
