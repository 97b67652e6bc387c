/// The cache validators of a stored response (RFC 9110 section 8.8).
package struct Validators: Sendable, Equatable, Codable {
    /// The `ETag` response header, sent back as `If-None-Match`.
    package var etag: String?
    /// The `Last-Modified` response header, sent back as `If-Modified-Since`.
    package var lastModified: String?

    /// Validators from a response's `ETag` and `Last-Modified` headers; either may be nil.
    package init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// True when there is something to send a conditional request with.
    package var isEmpty: Bool { etag == nil && lastModified == nil }

    /// `If-None-Match` / `If-Modified-Since` headers for a conditional GET.
    package var conditionalHeaders: [(String, String)] {
        var headers: [(String, String)] = []
        if let etag { headers.append(("If-None-Match", etag)) }
        if let lastModified { headers.append(("If-Modified-Since", lastModified)) }
        return headers
    }
}
