/// An image format recognised by its magic bytes.
package enum ImageFormat: String, Sendable, CaseIterable, Codable {
    /// PNG (`image/png`).
    case png
    /// JPEG (`image/jpeg`).
    case jpeg
    /// GIF, 87a or 89a (`image/gif`).
    case gif
    /// WebP (`image/webp`).
    case webp
    /// AVIF (`image/avif`).
    case avif
    /// SVG (`image/svg+xml`): recognised so it can be refused, never published (it can carry scripts).
    case svg

    /// The media type written to the manifest.
    package var mediaType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .svg: "image/svg+xml"
        }
    }

    /// The file extension used in `images/`.
    package var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        default: rawValue
        }
    }

    /// Whether the mirror publishes this format. SVG is a document that can carry scripts and
    /// event handlers which would run with the mirror's origin, so it is refused
    /// (`unsupported-type`) rather than published.
    package var isPublished: Bool { self != .svg }
}
