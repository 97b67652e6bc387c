import Foundation
import Hummingbird
import MirrorTestSupport
import NIOCore
import Testing

@testable import CatalogMirror
@testable import MirrorCore

/// SPEC "Scope": no request of any kind is ever sent out of scope (robots.txt, HEAD and retries
/// included), and a redirect's target is checked before it is followed; a redirected image is keyed
/// by the URL the source lists. Issue 45 moved the scope check before robots.txt: this runs the
/// built binary on a gallery on 127.0.0.1 that reaches 127.0.0.2 every way a page can, and asks
/// the server on 127.0.0.2 whether it heard anything at all.
@Suite("NoRequestOutOfScopeTests")
struct NoRequestOutOfScopeTests {
    @Test("a gallery that links, shows and redirects to another host sends that host no request, not even robots.txt")
    func anotherHostHearsNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let elsewhere = TestServer()
        let gallery = TestServer()
        try await elsewhere.run(
            host: "127.0.0.2",
            routes: { router, _ in
                // Whatever is asked is answered as a willing server would: a page, an image, robots.txt.
                router.get("/robots.txt") { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "text/plain"],
                        body: .init(byteBuffer: ByteBuffer(string: "User-agent: *\nAllow: /\n")))
                }
                router.get("/gallery/{name}") { _, context in
                    let name = context.parameters.get("name") ?? ""
                    return name.hasSuffix(".html")
                        ? html("<title>Elsewhere</title><img src=\"there.png\" alt=\"There\">") : bytes(Fixture.png)
                }
                router.get("/feed.xml") { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "application/rss+xml"],
                        body: .init(
                            byteBuffer: ByteBuffer(string: "<rss version=\"2.0\"><channel><title>x</title></channel></rss>")))
                }
            }
        ) { other in
            try await gallery.run(routes: { router, _ in
                router.get("/robots.txt") { _, _ in
                    Response(
                        status: .ok, headers: [.contentType: "text/plain"],
                        body: .init(byteBuffer: ByteBuffer(string: "User-agent: *\nAllow: /\n")))
                }
                router.get("/gallery/") { _, _ in
                    html(
                        """
                        <title>Two Hosts</title>
                        <link rel="alternate" type="application/rss+xml" href="\(other)/feed.xml">
                        <meta property="og:image" content="\(other)/gallery/og.jpg">
                        <h1>Two Hosts</h1>
                        <figure><img src="a.jpg" alt="Here"><figcaption>Here</figcaption></figure>
                        <figure><img src="b.png" alt="Also here"></figure>
                        <figure><img src="away.jpg" alt="Moved away"></figure>
                        <figure><img src="\(other)/gallery/direct.png" alt="Shown from elsewhere"></figure>
                        <p><a href="\(other)/gallery/album.html">An album on another host</a>
                        <a href="moved.html">An album that moved</a>
                        <a href="guess.jpg">A link that redirects</a></p>
                        <iframe src="\(other)/gallery/frame.html"></iframe>
                        """)
                }
                router.get("/gallery/a.jpg") { _, _ in bytes(Fixture.jpeg, type: "image/jpeg") }
                router.get("/gallery/b.png") { _, _ in bytes(Fixture.png) }
                // An image the page shows, a page it links and a link target: each redirects out.
                router.get("/gallery/away.jpg") { _, _ in
                    Response(status: .found, headers: [.location: other + "/gallery/away.jpg"])
                }
                router.get("/gallery/moved.html") { _, _ in
                    Response(status: .movedPermanently, headers: [.location: other + "/gallery/moved.html"])
                }
                router.get("/gallery/guess.jpg") { _, _ in
                    Response(status: .temporaryRedirect, headers: [.location: other + "/gallery/guess.jpg"])
                }
            }) { origin in
                let mirror = directory.url.appendingPathComponent("mirror")
                let result = try await Binary.run(["sync", origin + "/gallery/", "--out", mirror.path], in: directory.url)
                print(
                    "NoRequestOutOfScopeTests: exit \(result.status); 127.0.0.2 heard \(elsewhere.log); stderr: \(result.stderr)")
                #expect(elsewhere.log.isEmpty, "requests left scope for 127.0.0.2: \(elsewhere.log)")
                #expect(result.status == 0, "sync exited \(result.status): \(result.stderr.suffix(800))")
                let manifest = try #require(
                    try? Manifest.read(from: mirror.appendingPathComponent("manifest.json")),
                    "no manifest.json: \(result.stderr.suffix(800))")
                let reasons = Dictionary(manifest.rejected.map { ($0.key, $0.reason) }, uniquingKeysWith: { first, _ in first })
                let keys = manifest.items.map(\.key)
                print("NoRequestOutOfScopeTests: published \(keys); rejected \(reasons)")
                #expect(keys.contains(origin + "/gallery/a.jpg"), "a.jpg is not published: \(keys)")
                #expect(
                    keys.allSatisfy { $0.hasPrefix(origin + "/") }, "an item of another host is published: \(keys)")
                // A redirected image is keyed by the URL the source lists, rejected before it is followed.
                #expect(
                    reasons[origin + "/gallery/away.jpg"] == "out-of-scope",
                    "away.jpg (redirected to 127.0.0.2) is \(reasons[origin + "/gallery/away.jpg"] ?? "not rejected"); rejected: \(reasons)"
                )
                #expect(!keys.contains(origin + "/gallery/away.jpg"), "away.jpg is published")
                #expect(
                    reasons[other + "/gallery/direct.png"] == "out-of-scope",
                    "direct.png (shown from 127.0.0.2) is \(reasons[other + "/gallery/direct.png"] ?? "not rejected")")
                #expect(!reasons.keys.contains { $0.hasPrefix(other) && reasons[$0] != "out-of-scope" })
            }
        }
    }
}
