import Foundation
import Testing

@testable import MirrorObjectStore

/// The signer against AWS's published SigV4 test suite (`aws-sig-v4-test-suite`, service
/// `service`, us-east-1, 2015-08-30T12:36:00Z) and against S3 signatures botocore made
/// (`scripts/sigv4-botocore-fixtures.py`, 2026-12-07T12:36:00Z).
@Suite struct SigV4SignerTests {
    static let exampleCredentials = ObjectStoreCredentials(
        accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")

    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var method: String
        var path: String
        var query: [(String, String)]
        var headers: [(String, String)]
        var signature: String
        var signedHeaders: String
        var testDescription: String { name }
    }

    /// Cases of AWS's suite whose path needs no normalization (S3 never normalizes it).
    static let suite: [Vector] = [
        Vector(
            name: "get-vanilla", method: "GET", path: "/", query: [], headers: [("Host", "example.amazonaws.com")],
            signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31", signedHeaders: "host;x-amz-date"),
        Vector(
            name: "get-vanilla-query-order-key-case", method: "GET", path: "/",
            query: [("Param2", "value2"), ("Param1", "value1")],
            headers: [("Host", "example.amazonaws.com")],
            signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500", signedHeaders: "host;x-amz-date"),
        Vector(
            name: "get-vanilla-query-order-key", method: "GET", path: "/", query: [("Param1", "value2"), ("Param1", "Value1")],
            headers: [("Host", "example.amazonaws.com")],
            signature: "eedbc4e291e521cf13422ffca22be7d2eb8146eecf653089df300a15b2382bd1", signedHeaders: "host;x-amz-date"),
        Vector(
            name: "get-vanilla-query-order-value", method: "GET", path: "/", query: [("Param1", "value2"), ("Param1", "value1")],
            headers: [("Host", "example.amazonaws.com")],
            signature: "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694", signedHeaders: "host;x-amz-date"),
        Vector(
            name: "get-vanilla-empty-query-key", method: "GET", path: "/", query: [("Param1", "value1")],
            headers: [("Host", "example.amazonaws.com")],
            signature: "a67d582fa61cc504c4bae71f336f98b97f1ea3c7a6bfe1b6e45aec72011b9aeb", signedHeaders: "host;x-amz-date"),
        Vector(
            name: "get-unreserved", method: "GET", path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            query: [], headers: [("Host", "example.amazonaws.com")],
            signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f", signedHeaders: "host;x-amz-date"),
        Vector(
            name: "get-header-value-trim", method: "GET", path: "/", query: [],
            headers: [("Host", "example.amazonaws.com"), ("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")],
            signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736",
            signedHeaders: "host;my-header1;my-header2;x-amz-date"),
        Vector(
            name: "get-header-key-duplicate", method: "GET", path: "/", query: [],
            headers: [
                ("Host", "example.amazonaws.com"), ("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1"),
            ],
            signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea",
            signedHeaders: "host;my-header1;x-amz-date"),
        Vector(
            name: "get-header-value-order", method: "GET", path: "/", query: [],
            headers: [
                ("Host", "example.amazonaws.com"), ("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"),
                ("My-Header1", "value2"),
            ],
            signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01",
            signedHeaders: "host;my-header1;x-amz-date"),
    ]

    @Test(arguments: suite)
    func awsTestSuite(_ vector: Vector) {
        let signer = SigV4Signer(credentials: Self.exampleCredentials, region: "us-east-1", service: "service")
        let added = signer.signature(
            method: vector.method, path: vector.path, query: vector.query, headers: vector.headers,
            payloadHash: SigV4Signer.emptyPayloadHash, date: Date(timeIntervalSince1970: 1_440_938_160))
        let authorization = added.first { $0.0 == "Authorization" }?.1
        #expect(
            authorization
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=\(vector.signedHeaders), Signature=\(vector.signature)"
        )
        #expect(added.first { $0.0 == "X-Amz-Date" }?.1 == "20150830T123600Z")
    }

    /// The suite's canonical request and string to sign for get-vanilla-query-order-key-case,
    /// so a wrong signature says which step differs.
    @Test func canonicalRequestOfTheSuite() {
        let signer = SigV4Signer(credentials: Self.exampleCredentials, region: "us-east-1", service: "service")
        let (request, signed) = signer.canonicalRequest(
            method: "GET", path: "/", query: [("Param2", "value2"), ("Param1", "value1")],
            headers: [("Host", "example.amazonaws.com"), ("X-Amz-Date", "20150830T123600Z")],
            payloadHash: SigV4Signer.emptyPayloadHash)
        #expect(
            request
                == "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\ne3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        )
        #expect(signed == "host;x-amz-date")
        #expect(
            signer.stringToSign(
                amzDate: "20150830T123600Z", scope: "20150830/us-east-1/service/aws4_request", canonicalRequest: request)
                == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0"
        )
    }

    struct S3Case: Sendable, CustomTestStringConvertible {
        var name: String
        var method: String
        var url: String
        var region: String
        var body: Data
        var headers: [(String, String)]
        var token: String?
        var signedHeaders: String
        var signature: String
        var testDescription: String { name }
    }

    /// What botocore's `S3SigV4Auth` signed (scripts/sigv4-botocore-fixtures.py).
    static let botocore: [S3Case] = [
        S3Case(
            name: "put-object", method: "PUT", url: "http://127.0.0.1:8333/gallery/mirror/images/smiling-face-3f2a9c.png",
            region: "us-east-1", body: Data("hello".utf8),
            headers: [
                ("Content-Type", "image/png"), ("Cache-Control", "public, max-age=31536000, immutable"),
                ("Content-MD5", "XUFAKrxLKna5cZ2REBfFkg=="),
                ("x-amz-meta-sha256", "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"),
            ], token: nil,
            signedHeaders: "cache-control;content-md5;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-meta-sha256",
            signature: "d973af176c9b6091a87307cdb993ba3b54b555f09298b7b131951c4272a8f80d"),
        S3Case(
            name: "get-key-with-space-and-utf8", method: "GET",
            url: "https://s3.eu-west-3.amazonaws.com/my.bucket/albums/caf%C3%A9%20terrace/index.html", region: "eu-west-3",
            body: Data(), headers: [], token: nil, signedHeaders: "host;x-amz-content-sha256;x-amz-date",
            signature: "f99782604004da631364cb6f44cba88999f773a79a17b7a9584aa562b217cba0"),
        S3Case(
            name: "session-token-head", method: "HEAD", url: "https://gallery.s3.us-east-1.amazonaws.com/manifest.json",
            region: "us-east-1", body: Data(), headers: [], token: "FQoGZXIvYXdzEXAMPLETOKEN//+=",
            signedHeaders: "host;x-amz-content-sha256;x-amz-date;x-amz-security-token",
            signature: "f29bd72b461f3157f6b02cdc9603a53b824b6b2faa4ef66e8a68e737b1276eb4"),
        S3Case(
            name: "multipart-part", method: "PUT", url: "http://127.0.0.1:8333/gallery/big.jpg?partNumber=2&uploadId=abc%2Fdef",
            region: "us-east-1", body: Data(repeating: UInt8(ascii: "x"), count: 64), headers: [("Content-MD5", "abc==")],
            token: nil, signedHeaders: "content-md5;host;x-amz-content-sha256;x-amz-date",
            signature: "6c9883349eed52307fbc52462b62b7c63b379c6ab11b32a7caa1f4322f73c182"),
    ]

    @Test(arguments: botocore)
    func matchesBotocore(_ fixture: S3Case) throws {
        let url = try #require(URLComponents(string: fixture.url))
        let authority = url.port.map { "\(url.host ?? ""):\($0)" } ?? (url.host ?? "")
        let query = (url.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        var credentials = Self.exampleCredentials
        credentials.sessionToken = fixture.token
        let signer = SigV4Signer(credentials: credentials, region: fixture.region)
        let payloadHash = SigV4Signer.hexSHA256(fixture.body)
        let added = signer.signature(
            method: fixture.method, path: url.percentEncodedPath, query: query,
            headers: fixture.headers + [("Host", authority), ("x-amz-content-sha256", payloadHash)], payloadHash: payloadHash,
            date: Date(timeIntervalSince1970: 1_796_646_960))
        #expect(
            added.first { $0.0 == "Authorization" }?.1
                == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261207/\(fixture.region)/s3/aws4_request, SignedHeaders=\(fixture.signedHeaders), Signature=\(fixture.signature)"
        )
        #expect(added.first { $0.0 == "X-Amz-Security-Token" }?.1 == fixture.token)
    }

    /// An object key goes on the wire as the botocore case above signs it: UTF-8 and spaces
    /// escaped, slashes kept, unreserved characters as they are.
    @Test func objectKeyEncoding() {
        #expect(
            SigV4Signer.encode("albums/café terrace/index.html", keepingSlashes: true) == "albums/caf%C3%A9%20terrace/index.html")
        #expect(SigV4Signer.encode("a/b+c=d", keepingSlashes: false) == "a%2Fb%2Bc%3Dd")
        #expect(SigV4Signer.encode("-._~") == "-._~")
    }
}
