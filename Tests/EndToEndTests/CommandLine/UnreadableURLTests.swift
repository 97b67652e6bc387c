import Foundation
import Hummingbird
import MirrorTestSupport
import Testing

@testable import CatalogMirror

/// An image reference whose URL cannot be read, through the binary: a page's `img` with one is
/// warned about (the page shows an image no one can load); a string a script only suggests is
/// an image, and that is no URL, fails nothing. `-v` names the first few, with their page.
@Suite("Image references whose URL cannot be read")
struct UnreadableURLTests {
    /// As MediaWiki writes every page's configuration: the page's name, `File:` pages' ending
    /// in `.jpg`. Read as URLs they are `file:` and `special:` ones, which no browser loads
    /// from a web page either.
    static let wikiConfiguration = """
        <script>document.documentElement.className="client-js";RLCONF={"wgPageName":"Special:WhatLinksHere/File:Aqua.jpg",\
        "wgRelevantPageName":"File:Aqua.jpg","wgNamespaceNumber":-1};</script>
        """

    static func routes(_ router: Router<BasicRequestContext>) {
        router.get("/wiki") { _, _ in html("<title>Wiki</title>\(wikiConfiguration)<img src=\"/a.png\" alt=\"Aqua\">") }
        router.get("/") { _, _ in html("<a href=\"/wiki\">wiki</a> <a href=\"/broken.html\">more</a>") }
        // A host with a space: a browser cannot load it either.
        router.get("/broken.html") { _, _ in html("<img src=\"http://exa mple.com/b.png\" alt=\"B\">") }
        router.get("/a.png") { _, _ in bytes(Fixture.png) }
    }

    @Test("a script's guess that is no URL fails nothing; an img with one is warned about; -v names both with their page")
    func unreadable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try await TestServer().run(routes: { router, _ in Self.routes(router) }) { origin in
            // Given a wiki page whose configuration names two `File:` pages, and no img without a URL
            let wiki = try await Binary.run(["sync", origin + "/wiki", "--out", "wiki"], in: directory.url)
            // Then the run is quiet: exit 0 and the summary alone (cron mails warnings)
            #expect(wiki.status == 0, "\(wiki.stderr)")
            #expect(!wiki.stderr.contains("warning:"), "\(wiki.stderr)")
            #expect(wiki.stderr.split(separator: "\n").count == 1, "\(wiki.stderr)")

            // Given also a page whose img has a URL no one can read
            let both = try await Binary.run(["sync", origin + "/", "--out", "both", "-v"], in: directory.url)
            let lines = both.stderr.split(separator: "\n").map(String.init)
            // Then that img alone is warned about, and the run still succeeds
            #expect(both.status == 0, "\(both.stderr)")
            #expect(
                lines.filter { $0.contains("could not be read") }
                    == ["catalog-mirror: warning: 1 image references had URLs that could not be read"], "\(both.stderr)")
            // And -v names each with its page, a guess as one
            for expected in [
                "catalog-mirror: info: page \(origin)/wiki: image URL \"Special:WhatLinksHere/File:Aqua.jpg\" cannot be read (a guess; ignored)",
                "catalog-mirror: info: page \(origin)/wiki: image URL \"File:Aqua.jpg\" cannot be read (a guess; ignored)",
                "catalog-mirror: info: page \(origin)/broken.html: image URL \"http://exa mple.com/b.png\" cannot be read",
            ] {
                #expect(lines.contains(expected), "\(expected)\n\(both.stderr)")
            }
        }
    }
}
