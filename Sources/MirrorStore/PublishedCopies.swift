import Foundation
import MirrorCore

/// The files a copy of the mirror kept elsewhere holds (its bucket, with `--publish`), by path
/// relative to the mirror's root, with the SHA-256 and size of each: what lets a worker that
/// keeps no disk revalidate the images its bucket serves instead of downloading them again.
///
/// An image whose row the index holds but whose file is not on this disk counts as stored
/// when this copy holds its path with its bytes (`holds(_:)`): the loader sends a conditional
/// request, and a 304 confirms the row as it confirms a file on disk. Such an image is not
/// copied back to this disk: the site is served from the copy, and a later download of new
/// bytes puts the new file here (and, by its new name, there).
package struct PublishedCopies: Sendable {
    /// One file of the copy.
    package struct File: Sendable, Equatable {
        package var sha256: String
        package var bytes: Int64

        package init(sha256: String, bytes: Int64) {
            self.sha256 = sha256
            self.bytes = bytes
        }
    }

    /// Path → file.
    package var files: [String: File]
    /// The copy's own `manifest.json`, read, and saved in `.catalog-mirror/` (`file`): when the
    /// mirror on this disk has none (an empty `--out`), the run starts from it
    /// (`DiskStorage.setUp()`): its items are the last run's, and the index is seeded with
    /// their rows, validators included.
    package var manifest: (file: URL, manifest: Manifest)?

    /// No copy: every image is on this disk or is not stored.
    package init(files: [String: File] = [:], manifest: (file: URL, manifest: Manifest)? = nil) {
        self.files = files
        self.manifest = manifest
    }

    /// True when the copy holds the file of `stored` with its bytes.
    package func holds(_ stored: StoredImage) -> Bool {
        files[stored.path] == File(sha256: stored.sha256, bytes: stored.byteCount)
    }

    /// True when the copy holds a file at `path` of `bytes` bytes with this SHA-256.
    package func holds(path: String, sha256: String, bytes: Int64) -> Bool {
        files[path] == File(sha256: sha256, bytes: bytes)
    }
}

extension PublishedCopies {
    /// The index's rows for the items of `manifest` (the copy's) that the copy holds, as the
    /// last run stored them: validators, first-seen and last-checked times, pixel size,
    /// fingerprint, and what each file said about itself (as far as the manifest says it: a
    /// title or a caption only where the manifest took it from the file). Items with a path
    /// outside `images/` or one the copy does not hold are left out: they are downloaded.
    func rows(of manifest: Manifest) -> [StoredImage] {
        manifest.items.compactMap { item in
            guard let key = CanonicalURL(item.key), item.path.hasPrefix(StoredImage.directory),
                holds(path: item.path, sha256: item.sha256, bytes: item.bytes)
            else { return nil }
            let name = String(item.path.dropFirst(StoredImage.directory.count))
            guard LegacyState.isPlainName(name) else { return nil }
            // Read from the file when it was stored: an empty value says the file said nothing,
            // so no later confirmation looks for a file this disk does not have.
            var embedded = item.embedded ?? EmbeddedMetadata()
            if item.titleFrom == .file { embedded.title = item.title }
            if item.captionFrom == .file { embedded.caption = item.metadata?["caption"] }
            return StoredImage(
                key: key, fileName: name, sha256: item.sha256, byteCount: item.bytes, contentType: item.contentType,
                etag: item.etag, lastModified: item.lastModified, firstSeen: item.firstSeen, lastChecked: item.lastChecked,
                dimensions: item.width.flatMap { width in
                    item.height.flatMap { ImageDimensions.checked(width: width, height: $0) }
                },
                embedded: embedded, fingerprint: item.fingerprint)
        }
    }

    /// What the pixels said of the renditions `manifest` groups (an item's `variantOf` names
    /// its photo's largest rendition, and only pairs whose pixels matched join): every two
    /// renditions of one photo matched, with the bytes the manifest names. Proposed pairs that
    /// differed are not in a manifest; those are compared again.
    static func pixelAnswers(of manifest: Manifest) -> [PixelAnswer] {
        var photos: [String: [Manifest.Item]] = [:]
        for item in manifest.items { photos[item.variantOf ?? item.key, default: []].append(item) }
        var answers: [PixelAnswer] = []
        // A photo of more renditions than any gallery makes is compared again rather than
        // answered with its square of pairs.
        for renditions in photos.values where renditions.count > 1 && renditions.count <= 64 {
            let sorted = renditions.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            for (index, first) in sorted.enumerated() {
                for second in sorted[(index + 1)...] {
                    answers.append(
                        PixelAnswer(
                            first: first.key, second: second.key, firstSHA256: first.sha256, secondSHA256: second.sha256,
                            matches: true))
                }
            }
        }
        return answers
    }
}
