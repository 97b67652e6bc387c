import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCatalog
@testable import MirrorCore
@testable import MirrorPublish
@testable import MirrorStore

/// Issue 26: what the generated site shows of each photo (sizes, `srcset`, caption, real
/// metadata), albums shown by their covers, and the search index.
@Suite("The generated gallery")
struct GallerySiteTests {
    static let album = "http://h/g/nature/"

    /// An item of `size` pixels and bytes, optionally a rendition of `of`.
    func item(
        _ name: String, width: Int?, height: Int? = nil, bytes: Int64, of original: String? = nil, album: String? = album,
        title: String? = nil, metadata: [String: String]? = nil
    ) -> Manifest.Item {
        Manifest.Item(
            key: "http://h/g/\(name).jpg", path: "images/\(name)-0123456789.jpg", sha256: "ab", bytes: bytes,
            contentType: "image/jpeg", title: title, metadata: metadata, album: album,
            variantOf: original.map { "http://h/g/\($0).jpg" }, firstSeen: Date(timeIntervalSince1970: 0),
            lastChecked: Date(timeIntervalSince1970: 0), width: width, height: height ?? width.map { $0 * 3 / 4 })
    }

    func render(_ manifest: Manifest, perPage: Int = 10) throws -> [String] {
        let publisher = MirrorPublisher(
            layout: MirrorLayout(root: URL(fileURLWithPath: "/tmp/unused")), template: try SiteTemplate.embedded(),
            itemsPerPage: perPage)
        return publisher.render(manifest)
    }

    @Test("a tile has its size and a srcset of its renditions' widths; the view's link has the original's size")
    func tiles() throws {
        let manifest = Manifest(
            source: "http://h/g/", generatedAt: Date(),
            items: [
                item("lake", width: 4000, bytes: 9_000_000, title: "Lake"),
                item("lake-small", width: 800, bytes: 90_000, of: "lake"),
                item("lake-thumb", width: 200, bytes: 9_000, of: "lake"),
                item("tree", width: nil, bytes: 5_000, title: "Tree"),
            ], rejected: [], albums: [.init(url: Self.album, title: "Nature")])
        let pages = try render(manifest)
        let album = try #require(pages.first { $0.contains("<h1>Nature</h1>") })
        #expect(
            album.contains(
                #"<a class="tile" href="../images/lake-0123456789.jpg" data-width="4000" data-height="3000"><img src="../images/lake-thumb-0123456789.jpg" srcset="../images/lake-thumb-0123456789.jpg 200w, ../images/lake-small-0123456789.jpg 800w, ../images/lake-0123456789.jpg 4000w" sizes="(max-width: 40rem) 50vw, (min-width: 100rem) 22rem, 16rem" width="200" height="150" alt="Lake" loading="lazy"></a>"#
            ), "\(album)")
        // Unknown sizes: no width, height or srcset rather than wrong ones.
        #expect(
            album.contains(
                #"<a class="tile" href="../images/tree-0123456789.jpg"><img src="../images/tree-0123456789.jpg" alt="Tree" loading="lazy"></a>"#
            ))
        #expect(album.contains(#"data-total="2""#) && album.contains(#"data-position="2""#))
    }

    @Test("an album's cover is its picture: a cover that is no photo of the album is not shown as a photo of the page above")
    func covers() throws {
        let start = "http://h/g/"
        let manifest = Manifest(
            source: start, generatedAt: Date(),
            items: [
                // The album's own photo, also its cover (sigal): shown in the album.
                item("aqua", width: 800, bytes: 900, album: Self.album, title: "Aqua"),
                // A collage shown only as the album's cover, found on the start page (lazygal).
                item("stack", width: 300, bytes: 500, album: start, title: "index"),
                // The start page's own photo.
                item("own", width: 640, bytes: 700, album: start, title: "Own"),
            ], rejected: [],
            albums: [
                .init(url: start, title: "Trip"), .init(url: Self.album, title: "Nature", cover: "http://h/g/stack.jpg"),
            ])
        let pages = try render(manifest)
        let index = try #require(pages.first)
        #expect(!index.contains(#"alt="index""#), "the collage is shown as a photo")
        #expect(index.contains(#"<img src="images/stack-0123456789.jpg" alt="" width="300" height="225" loading="lazy">"#))
        #expect(index.contains(#"alt="Own""#))
        #expect(index.contains("(2 photos in all)"))
        let album = try #require(pages.first { $0.contains("<h1>Nature</h1>") })
        #expect(album.contains(#"alt="Aqua""#))
        // Without a cover in the manifest (an older one), the first photo stands in.
        var older = manifest
        older.albums = [.init(url: start, title: "Trip"), .init(url: Self.album, title: "Nature")]
        let olderIndex = try #require(try render(older).first)
        #expect(olderIndex.contains(#"<img src="images/aqua-0123456789.jpg" alt="""#))
    }

    @Test("the view shows a caption and real metadata only")
    func details() throws {
        let manifest = Manifest(
            source: "http://h/g/", generatedAt: Date(),
            items: [
                item(
                    "lake", width: 400, bytes: 9, album: nil, title: "Lake",
                    metadata: ["description": "Dawn over the water", "alt": "Lake", "price": "12.50", "note": " — "])
            ], rejected: [])
        let page = try #require(try render(manifest).first)
        #expect(page.contains(#"<p class="caption">Dawn over the water</p>"#))
        #expect(page.contains("<dt>price</dt><dd>12.50</dd>"))
        #expect(!page.contains("<dt>alt</dt>") && !page.contains("<dt>note</dt>") && !page.contains("<dt>description</dt>"))
        #expect(
            PublishPlan.realValues(["date": ", Tue Jan 22 03:28:22 2008", "empty": " : ", "price": "-12.50", "x": "a | b"])
                == ["date": "Tue Jan 22 03:28:22 2008", "price": "-12.50", "x": "a | b"])
    }

    @Test("labels read as words: a file name as a title, a listing's page number, alt text that repeats the album are not shown")
    func labels() throws {
        var manifest = Manifest(
            source: "http://h/g/", generatedAt: Date(),
            items: [
                // sigal captions a photo with no title by its file name.
                item("autumn-maple", width: 400, bytes: 9, title: "autumn-maple", metadata: ["alt": "Nature"]),
                item("lake", width: 400, bytes: 9, title: "Lake", metadata: ["alt": "Mist over the lake", "file": "lake.jpg"]),
                item("IMG_0042", width: 400, bytes: 9, title: nil),
            ], rejected: [],
            albums: [.init(url: "http://h/g/", title: "Walks — page 1"), .init(url: Self.album, title: "Nature | Page 2 of 5")])
        manifest.title = "Walks — page 1"
        let pages = try render(manifest)
        let index = try #require(pages.first)
        #expect(index.contains("<title>Walks</title>") && index.contains("<h1>Walks</h1>"), "\(index.prefix(600))")
        let album = try #require(pages.first { $0.contains("<h1>Nature</h1>") })
        #expect(album.contains(#"<span class="title">Autumn maple</span>"#) && album.contains(#"alt="Autumn maple""#))
        #expect(album.contains(#"<span class="title">IMG 0042</span>"#))
        // Alt text that only repeats the album's title is no caption; one that says more is.
        #expect(!album.contains("<dt>alt</dt>") && !album.contains(#"<p class="caption">Nature</p>"#))
        #expect(album.contains(#"<p class="caption">Mist over the lake</p>"#))
        #expect(!album.contains("<dt>file</dt>"))
        #expect(SitePlan.withoutPageNumber("Page 3") == "Page 3")
        #expect(SitePlan.withoutPageNumber("Birds (page 2)") == "Birds")
        #expect(SitePlan.withoutPageNumber("Pages of history") == "Pages of history")
    }

    @Test("the search index lists every shown photo, escaped for a script, and is rewritten only when it changes")
    func searchIndex() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        for folder in [layout.root, layout.state, layout.temporary] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let publisher = MirrorPublisher(layout: layout, template: try SiteTemplate.embedded(), itemsPerPage: 2)
        var items = [
            item(
                "a", width: 10, bytes: 1, title: "</script><script>alert(1)</script>",
                metadata: ["caption": "Line\nbreak \u{2028} end"]),
            item("b", width: 10, bytes: 1, title: "Beta \"quoted\" \\"),
            item("c", width: nil, bytes: 1, title: "Gamma"),
            item("c-small", width: nil, bytes: 0, of: "c"),
        ]
        var manifest = Manifest(
            source: "http://h/g/", generatedAt: Date(), items: items, rejected: [],
            albums: [.init(url: Self.album, title: "Nature")])
        try await publisher.publish(manifest)
        let url = layout.root.appendingPathComponent(SearchIndex.fileName)
        let script = try String(contentsOf: url, encoding: .utf8)
        #expect(!script.contains("</script>") && !script.contains("\u{2028}"))
        #expect(script.contains(#""\u003c/script>\u003cscript>alert(1)\u003c/script>""#))
        #expect(script.contains(#""Line\nbreak \u2028 end""#))
        #expect(script.contains(#"["Nature","albums/nature",3]"#))
        #expect(script.contains(#"0,"b-0123456789.jpg",10,7,"Beta \"quoted\" \\","""#))
        // A photo whose tile is a smaller rendition names its view's anchor.
        #expect(script.contains(#""c-0123456789","c-small-0123456789.jpg",0,0,"Gamma","""#))
        #expect(
            script.hasPrefix("/* catalog-mirror search index")
                && script.contains("window.catalogMirrorSearch = {\"v\":2,\"perPage\":2,"))

        // Published again unchanged: the file is left alone.
        let before = try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
        try await Task.sleep(for: .milliseconds(20))
        manifest.generatedAt = Date()
        try await publisher.publish(manifest)
        #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date == before)
        // A title changes: it is rewritten.
        items[2] = item("c", width: nil, bytes: 1, title: "Delta")
        manifest.items = items
        try await publisher.publish(manifest)
        #expect(try String(contentsOf: url, encoding: .utf8).contains("\"Delta\""))
    }

    @Test("the site's own CSS and JavaScript stay under 30 KB together (issue 26)")
    func assetBudget() throws {
        let assets = try SiteTemplate.embedded().assets
        let ours = assets.filter { $0.key.hasSuffix(".css") || $0.key.hasSuffix(".js") }
        #expect(Set(ours.keys) == ["assets/style.css", "assets/gallery.js"])
        let bytes = ours.values.reduce(0) { $0 + $1.count }
        #expect(bytes < 30_000, "\(bytes) bytes")
    }
}
