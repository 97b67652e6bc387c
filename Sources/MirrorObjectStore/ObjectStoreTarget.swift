import Foundation

/// `s3://BUCKET/PREFIX`: where a mirror is published.
public struct ObjectStoreTarget: Sendable, Equatable, CustomStringConvertible {
    /// The bucket's name.
    package var bucket: String
    /// The key prefix, without leading slash, ending in `/` unless empty (the bucket's root).
    package var prefix: String

    /// Reads `s3://BUCKET` or `s3://BUCKET/PREFIX`; nil for anything else (another scheme, no
    /// bucket, a bucket name S3 refuses).
    public init?(_ text: String) {
        guard text.hasPrefix("s3://") else { return nil }
        let rest = text.dropFirst(5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let bucket = String(rest[..<slash])
        guard Self.isBucketName(bucket) else { return nil }
        var prefix = slash < rest.endIndex ? String(rest[rest.index(after: slash)...]) : ""
        while prefix.hasPrefix("/") { prefix.removeFirst() }
        guard !prefix.contains("//"), !prefix.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else {
            return nil
        }
        if !prefix.isEmpty, !prefix.hasSuffix("/") { prefix += "/" }
        self.bucket = bucket
        self.prefix = prefix
    }

    /// `s3://bucket/prefix/`.
    public var description: String { "s3://\(bucket)/\(prefix)" }

    /// The object key of `path`, a path relative to the mirror's root.
    package func key(_ path: String) -> String { prefix + path }

    /// S3's bucket naming rules: 3 to 63 characters, lower-case letters, digits, `.` and `-`,
    /// starting and ending with a letter or digit.
    static func isBucketName(_ name: String) -> Bool {
        guard (3...63).contains(name.utf8.count) else { return false }
        let allowed = name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
        guard allowed, let first = name.utf8.first, let last = name.utf8.last else { return false }
        return first != UInt8(ascii: ".") && first != UInt8(ascii: "-") && last != UInt8(ascii: ".")
            && last != UInt8(ascii: "-")
    }
}

/// Where requests for a bucket go and how they are signed, resolved as the AWS CLI resolves
/// them from the environment and the shared files.
package struct ObjectStoreEndpoint: Sendable, Equatable {
    /// `http` or `https`.
    package var scheme: String
    /// The host (and `:port`) requests go to, as the `Host` header says it.
    package var authority: String
    /// The path every object key is under: `/BUCKET` for path-style addressing, empty for
    /// virtual-hosted (the bucket in the host name).
    package var basePath: String
    /// The signing region.
    package var region: String
    /// The credentials.
    package var credentials: ObjectStoreCredentials
    /// The PEM file of the certificates an `https` endpoint is checked against instead of the
    /// system's (`AWS_CA_BUNDLE`, else the profile's `ca_bundle`, as the AWS CLI reads them);
    /// nil: the system's trust store.
    package var caBundle: String? = nil

    /// What cannot be resolved: one line naming what is missing and what to set.
    package struct Unresolved: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// The endpoint for `target` from `environment` and the shared files it points to:
    /// - credentials: `AWS_ACCESS_KEY_ID` + `AWS_SECRET_ACCESS_KEY` (+ `AWS_SESSION_TOKEN`),
    ///   else the profile (`AWS_PROFILE`, else `AWS_DEFAULT_PROFILE`, else `default`) of the shared
    ///   credentials file (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`), else of the
    ///   config file (`AWS_CONFIG_FILE`, else `~/.aws/config`);
    /// - region: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else the profile's `region`, else `us-east-1`;
    /// - endpoint: `AWS_ENDPOINT_URL_S3`, else `AWS_ENDPOINT_URL`, else the profile's
    ///   `endpoint_url`, addressed path-style (`ENDPOINT/BUCKET/KEY`, what S3-compatible stores
    ///   serve); else AWS's own `https://BUCKET.s3.REGION.amazonaws.com` (path-style on
    ///   `s3.REGION.amazonaws.com` for a bucket name with dots, which TLS cannot match);
    /// - certificates: `AWS_CA_BUNDLE`, else the profile's `ca_bundle`, a PEM file that must
    ///   be readable; else the system's trust store.
    package static func resolve(_ target: ObjectStoreTarget, environment: [String: String]) throws(Unresolved)
        -> ObjectStoreEndpoint
    {
        func value(_ name: String) -> String? {
            guard let value = environment[name], !value.isEmpty else { return nil }
            return value
        }
        let home = value("HOME") ?? NSHomeDirectory()
        let profile = value("AWS_PROFILE") ?? value("AWS_DEFAULT_PROFILE") ?? "default"
        let config = AWSSharedFile.read(value("AWS_CONFIG_FILE") ?? "\(home)/.aws/config")?.configProfile(profile)
        let credentialsPath = value("AWS_SHARED_CREDENTIALS_FILE") ?? "\(home)/.aws/credentials"
        let shared = AWSSharedFile.read(credentialsPath)?.credentialsProfile(profile)

        let credentials: ObjectStoreCredentials
        if let id = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") {
            credentials = ObjectStoreCredentials(
                accessKeyID: id, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        } else if let found = [shared, config].compactMap({ $0 }).first(where: {
            $0["aws_access_key_id"] != nil && $0["aws_secret_access_key"] != nil
        }), let id = found["aws_access_key_id"], let secret = found["aws_secret_access_key"] {
            credentials = ObjectStoreCredentials(
                accessKeyID: id, secretAccessKey: secret, sessionToken: found["aws_session_token"])
        } else {
            throw Unresolved(
                description:
                    "no credentials for \(target): set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile \"\(profile)\" keys in \(credentialsPath) (AWS_PROFILE names another)"
            )
        }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? config?["region"] ?? "us-east-1"
        var endpoint = try resolveAddress(target, environment: value, config: config, region: region, credentials: credentials)
        if let bundle = value("AWS_CA_BUNDLE") ?? config?["ca_bundle"] {
            guard FileManager.default.isReadableFile(atPath: bundle) else {
                throw Unresolved(
                    description: "the CA bundle \"\(bundle)\" cannot be read (check AWS_CA_BUNDLE or the profile's ca_bundle)")
            }
            endpoint.caBundle = bundle
        }
        return endpoint
    }

    /// Where requests for `target` go: the endpoint given, path-style, else AWS's own.
    private static func resolveAddress(
        _ target: ObjectStoreTarget, environment value: (String) -> String?, config: [String: String]?, region: String,
        credentials: ObjectStoreCredentials
    ) throws(Unresolved) -> ObjectStoreEndpoint {
        if let endpoint = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL") ?? config?["endpoint_url"] {
            guard let url = URLComponents(string: endpoint), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
            else {
                throw Unresolved(
                    description:
                        "the S3 endpoint \"\(endpoint)\" is not an http or https URL (check AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)"
                )
            }
            let authority = url.port.map { "\(host):\($0)" } ?? host
            var base = url.path
            while base.hasSuffix("/") { base.removeLast() }
            return ObjectStoreEndpoint(
                scheme: scheme, authority: authority, basePath: "\(base)/\(target.bucket)", region: region,
                credentials: credentials)
        }
        if target.bucket.contains(".") {
            return ObjectStoreEndpoint(
                scheme: "https", authority: "s3.\(region).amazonaws.com", basePath: "/\(target.bucket)", region: region,
                credentials: credentials)
        }
        return ObjectStoreEndpoint(
            scheme: "https", authority: "\(target.bucket).s3.\(region).amazonaws.com", basePath: "", region: region,
            credentials: credentials)
    }

    /// The request path of `key`: the base path, then the key URI-encoded with its slashes kept.
    package func path(of key: String) -> String {
        "\(basePath)/\(SigV4Signer.encode(key, keepingSlashes: true))"
    }

    /// The URL of `key`, with `query` (already encoded) when given.
    package func url(of key: String, query: String = "") -> String {
        "\(scheme)://\(authority)\(path(of: key))\(query.isEmpty ? "" : "?" + query)"
    }
}
