import Foundation
import MirrorCore
import MirrorObjectStore
import MirrorOperate
import MirrorStore

/// `--publish s3://BUCKET/PREFIX`: where a completed run's mirror is copied, with the
/// credentials and endpoint read from the environment (never saved: only `target` is).
public struct BucketPublishing: Sendable {
    /// The bucket and prefix.
    package var target: ObjectStoreTarget
    /// The endpoint and credentials, resolved as the AWS tools resolve them.
    let endpoint: ObjectStoreEndpoint
    /// Uploads in flight. Default 16.
    package var concurrency = 16
    /// Files larger than this go up in parts. Default 64 MiB.
    package var multipartThreshold: Int64 = 64 << 20

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

    /// Copies the published mirror at `output`, whose manifest is `manifest`, to the bucket
    /// (`BucketPublisher`): returns the report with the upload counted, or, when the upload
    /// fails, with `error` naming the object and exit status 1 (the bucket keeps serving its
    /// last complete mirror).
    /// `state`: what `copies(output:)` found the bucket holds (nil: read now); `site`: the mark
    /// of the site published (`BucketPublisher.publish`).
    func publish(
        _ report: RunReport, manifest: Manifest, site: String?, state: BucketState?, output: URL
    ) async -> RunReport {
        let startedAt = Date()
        var report = await upload(report, manifest: manifest, site: site, state: state, output: output)
        // The run's time includes the upload: a cron run's duration (and `--metrics`) is the
        // job's, and `phases.bucket` is when it ended, as the other phases give theirs.
        let elapsed = Date().timeIntervalSince(startedAt)
        report.durationSeconds += elapsed
        report.finishedAt = Timestamp.truncated(report.finishedAt.addingTimeInterval(elapsed))
        report.phases["bucket"] = report.durationSeconds
        return report
    }

    private func upload(
        _ report: RunReport, manifest: Manifest, site: String?, state: BucketState?, output: URL
    ) async -> RunReport {
        var report = report
        let layout = MirrorLayout(root: output)
        do throws(ObjectStoreError) {
            let summary = try await withClient { client throws(ObjectStoreError) in
                var publisher = BucketPublisher(
                    client: client, root: layout.root, stateFile: layout.state.appendingPathComponent(BucketState.fileName))
                publisher.configuration.concurrency = concurrency
                publisher.configuration.multipartThreshold = multipartThreshold
                return try await publisher.publish(manifest, site: site, starting: state)
            }
            report.bucket = .init(target: target.description, uploaded: summary.uploaded, deleted: summary.deleted)
        } catch  where Task.isCancelled {
            // SIGINT or SIGTERM during the upload: what went up is remembered, nothing was deleted.
            report.exitStatus = ExitStatus.cancelled
            report.error =
                "publishing to \(target) was interrupted: the bucket keeps serving its last complete mirror, and the next run sends the rest"
        } catch {
            report.exitStatus = max(report.exitStatus, error.exitStatus == 2 ? 2 : 1)
            report.error = "publishing to \(target) failed: \(error.description)"
        }
        return report
    }

    /// What the bucket holds, for the store (`PublishedCopies`): from the state saved beside
    /// the mirror at `output`, or, without one, from the bucket's `manifest.json`. When the
    /// mirror has no manifest of its own (an empty `--out`: a worker that keeps no disk), the
    /// bucket's is saved in `.catalog-mirror/` for the run to start from: its items are
    /// revalidated with their validators, not downloaded again. A bucket that cannot be read
    /// gives nothing (every image is then downloaded, as on a first run) and one line saying so.
    /// `state` is what the publish at the end of the run starts from (nil: it reads it itself).
    func copies(output: URL) async -> (copies: PublishedCopies, state: BucketState?, warning: String?) {
        let layout = MirrorLayout(root: output)
        let hasManifest = FileManager.default.fileExists(atPath: layout.manifest.path)
        let stateFile = layout.state.appendingPathComponent(BucketState.fileName)
        do throws(ObjectStoreError) {
            return try await withClient { client throws(ObjectStoreError) in
                let publisher = BucketPublisher(client: client, root: layout.root, stateFile: stateFile)
                let saved = BucketState.read(stateFile, target: publisher.stateTarget)
                if let saved, hasManifest { return (Self.copies(saved), saved, nil) }
                guard let (data, head) = try await client.getObject(target.key("manifest.json")) else {
                    return (saved.map(Self.copies) ?? PublishedCopies(), saved, nil)
                }
                // Saved in `.catalog-mirror/`, and read from there with the manifest's own reader.
                let file = layout.state.appendingPathComponent(Self.startingManifest)
                do {
                    try data.write(to: file, options: .atomic)
                } catch {
                    return (
                        saved.map(Self.copies) ?? PublishedCopies(), saved,
                        "cannot save the bucket's manifest.json to \(file.path): every image is downloaded"
                    )
                }
                guard let manifest = try? Manifest.read(from: file) else {
                    return (
                        saved.map(Self.copies) ?? PublishedCopies(), saved,
                        "the bucket's manifest.json (\(target)) is not a manifest this version reads: every image is downloaded"
                    )
                }
                // Handed to the publish at the end, which then neither fetches nor reads the
                // bucket's manifest again.
                let state = saved ?? BucketState.seeded(from: manifest, target: publisher.stateTarget, head: head)
                var copies = Self.copies(state)
                if !hasManifest { copies.manifest = (file, manifest) }
                return (copies, state, nil)
            }
        } catch {
            return (
                PublishedCopies(), nil, "cannot read what \(target) holds (\(error.description)): every image is downloaded"
            )
        }
    }

    /// Writes the bucket's object at `path` (relative to the mirror's root) to `file` when its
    /// bytes hash to `sha256`: an image this disk does not hold, for its pixels. False when it
    /// cannot be read or is not those bytes (nothing is left at `file` then).
    func fetch(_ path: String, sha256: String, to file: URL) async -> Bool {
        let data = try? await withClient { client throws(ObjectStoreError) in try await client.get(target.key(path)) }
        guard let data = data ?? nil, (try? data.write(to: file, options: .atomic)) != nil else { return false }
        guard FileSystem.sha256(atPath: file.path) == sha256 else {
            try? FileManager.default.removeItem(at: file)
            return false
        }
        return true
    }

    /// The name under `.catalog-mirror/` of the bucket's `manifest.json`, saved for a run that
    /// starts from it.
    static let startingManifest = "bucket-manifest.json"

    private static func copies(_ state: BucketState) -> PublishedCopies {
        PublishedCopies(files: state.objects.mapValues { PublishedCopies.File(sha256: $0.sha256, bytes: $0.bytes) })
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
