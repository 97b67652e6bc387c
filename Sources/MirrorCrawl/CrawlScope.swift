import MirrorCore

/// Which pages a crawl follows: those under the start page's directory (`wget --no-parent`),
/// or every page of the source's host. A URL is not judged by its name: one that ends in `.jpg`
/// is a page when it answers with one (a photo's own page, `/wiki/File:X.jpg`). A page on the source's
/// host over https is in scope of an http source, and the other way round (a redirect from
/// http to https on the same host stays in scope).
struct CrawlScope: Sendable {
    let source: CanonicalURL
    let scope: CrawlConfiguration.Scope
    /// The start page's directory: its path up to and including the last `/`.
    let directory: String

    init(source: CanonicalURL, scope: CrawlConfiguration.Scope) {
        self.source = source
        self.scope = scope
        let path = source.path
        directory = path.hasSuffix("/") ? path : String(path[...(path.lastIndex(of: "/") ?? path.startIndex)])
    }

    func contains(_ url: CanonicalURL) -> Bool {
        guard url.isWeb, url.host == source.host else { return false }
        // Ports count, except the default ports of a same-host http/https pair.
        if url.scheme == source.scheme {
            guard url.port == source.port else { return false }
        } else if url.port != nil || source.port != nil {
            return false
        }
        switch scope {
        case .host: return true
        case .directory: return url.path.hasPrefix(directory)
        }
    }
}
