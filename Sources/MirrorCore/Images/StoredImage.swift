import Foundation

/// One image the store holds: where its file is and what its bytes are.
package struct StoredImage: Sendable, Equatable {
    /// The key it was fetched for.
    package var key: CanonicalURL
    /// The manifest `path`, relative to the mirror root: `images/` and the file name. Kept
    /// whole because every published item's manifest entry holds it (building it for each item
    /// added a copy per item to the run's peak); the file name is cut from it when a file is moved.
    package private(set) var path: String
    /// Hex SHA-256 of the file.
    package var sha256: String
    /// Size in bytes.
    package var byteCount: Int64
    /// Detected media type.
    package var contentType: String
    /// The `ETag` header from the response that delivered the bytes.
    package var etag: String?
    /// The `Last-Modified` header from the response that delivered the bytes.
    package var lastModified: String?
    /// When the key was first published; kept while it stays published.
    package var firstSeen: Date
    /// When the key was last fetched or confirmed.
    package var lastChecked: Date
    /// The name of the file in `.catalog-mirror/staged/` while it waits for a publish step (the
    /// download's own temporary name; on a first run, its final name, `fileName`, so the whole
    /// folder can become `images/`); nil once published. A run that stops leaves it staged for
    /// the next.
    package var stagedName: String?
    /// When the file's content last changed (`FileSystem.Status.modified`) as it was stored: a
    /// file whose time differs was changed by someone else since, and is not trusted. Nil in
    /// rows written before it was kept (then the size alone is checked).
    package var fileModified: Int64?
    /// The image's size in pixels, read from its header when it was stored (or, for a row
    /// stored before sizes were kept, when it was next confirmed); nil when the header does
    /// not say.
    package var dimensions: ImageDimensions?
    /// What the file says about itself (`EmbeddedMetadata`), read when it was stored (or, for
    /// a row stored before it was kept, when it was next confirmed); nil when not read yet.
    /// Without its position when the mirror is made with `--strip-location`.
    package var embedded: EmbeddedMetadata?
    /// The perceptual signature of the image's pixels (`MirrorPixels.PixelFingerprint`, as
    /// hex), computed when the image was first compared with another rendition of its photo;
    /// nil until then. Kept while the bytes stay the same, so a later run compares without
    /// decoding again.
    package var fingerprint: String?

    package init(
        key: CanonicalURL, fileName: String, sha256: String, byteCount: Int64, contentType: String, etag: String?,
        lastModified: String?, firstSeen: Date, lastChecked: Date, stagedName: String? = nil, fileModified: Int64? = nil,
        dimensions: ImageDimensions? = nil, embedded: EmbeddedMetadata? = nil, fingerprint: String? = nil
    ) {
        self.key = key
        self.path = Self.directory + fileName
        self.sha256 = sha256
        self.byteCount = byteCount
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.firstSeen = firstSeen
        self.lastChecked = lastChecked
        self.stagedName = stagedName
        self.fileModified = fileModified
        self.dimensions = dimensions
        self.embedded = embedded
        self.fingerprint = fingerprint
    }

    /// True when a file with `status` is this image's, as stored: its size, and (when known) the
    /// time its content last changed. A file someone deleted, truncated or wrote over is not.
    package func isHeld(by status: FileSystem.Status?) -> Bool {
        guard let status, status.size == byteCount else { return false }
        return fileModified.map { $0 == status.modified } ?? true
    }

    package static let directory = "images/"

    /// The file name inside `images/` (no directory part).
    package var fileName: String { String(path.utf8.dropFirst(Self.directory.utf8.count)) ?? "" }

    /// True while the file waits in `.catalog-mirror/staged/` for a publish step.
    package var isStaged: Bool { stagedName != nil }
}
