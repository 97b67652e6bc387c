import Foundation
import MirrorCore

/// What a bucket holds under a prefix, as far as this mirror put it there: each object's path
/// (relative to the mirror's root), SHA-256 and size.
///
/// Kept in `DIR/.catalog-mirror/bucket.json`, saved after each phase of a publish and when one
/// fails, so the next run sends exactly what is missing or changed and deletes what is no
/// longer published, with no LIST of the bucket. Without it (a worker that keeps no disk, or
/// another target), the bucket's own `manifest.json` says which images it holds
/// (`seeded(from:)`): a `manifest.json` is uploaded only after every object it names.
package struct BucketState: Codable, Sendable, Equatable {
    /// One object.
    package struct Object: Codable, Sendable, Equatable {
        package var sha256: String
        package var bytes: Int64
    }

    /// `s3://bucket/prefix/` at its endpoint: a state for another target is not used.
    package var target: String
    /// Path → object.
    package var objects: [String: Object]
    /// True for a state read from the bucket's `manifest.json` (`seeded(from:target:)`), which
    /// names its images only: the publish asks the bucket about the other files (a HEAD each)
    /// before it sends them. False once a publish has saved what it knows.
    package var seeded = false
    /// Path → when the file on this disk last changed (`FileSystem.Status.modified`), for the
    /// files besides images whose bytes were hashed then and found to be the object's: a file
    /// with the same size and time is not hashed again (the quick check rsync and rclone make;
    /// the site's files are replaced by rename, so a new version has a new time).
    package var modified: [String: Int64] = [:]
    /// The site `manifest.json`'s object names (`ObjectMetadata.siteMark`), as far as this
    /// state knows: nil when it names none.
    package var site: String?

    package init(target: String, objects: [String: Object] = [:], seeded: Bool = false, site: String? = nil) {
        self.target = target
        self.objects = objects
        self.seeded = seeded
        self.site = site
    }

    private enum CodingKeys: String, CodingKey { case target, objects, seeded, modified, site }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        target = try container.decode(String.self, forKey: .target)
        objects = try container.decode([String: Object].self, forKey: .objects)
        seeded = try container.decodeIfPresent(Bool.self, forKey: .seeded) ?? false
        modified = try container.decodeIfPresent([String: Int64].self, forKey: .modified) ?? [:]
        site = try container.decodeIfPresent(String.self, forKey: .site)
    }

    /// The name of the file under `.catalog-mirror/`.
    package static let fileName = "bucket.json"

    /// The state saved at `url` for `target`, or nil when there is none, it cannot be read, or
    /// it is another target's.
    package static func read(_ url: URL, target: String) -> BucketState? {
        guard let data = FileManager.default.contents(atPath: url.path),
            let state = try? JSONDecoder().decode(BucketState.self, from: data), state.target == target
        else { return nil }
        return state
    }

    /// Writes the state to `url` atomically (a temporary file beside it, then a rename).
    package func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    /// The state that the bucket's `manifest` implies: its images, and the manifest's own object
    /// as its GET described it (`head`: its `x-amz-meta-sha256` and site mark; without them the
    /// manifest is unknown, so it is sent again).
    package static func seeded(from manifest: Manifest, target: String, head: S3Client.ObjectHead? = nil) -> BucketState {
        var objects: [String: Object] = [:]
        for item in manifest.items { objects[item.path] = Object(sha256: item.sha256, bytes: item.bytes) }
        if let head, let sha256 = head.sha256 { objects["manifest.json"] = Object(sha256: sha256, bytes: head.bytes) }
        return BucketState(target: target, objects: objects, seeded: true, site: head?.site)
    }
}
