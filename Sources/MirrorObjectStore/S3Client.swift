import AsyncHTTPClient
import Crypto
import Foundation
import MirrorCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL

/// The five S3 calls publishing needs (PUT, multipart upload, HEAD, GET, DELETE), signed with
/// SigV4 over async-http-client, each retried with back-off.
///
/// Hand-written: no Swift S3 SDK is available to this project (see `SigV4Signer`). It sends no
/// LIST: what a bucket holds is known from what was put there (`BucketState`).
package struct S3Client: Sendable {
    /// Where requests go and how they are signed.
    package let endpoint: ObjectStoreEndpoint
    /// The bucket and prefix, for messages.
    package let target: ObjectStoreTarget
    let http: HTTPClient
    /// Tries of a request before it fails: 5 (waits 0.25, 0.5, 1, 2 s between them).
    package var attempts = 5
    /// The first wait between tries; doubled each time.
    package var firstBackOff: Duration = .milliseconds(250)
    /// A request's timeout.
    package var timeout: TimeAmount = .seconds(120)

    /// A client for `target` at `endpoint`, for the scope of `body`; the HTTP client is shut
    /// down when `body` returns or throws.
    package static func with<Result: Sendable>(
        _ target: ObjectStoreTarget, endpoint: ObjectStoreEndpoint, connections: Int = 16,
        _ body: (S3Client) async throws -> Result
    ) async throws -> Result {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = max(1, connections)
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .disallow
        // `send` decides about retries; the pool's own would retry a refused connection or a
        // failed TLS handshake until the request's deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        if let bundle = endpoint.caBundle {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .file(bundle)
            configuration.tlsConfiguration = tls
        }
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let client = S3Client(endpoint: endpoint, target: target, http: http)
        do {
            let result = try await body(client)
            try? await http.shutdown()
            return result
        } catch {
            try? await http.shutdown()
            throw error
        }
    }

    /// What a HEAD says of an object.
    package struct ObjectHead: Sendable, Equatable {
        package var bytes: Int64
        package var etag: String?
        /// `x-amz-meta-sha256`, which every PUT of this client sets.
        package var sha256: String?
        /// `x-amz-meta-site` (`ObjectMetadata.siteMark`), which a publish sets on `manifest.json`.
        package var site: String?

        init(bytes: Int64, etag: String? = nil, sha256: String? = nil, site: String? = nil) {
            self.bytes = bytes
            self.etag = etag
            self.sha256 = sha256
            self.site = site
        }

        init(_ headers: HTTPHeaders, bytes: Int64? = nil) {
            self.init(
                bytes: bytes ?? headers.first(name: "Content-Length").flatMap { Int64($0) } ?? 0,
                etag: headers.first(name: "ETag").map(S3Client.unquoted), sha256: headers.first(name: "x-amz-meta-sha256"),
                site: headers.first(name: ObjectMetadata.siteMark))
        }
    }

    /// An answer: status, headers and (for GETs and errors) the body.
    package struct Answer: Sendable {
        package var status: Int
        package var headers: HTTPHeaders
        package var body: Data
    }

    // MARK: - Calls

    /// PUTs `body` at `key` with `headers` (Content-Type, Cache-Control...), `Content-MD5` and
    /// `x-amz-meta-sha256`, and checks that the ETag the store answers is the body's MD5.
    package func put(_ key: String, body: Data, headers: [(String, String)], sha256: String) async throws(ObjectStoreError) {
        let md5 = Insecure.MD5.hash(data: body)
        let answer = try await send(
            "PUT", key: key, body: body,
            headers: headers + [("Content-MD5", Data(md5).base64EncodedString()), ("x-amz-meta-sha256", sha256)])
        try check(answer, expecting: 200, "PUT", key)
        let etag = answer.headers.first(name: "ETag").map(Self.unquoted)
        guard etag == md5.hexString else {
            throw ObjectStoreError(
                .failed,
                "PUT \(object(key)): the store answered ETag \(etag ?? "none"), not the MD5 of what was sent (\(md5.hexString)); run sync again"
            )
        }
    }

    /// Uploads the file at `file` (`bytes` long) in parts of `partSize` bytes: initiate, a PUT
    /// per part (each with its `Content-MD5`), complete, and checks the multipart ETag
    /// (`MD5(MD5s)-N`). A failure aborts the upload so no parts are left billed.
    package func putMultipart(
        _ key: String, file: URL, bytes: Int64, partSize: Int, headers: [(String, String)], sha256: String
    ) async throws(ObjectStoreError) {
        let started = try await send(
            "POST", key: key, query: [("uploads", "")], body: Data(), headers: headers + [("x-amz-meta-sha256", sha256)])
        try check(started, expecting: 200, "POST (multipart start)", key)
        guard let uploadID = Self.element("UploadId", in: started.body) else {
            throw ObjectStoreError(.failed, "POST \(object(key)): the store started a multipart upload but named no UploadId")
        }
        do throws(ObjectStoreError) {
            guard let handle = FileHandle(forReadingAtPath: file.path) else {
                throw ObjectStoreError(.failed, "cannot read \(file.path) to upload it as \(object(key))")
            }
            defer { try? handle.close() }
            var partMD5s = Data()
            var parts: [(Int, String)] = []
            var number = 1
            while true {
                let chunk: Data
                do {
                    chunk = try handle.read(upToCount: partSize) ?? Data()
                } catch {
                    throw ObjectStoreError(.failed, "cannot read \(file.path) to upload it as \(object(key)): \(error)")
                }
                if chunk.isEmpty && number > 1 { break }
                let md5 = Insecure.MD5.hash(data: chunk)
                partMD5s.append(contentsOf: md5)
                let answer = try await send(
                    "PUT", key: key, query: [("partNumber", "\(number)"), ("uploadId", uploadID)], body: chunk,
                    headers: [("Content-MD5", Data(md5).base64EncodedString())])
                try check(answer, expecting: 200, "PUT (part \(number))", key)
                let etag = answer.headers.first(name: "ETag").map(Self.unquoted) ?? ""
                guard etag == md5.hexString else {
                    throw ObjectStoreError(
                        .failed, "PUT \(object(key)) part \(number): ETag \(etag) is not the part's MD5; run sync again")
                }
                parts.append((number, etag))
                number += 1
                if chunk.count < partSize { break }
            }
            let list = parts.map { "<Part><PartNumber>\($0.0)</PartNumber><ETag>\"\($0.1)\"</ETag></Part>" }.joined()
            let done = try await send(
                "POST", key: key, query: [("uploadId", uploadID)],
                body: Data("<CompleteMultipartUpload>\(list)</CompleteMultipartUpload>".utf8),
                headers: [("Content-Type", "application/xml")])
            try check(done, expecting: 200, "POST (multipart complete)", key)
            if Self.element("Code", in: done.body) != nil {
                throw ObjectStoreError(
                    .failed, "POST \(object(key)): completing the multipart upload failed: \(Self.summary(done.body))")
            }
            let expected = "\(Insecure.MD5.hash(data: partMD5s).hexString)-\(parts.count)"
            let etag = Self.element("ETag", in: done.body).map { Self.unquoted($0.replacingOccurrences(of: "&#34;", with: "\"")) }
            if let etag, etag != expected {
                throw ObjectStoreError(
                    .failed, "POST \(object(key)): multipart ETag \(etag), expected \(expected); run sync again")
            }
        } catch {
            _ = try? await send("DELETE", key: key, query: [("uploadId", uploadID)], body: Data(), headers: [])
            throw error
        }
    }

    /// HEADs `key`: nil when there is no such object.
    package func head(_ key: String) async throws(ObjectStoreError) -> ObjectHead? {
        let answer = try await send("HEAD", key: key, body: Data(), headers: [])
        if answer.status == 404 { return nil }
        try check(answer, expecting: 200, "HEAD", key)
        return ObjectHead(answer.headers)
    }

    /// GETs `key`: nil when there is no such object.
    package func get(_ key: String) async throws(ObjectStoreError) -> Data? {
        try await getObject(key)?.body
    }

    /// GETs `key` with what its headers say of it (size, `x-amz-meta-sha256`...): nil when there
    /// is no such object.
    package func getObject(_ key: String) async throws(ObjectStoreError) -> (body: Data, head: ObjectHead)? {
        let answer = try await send("GET", key: key, body: Data(), headers: [])
        if answer.status == 404 { return nil }
        try check(answer, expecting: 200, "GET", key)
        return (answer.body, ObjectHead(answer.headers, bytes: Int64(answer.body.count)))
    }

    /// Replaces the metadata of the object at `key` with `headers` (`Content-Type`,
    /// `Cache-Control`, `x-amz-meta-*`), its bytes left as they are: a copy of the object onto
    /// itself with `x-amz-metadata-directive: REPLACE`, the only way S3 has to change what an
    /// object says of itself without sending it again.
    package func replaceMetadata(_ key: String, headers: [(String, String)]) async throws(ObjectStoreError) {
        let source = "/" + target.bucket + "/" + SigV4Signer.encode(key, keepingSlashes: true)
        let answer = try await send(
            "PUT", key: key, body: Data(),
            headers: headers + [("x-amz-copy-source", source), ("x-amz-metadata-directive", "REPLACE")])
        try check(answer, expecting: 200, "PUT (copy)", key)
        // A copy can fail after its 200 is sent: the body is then an `<Error>`.
        if Self.element("Code", in: answer.body) != nil {
            throw ObjectStoreError(.failed, "PUT (copy) \(object(key)) failed: \(Self.summary(answer.body)); run sync again")
        }
    }

    /// DELETEs `key`; an object already gone is no error.
    package func delete(_ key: String) async throws(ObjectStoreError) {
        let answer = try await send("DELETE", key: key, body: Data(), headers: [])
        if answer.status == 404 || answer.status == 204 { return }
        try check(answer, expecting: 200, "DELETE", key)
    }

    // MARK: - Sending

    /// Sends a signed request, retrying network errors, 5xx, 429 and 408 with doubling waits;
    /// any other answer is returned as it is.
    package func send(
        _ method: String, key: String, query: [(String, String)] = [], body: Data, headers: [(String, String)]
    ) async throws(ObjectStoreError) -> Answer {
        var wait = firstBackOff
        var lastProblem = ""
        for attempt in 1...max(1, attempts) {
            if attempt > 1 {
                do {
                    try await Task.sleep(for: wait)
                } catch {
                    throw ObjectStoreError(.failed, "\(method) \(object(key)): cancelled")
                }
                wait *= 2
            }
            do {
                let answer = try await sendOnce(method, key: key, query: query, body: body, headers: headers)
                if answer.status >= 500 || answer.status == 429 || answer.status == 408 {
                    lastProblem = "HTTP \(answer.status) \(Self.summary(answer.body))"
                    continue
                }
                return answer
            } catch is CancellationError {
                throw ObjectStoreError(.failed, "\(method) \(object(key)): cancelled")
            } catch let failure as NIOSSLError {
                // A certificate is not trusted now and will not be on the next try.
                throw ObjectStoreError(
                    .unresolved,
                    "the TLS connection to \(endpoint.authority) failed (\(failure)); if its certificate comes from a private authority, set AWS_CA_BUNDLE to that authority's PEM file"
                )
            } catch {
                lastProblem = "\(error)"
            }
        }
        throw ObjectStoreError(
            .failed,
            "\(method) \(object(key)) failed after \(max(1, attempts)) tries: \(lastProblem); run sync again to finish publishing"
        )
    }

    private func sendOnce(
        _ method: String, key: String, query: [(String, String)], body: Data, headers: [(String, String)]
    ) async throws -> Answer {
        let queryText = query.map { SigV4Signer.encode($0.0) + "=" + SigV4Signer.encode($0.1) }.joined(separator: "&")
        let payloadHash = SigV4Signer.hexSHA256(body)
        var signed = headers + [("Host", endpoint.authority), ("x-amz-content-sha256", payloadHash)]
        let signer = SigV4Signer(credentials: endpoint.credentials, region: endpoint.region)
        signed += signer.signature(
            method: method, path: endpoint.path(of: key), query: query, headers: signed, payloadHash: payloadHash,
            date: Date())
        var request = HTTPClientRequest(url: endpoint.url(of: key, query: queryText))
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in signed where name != "Host" { request.headers.add(name: name, value: value) }
        if method == "PUT" || method == "POST" {
            request.headers.replaceOrAdd(name: "Content-Length", value: "\(body.count)")
            request.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await http.execute(request, timeout: timeout)
        let collected = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(buffer: collected))
    }

    /// Throws unless `answer` has `status`: `.refused` for 403 and the credential errors,
    /// `.notFound` for a missing bucket, `.failed` otherwise.
    private func check(_ answer: Answer, expecting status: Int, _ what: String, _ key: String) throws(ObjectStoreError) {
        guard answer.status != status else { return }
        let code = Self.element("Code", in: answer.body)
        let refusals: Set<String> = [
            "SignatureDoesNotMatch", "InvalidAccessKeyId", "AccessDenied", "InvalidToken", "ExpiredToken",
            "TokenRefreshRequired", "AuthorizationHeaderMalformed",
        ]
        if answer.status == 403 || answer.status == 401 || code.map(refusals.contains) == true {
            throw ObjectStoreError(
                .refused,
                "\(target) refused the credentials (\(endpoint.credentials.accessKeyID)): HTTP \(answer.status)\(code.map { " " + $0 } ?? "") on \(what) \(object(key)); check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) and the bucket's policy"
            )
        }
        if code == "NoSuchBucket" {
            throw ObjectStoreError(
                .notFound,
                "the bucket \(target.bucket) does not exist at \(endpoint.scheme)://\(endpoint.authority); create it first")
        }
        throw ObjectStoreError(
            .failed,
            "\(what) \(object(key)) failed: HTTP \(answer.status) \(Self.summary(answer.body)); run sync again")
    }

    /// `s3://bucket/key`, for messages.
    func object(_ key: String) -> String { "s3://\(target.bucket)/\(key)" }

    /// The text of the first `<name>` element of an S3 XML answer.
    static func element(_ name: String, in body: Data) -> String? {
        let text = String(decoding: body, as: UTF8.self)
        guard let start = text.range(of: "<\(name)>"),
            let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    /// An S3 error's code and message, for a line.
    static func summary(_ body: Data) -> String {
        let code = element("Code", in: body) ?? ""
        let message = element("Message", in: body) ?? ""
        return [code, message].filter { !$0.isEmpty }.joined(separator: ": ")
    }

    static func unquoted(_ etag: String) -> String {
        etag.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).lowercased()
    }
}
