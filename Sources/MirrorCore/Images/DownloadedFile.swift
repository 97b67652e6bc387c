import Foundation

/// A complete, checked download waiting in the state directory to be stored.
package struct DownloadedFile: Sendable, Equatable {
    /// The temporary file's path, inside `.catalog-mirror/`.
    package var temporaryPath: String
    /// Hex SHA-256 of the bytes.
    package var sha256: String
    /// Number of bytes.
    package var byteCount: Int64
    /// The detected format.
    package var format: ImageFormat
    /// The `ETag` response header.
    package var etag: String?
    /// The `Last-Modified` response header.
    package var lastModified: String?
    /// The image's size in pixels, from its header; nil when the header does not say.
    package var dimensions: ImageDimensions? = nil
    /// What the file says about itself (EXIF, IPTC, XMP), read from its header blocks once it
    /// is complete; nil when it was not read.
    package var embedded: EmbeddedMetadata? = nil

    package init(
        temporaryPath: String, sha256: String, byteCount: Int64, format: ImageFormat, etag: String? = nil,
        lastModified: String? = nil, dimensions: ImageDimensions? = nil, embedded: EmbeddedMetadata? = nil
    ) {
        self.temporaryPath = temporaryPath
        self.sha256 = sha256
        self.byteCount = byteCount
        self.format = format
        self.etag = etag
        self.lastModified = lastModified
        self.dimensions = dimensions
        self.embedded = embedded
    }
}
