import Crypto
import Foundation
import MirrorCore

/// Signs HTTP requests with AWS Signature Version 4 (`AWS4-HMAC-SHA256`).
///
/// Hand-written over swift-crypto because no Swift S3 SDK is available to this project (the
/// package mirror holds none, and Soto or the AWS SDK for Swift would pull in a code generator
/// and dozens of modules for the five calls `MirrorObjectStore` makes). The algorithm is AWS's
/// "Create a signed AWS API request"; it is checked against AWS's published test suite
/// (`aws-sig-v4-test-suite`) and against signatures botocore made (MirrorObjectStoreTests).
///
/// S3 differs from other services in two ways, both taken here: the path is URI-encoded once,
/// not twice, and is not normalized (`a//b` and `a/./b` are different keys); and the payload's
/// hash is sent as `x-amz-content-sha256` and signed.
package struct SigV4Signer: Sendable {
    /// The credentials requests are signed with.
    package var credentials: ObjectStoreCredentials
    /// The region of the signing scope, e.g. `us-east-1`.
    package var region: String
    /// The service of the signing scope: `s3`.
    package var service: String

    package init(credentials: ObjectStoreCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The hash of an empty payload (a GET, a HEAD, a DELETE).
    package static let emptyPayloadHash = hexSHA256(Data())

    /// The headers to add to a request so that it is signed: `X-Amz-Date`,
    /// `X-Amz-Security-Token` (with a session token) and `Authorization`.
    ///
    /// - Parameters:
    ///   - method: `GET`, `PUT`...
    ///   - path: the request's path, already percent-encoded as it goes on the wire.
    ///   - query: the query's name/value pairs, not encoded.
    ///   - headers: every header to sign, `Host` included; names in any case; repeated names
    ///     are joined with commas in the order given, as AWS does.
    ///   - payloadHash: the hex SHA-256 of the body (or `UNSIGNED-PAYLOAD`).
    ///   - date: the signing time.
    package func signature(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String,
        date: Date
    ) -> [(String, String)] {
        let amzDate = Self.amzDate(date)
        var headers = headers
        headers.append(("X-Amz-Date", amzDate))
        var added = [("X-Amz-Date", amzDate)]
        if let token = credentials.sessionToken {
            headers.append(("X-Amz-Security-Token", token))
            added.append(("X-Amz-Security-Token", token))
        }
        let parts = canonicalRequest(method: method, path: path, query: query, headers: headers, payloadHash: payloadHash)
        let scope = "\(amzDate.prefix(8))/\(region)/\(service)/aws4_request"
        let toSign = stringToSign(amzDate: amzDate, scope: scope, canonicalRequest: parts.request)
        let key = signingKey(day: String(amzDate.prefix(8)))
        let signature = HMAC<SHA256>.authenticationCode(for: Data(toSign.utf8), using: key).hexString
        added.append(
            (
                "Authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(parts.signedHeaders), Signature=\(signature)"
            ))
        return added
    }

    /// The canonical request and the signed headers' list (`host;x-amz-date`).
    package func canonicalRequest(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadHash: String
    ) -> (request: String, signedHeaders: String) {
        var grouped: [String: [String]] = [:]
        for (name, value) in headers {
            grouped[name.lowercased(), default: []].append(Self.trimmed(value))
        }
        let names = grouped.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(grouped[$0, default: []].joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        var pairs: [(name: String, value: String)] = query.map { (Self.encode($0.0), Self.encode($0.1)) }
        pairs.sort { left, right in left.name == right.name ? left.value < right.value : left.name < right.name }
        let canonicalQuery = pairs.map { pair in pair.name + "=" + pair.value }.joined(separator: "&")
        let lines: [String] = [
            method, path.isEmpty ? "/" : path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash,
        ]
        let request = lines.joined(separator: "\n")
        return (request, signedHeaders)
    }

    /// `AWS4-HMAC-SHA256`, the time, the scope and the canonical request's hash, a line each.
    package func stringToSign(amzDate: String, scope: String, canonicalRequest: String) -> String {
        "AWS4-HMAC-SHA256\n\(amzDate)\n\(scope)\n\(Self.hexSHA256(Data(canonicalRequest.utf8)))"
    }

    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// `20150830T123600Z`: the signing time as SigV4 writes it, in UTC.
    package static func amzDate(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String {
            let number = value ?? 0
            return number < 10 ? "0\(number)" : "\(number)"
        }
        return "\(c.year ?? 1970)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }

    /// A header value as SigV4 signs it: outer spaces removed, inner runs of spaces made one.
    static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    /// `value` percent-encoded as SigV4 asks: every byte but `A-Z a-z 0-9 - . _ ~`, upper-case
    /// hex; `/` too unless `keepingSlashes` (an object key in a path).
    package static func encode(_ value: String, keepingSlashes: Bool = false) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                out.append("/")
            default:
                let hex = Array("0123456789ABCDEF")
                out.append("%")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 15)])
            }
        }
        return out
    }

    /// The lower-case hex SHA-256 of `data`.
    package static func hexSHA256(_ data: Data) -> String { SHA256.hash(data: data).hexString }
}
