import Foundation
import Testing

@testable import MirrorObjectStore

/// Credentials, region and endpoint read as the AWS CLI reads them, from real files in a
/// temporary directory.
@Suite struct ObjectStoreEndpointTests {
    let target = ObjectStoreTarget("s3://gallery/mirror")!

    /// A temporary HOME with `~/.aws/credentials` and `~/.aws/config`.
    func home(credentials: String, config: String) throws -> URL {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("aws-\(UUID().uuidString)")
        let aws = home.appendingPathComponent(".aws")
        try FileManager.default.createDirectory(at: aws, withIntermediateDirectories: true)
        try Data(credentials.utf8).write(to: aws.appendingPathComponent("credentials"))
        try Data(config.utf8).write(to: aws.appendingPathComponent("config"))
        return home
    }

    @Test func targets() {
        #expect(ObjectStoreTarget("s3://gallery")?.prefix == "")
        #expect(ObjectStoreTarget("s3://gallery/")?.prefix == "")
        #expect(ObjectStoreTarget("s3://gallery/a/b")?.prefix == "a/b/")
        #expect(ObjectStoreTarget("s3://gallery/a/b")?.key("images/x.png") == "a/b/images/x.png")
        #expect(ObjectStoreTarget("s3://gallery/a/b/")?.description == "s3://gallery/a/b/")
        for bad in [
            "http://gallery/x", "s3://", "s3://Gallery/x", "s3://ab/x", "s3://-gallery", "s3://gallery/a//b", "s3://gallery/../x",
        ] {
            #expect(ObjectStoreTarget(bad) == nil, "\(bad)")
        }
    }

    @Test func environmentCredentialsAndCustomEndpointArePathStyle() throws {
        let endpoint = try ObjectStoreEndpoint.resolve(
            target,
            environment: [
                "HOME": "/nonexistent", "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "secret",
                "AWS_SESSION_TOKEN": "token", "AWS_REGION": "eu-west-3", "AWS_DEFAULT_REGION": "us-west-2",
                "AWS_ENDPOINT_URL": "http://127.0.0.1:9000", "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:8333/",
            ])
        #expect(
            endpoint.credentials == ObjectStoreCredentials(accessKeyID: "id", secretAccessKey: "secret", sessionToken: "token"))
        #expect(endpoint.region == "eu-west-3")
        #expect(endpoint.authority == "127.0.0.1:8333")
        #expect(endpoint.url(of: "mirror/index.html") == "http://127.0.0.1:8333/gallery/mirror/index.html")
    }

    @Test func awsDefaultsAreVirtualHosted() throws {
        let environment = [
            "HOME": "/nonexistent", "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "s", "AWS_DEFAULT_REGION": "us-west-2",
        ]
        let endpoint = try ObjectStoreEndpoint.resolve(target, environment: environment)
        #expect(endpoint.url(of: "mirror/a b.html") == "https://gallery.s3.us-west-2.amazonaws.com/mirror/a%20b.html")
        let dotted = try ObjectStoreEndpoint.resolve(ObjectStoreTarget("s3://my.gallery")!, environment: environment)
        #expect(dotted.url(of: "index.html") == "https://s3.us-west-2.amazonaws.com/my.gallery/index.html")
    }

    @Test func profileFromTheSharedFiles() throws {
        let home = try home(
            credentials: """
                [default]
                aws_access_key_id = DEFAULTID
                aws_secret_access_key = defaultsecret

                # the CronJob's key
                [publisher]
                aws_access_key_id=PUBID
                aws_secret_access_key = pub/secret+key
                aws_session_token = tok
                """,
            config: """
                [default]
                region = us-east-2

                [profile publisher]
                region = eu-central-1
                endpoint_url = https://objects.example.net
                s3 =
                  addressing_style = path
                """)
        defer { try? FileManager.default.removeItem(at: home) }
        let byDefault = try ObjectStoreEndpoint.resolve(target, environment: ["HOME": home.path])
        #expect(byDefault.credentials.accessKeyID == "DEFAULTID")
        #expect(byDefault.region == "us-east-2")
        #expect(byDefault.authority == "gallery.s3.us-east-2.amazonaws.com")
        let profile = try ObjectStoreEndpoint.resolve(target, environment: ["HOME": home.path, "AWS_PROFILE": "publisher"])
        #expect(
            profile.credentials
                == ObjectStoreCredentials(accessKeyID: "PUBID", secretAccessKey: "pub/secret+key", sessionToken: "tok"))
        #expect(profile.region == "eu-central-1")
        #expect(profile.url(of: "x") == "https://objects.example.net/gallery/x")
        // The environment's keys come first, as for the AWS CLI.
        let environment = try ObjectStoreEndpoint.resolve(
            target,
            environment: ["HOME": home.path, "AWS_PROFILE": "publisher", "AWS_ACCESS_KEY_ID": "E", "AWS_SECRET_ACCESS_KEY": "S"])
        #expect(environment.credentials.accessKeyID == "E")
        // AWS_SHARED_CREDENTIALS_FILE moves the credentials file.
        let moved = try ObjectStoreEndpoint.resolve(
            target,
            environment: [
                "HOME": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": home.appendingPathComponent(".aws/credentials").path,
            ])
        #expect(moved.credentials.accessKeyID == "DEFAULTID")
    }

    @Test func noCredentialsIsOneLineNamingWhatToSet() {
        #expect {
            _ = try ObjectStoreEndpoint.resolve(target, environment: ["HOME": "/nonexistent", "AWS_PROFILE": "ci"])
        } throws: { error in
            let text = "\(error)"
            return text.contains("AWS_ACCESS_KEY_ID") && text.contains("\"ci\"") && !text.contains("\n")
        }
    }

    @Test func credentialsNeverShowTheirSecret() {
        let credentials = ObjectStoreCredentials(accessKeyID: "AKID", secretAccessKey: "very-secret", sessionToken: "tok")
        #expect(!"\(credentials)".contains("very-secret"))
        #expect(!"\(credentials)".contains("tok"))
    }

    @Test func contentTypesAndCaching() {
        #expect(ObjectMetadata.contentType(ofPath: "albums/a/index.html") == "text/html; charset=utf-8")
        #expect(ObjectMetadata.contentType(ofPath: "feed.atom") == "application/atom+xml")
        #expect(ObjectMetadata.contentType(ofPath: "manifest.json") == "application/json")
        #expect(ObjectMetadata.contentType(ofPath: "assets/site.css") == "text/css; charset=utf-8")
        #expect(ObjectMetadata.contentType(ofPath: "LICENSE") == "application/octet-stream")
        #expect(ObjectMetadata.immutable == "public, max-age=31536000, immutable")
    }

    @Test(
        "AWS_CA_BUNDLE, else the profile's ca_bundle, names the certificates an https endpoint is checked against; one that cannot be read is refused"
    )
    func caBundle() throws {
        let home = try home(credentials: "[default]\naws_access_key_id = a\naws_secret_access_key = b\n", config: "")
        defer { try? FileManager.default.removeItem(at: home) }
        let bundle = home.appendingPathComponent("ca.pem")
        try Data("-----BEGIN CERTIFICATE-----\n".utf8).write(to: bundle)
        let base = ["HOME": home.path, "AWS_ENDPOINT_URL_S3": "https://127.0.0.1:8333"]
        #expect(try ObjectStoreEndpoint.resolve(target, environment: base).caBundle == nil)
        let given = base.merging(["AWS_CA_BUNDLE": bundle.path]) { _, new in new }
        #expect(try ObjectStoreEndpoint.resolve(target, environment: given).caBundle == bundle.path)
        let config = home.appendingPathComponent(".aws/config")
        try Data("[default]\nca_bundle = \(bundle.path)\n".utf8).write(to: config)
        #expect(try ObjectStoreEndpoint.resolve(target, environment: base).caBundle == bundle.path)
        let missing = base.merging(["AWS_CA_BUNDLE": home.appendingPathComponent("none.pem").path]) { _, new in new }
        #expect(throws: ObjectStoreEndpoint.Unresolved.self) { try ObjectStoreEndpoint.resolve(target, environment: missing) }
    }
}
