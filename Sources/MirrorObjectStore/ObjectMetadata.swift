/// The `Content-Type` and `Cache-Control` an object of the mirror is served with.
package enum ObjectMetadata {
    /// Images: their names change with their bytes, so a cache may keep them for a year.
    package static let immutable = "public, max-age=31536000, immutable"
    /// Pages, feeds, search files, assets and `manifest.json`: rewritten in place by a sync,
    /// so caches ask again after a minute.
    package static let shortLived = "public, max-age=60"
    /// The header of `manifest.json`'s object that names the site the bucket serves beside it
    /// (`MirrorPublisher.PreparedSite.mark`): set only once every page, feed and search file of
    /// that site is in the bucket, and removed before any of them is replaced. A worker that
    /// keeps no disk and would make the same site makes none and asks about none.
    package static let siteMark = "x-amz-meta-site"

    /// The media type of a file of the generated site, by its extension; images named by the
    /// manifest take the manifest's `contentType` instead.
    package static func contentType(ofPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let dot = name.lastIndex(of: ".")
        let ext = dot.map { name[name.index(after: $0)...].lowercased() } ?? ""
        switch ext {
        case "html", "htm": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "json": return "application/json"
        case "atom": return "application/atom+xml"
        case "xml": return "application/xml"
        case "txt": return "text/plain; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "avif": return "image/avif"
        case "ico": return "image/vnd.microsoft.icon"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        default: return "application/octet-stream"
        }
    }
}
