import Foundation

/// One image the store holds: where its file is and what its bytes are.
public struct StoredImage: Sendable, Equatable {
    /// The key it was fetched for.
    public var key: CanonicalURL
    /// The file name inside `images/` (no directory part).
    public var fileName: String
    /// Hex SHA-256 of the file.
    public var sha256: String
    /// Size in bytes.
    public var byteCount: Int64
    /// Detected media type.
    public var contentType: String
    /// The `ETag` header from the response that delivered the bytes.
    public var etag: String?
    /// The `Last-Modified` header from the response that delivered the bytes.
    public var lastModified: String?
    /// When the key was first published; kept while it stays published.
    public var firstSeen: Date
    /// When the key was last fetched or confirmed.
    public var lastChecked: Date
    /// The name of the file in `.catalog-mirror/staged/` while it waits for this run's publish
    /// step (the download's own temporary name: it is renamed once, straight into `images/`);
    /// nil once published.
    public var stagedName: String?

    /// True while the file waits in `.catalog-mirror/staged/` for this run's publish step.
    public var isStaged: Bool { stagedName != nil }

    /// The manifest `path`, relative to the mirror root.
    public var path: String { "images/" + fileName }
}
