import Foundation
import MirrorCore
import MirrorObjectStore
import MirrorOperate
import MirrorStore

/// `--publish s3://BUCKET/PREFIX`: where a completed run's mirror is copied, with the
/// credentials and endpoint read from the environment (never saved: only `target` is).
public struct BucketPublishing: Sendable {
    /// The bucket and prefix.
    public var target: ObjectStoreTarget
    /// The endpoint and credentials, resolved as the AWS tools resolve them.
    let endpoint: ObjectStoreEndpoint
    /// Uploads in flight. Default 16.
    public var concurrency = 16
    /// Files larger than this go up in parts. Default 64 MiB.
    public var multipartThreshold: Int64 = 64 << 20

    /// The publication to `target` with the credentials, region and endpoint of `environment`
    /// (`AWS_*`, the shared files); throws one line (exit 2) when there are no credentials or
    /// the endpoint is not a URL.
    public init(target: ObjectStoreTarget, environment: [String: String]) throws(ObjectStoreError) {
        self.target = target
        do {
            endpoint = try ObjectStoreEndpoint.resolve(target, environment: environment)
        } catch {
            throw ObjectStoreError(.unresolved, error.description)
        }
    }

    /// Checks before a run that the store takes these credentials, so a refusal changes
    /// nothing (exit 2): a signed HEAD of `manifest.json`, which answers 200 or 404 when they are
    /// good and 403 when they are not.
    public func checkAccess() async throws(ObjectStoreError) {
        try await withClient { client throws(ObjectStoreError) in _ = try await client.head(target.key("manifest.json")) }
    }

    /// Copies the published mirror at `output` to the bucket (`BucketPublisher`): returns the
    /// report with the upload counted, or, when the upload fails, with `error` naming the object
    /// and exit status 1 (the bucket keeps serving its last complete mirror).
    func publish(_ report: RunReport, output: URL) async -> RunReport {
        let startedAt = Date()
        var report = await upload(report, output: output)
        // The run's time includes the upload: a cron run's duration (and `--metrics`) is the
        // job's, and `phases.bucket` is when it ended, as the other phases give theirs.
        let elapsed = Date().timeIntervalSince(startedAt)
        report.durationSeconds += elapsed
        report.finishedAt = Timestamp.truncated(report.finishedAt.addingTimeInterval(elapsed))
        report.phases["bucket"] = report.durationSeconds
        return report
    }

    private func upload(_ report: RunReport, output: URL) async -> RunReport {
        var report = report
        let layout = MirrorLayout(root: output)
        do throws(ObjectStoreError) {
            let manifest: Manifest
            do {
                manifest = try Manifest.read(from: layout.manifest)
            } catch {
                throw ObjectStoreError(.failed, "cannot read \(layout.manifest.path) to publish it: \(error)")
            }
            let summary = try await withClient { client throws(ObjectStoreError) in
                var publisher = BucketPublisher(
                    client: client, root: layout.root, stateFile: layout.state.appendingPathComponent(BucketState.fileName))
                publisher.configuration.concurrency = concurrency
                publisher.configuration.multipartThreshold = multipartThreshold
                return try await publisher.publish(manifest)
            }
            report.bucket = .init(target: target.description, uploaded: summary.uploaded, deleted: summary.deleted)
        } catch {
            report.exitStatus = max(report.exitStatus, error.exitStatus == 2 ? 2 : 1)
            report.error = "publishing to \(target) failed: \(error.description)"
        }
        return report
    }

    /// Checks each object the bucket's `manifest.json` names (`catalog-mirror verify --publish`):
    /// how many items, and one line per problem.
    public func verify() async throws(ObjectStoreError) -> (checked: Int, problems: [String]) {
        let report = try await withClient { client throws(ObjectStoreError) in try await BucketVerifier.verify(client) }
        return (report.checked, report.problems)
    }

    private func withClient<Result: Sendable>(_ body: (S3Client) async throws(ObjectStoreError) -> Result)
        async throws(ObjectStoreError) -> Result
    {
        do {
            return try await S3Client.with(target, endpoint: endpoint, connections: concurrency) { client in
                try await body(client)
            }
        } catch let error as ObjectStoreError {
            throw error
        } catch {
            throw ObjectStoreError(.failed, "\(target): \(error)")
        }
    }
}
