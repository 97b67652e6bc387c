import Foundation
import MirrorCore

/// `catalog-mirror verify --publish s3://…`: each item of the bucket's `manifest.json` has its
/// object, of its size, with its SHA-256 (the `x-amz-meta-sha256` each upload sets, the
/// upload's own body having been checked by `Content-MD5` and the ETag when it was sent).
package enum BucketVerifier {
    /// How many items were checked, and a line per problem.
    package struct Report: Sendable, Equatable {
        package var checked = 0
        package var problems: [String] = []
    }

    /// Checks the bucket of `client`, HEADing `concurrency` objects at a time.
    /// - Throws: `.notFound` when the bucket has no readable `manifest.json`; `.refused` and
    ///   `.failed` as the calls do.
    package static func verify(_ client: S3Client, concurrency: Int = 16) async throws(ObjectStoreError) -> Report {
        let manifestKey = client.target.key("manifest.json")
        guard let data = try await client.get(manifestKey) else {
            throw ObjectStoreError(.notFound, "\(client.target) has no manifest.json; publish to it with sync --publish first")
        }
        let manifest: Manifest
        do {
            manifest = try JSONCoding.decode(Manifest.self, from: data)
        } catch {
            throw ObjectStoreError(.notFound, "\(client.target)manifest.json is not a readable manifest: \(error)")
        }
        var report = Report(checked: manifest.items.count)
        var failure: ObjectStoreError?
        await withTaskGroup(of: (Manifest.Item, Result<S3Client.ObjectHead?, ObjectStoreError>).self) { group in
            var pending = manifest.items.makeIterator()
            func next() {
                guard let item = pending.next() else { return }
                group.addTask {
                    do throws(ObjectStoreError) {
                        return (item, .success(try await client.head(client.target.key(item.path))))
                    } catch {
                        return (item, .failure(error))
                    }
                }
            }
            for _ in 0..<max(1, concurrency) { next() }
            while let (item, result) = await group.next() {
                switch result {
                case .failure(let error):
                    if failure == nil { failure = error }
                case .success(nil):
                    report.problems.append("\(item.path): missing")
                case .success(let head?):
                    if head.bytes != item.bytes {
                        report.problems.append("\(item.path): \(head.bytes) bytes, manifest says \(item.bytes)")
                    } else if head.sha256?.lowercased() != item.sha256.lowercased() {
                        report.problems.append("\(item.path): SHA-256 differs from the manifest")
                    }
                }
                next()
            }
        }
        if let failure { throw failure }
        report.problems.sort()
        return report
    }
}
