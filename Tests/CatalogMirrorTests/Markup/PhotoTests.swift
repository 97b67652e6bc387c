import Foundation
import Testing

@testable import CatalogMirror

@Suite("Photos: renditions read from pages and tied together")
struct PhotoTests {
    func scan(_ html: String) throws -> PageScan {
        try HTMLScanner.scan(Array(html.utf8), url: "http://h/g/")
    }

    /// The references of each photo number, as (url, role) pairs.
    func photos(_ scan: PageScan) -> [[String]] {
        let numbers = scan.images.compactMap(\.photo)
        var seen: [Int] = []
        for number in numbers where !seen.contains(number) { seen.append(number) }
        return seen.map { number in scan.images.filter { $0.photo == number }.map(\.url) }
    }

    @Test("an image, its srcset, its link's target and image data-* attributes are one photo")
    func oneImageManyRenditions() throws {
        let page = try scan(
            """
            <a href="big/a.jpg" data-full="orig/a.jpg" title="Aqua">
              <img src="thumbs/a.jpg" srcset="a-300.jpg 300w, a-800.jpg 800w" data-large-file="large/a.jpg" alt="a.jpg"></a>
            <img src="b.jpg" data-zoom-image="zoom/b.jpg" alt="Bee">
            <a href="c.jpg">Cherry</a>
            """)
        #expect(
            photos(page) == [
                ["big/a.jpg", "orig/a.jpg", "thumbs/a.jpg", "a-300.jpg", "a-800.jpg", "large/a.jpg"],
                ["b.jpg", "zoom/b.jpg"], ["c.jpg"],
            ])
        let roles = Dictionary(uniqueKeysWithValues: page.images.map { ($0.url, $0.size.role) })
        #expect(roles["big/a.jpg"] == .full)
        #expect(roles["orig/a.jpg"] == .original)
        #expect(roles["zoom/b.jpg"] == .original)
        #expect(roles["large/a.jpg"] == .full)
        #expect(roles["thumbs/a.jpg"] == .display)
        // The link's title names the photo; "a.jpg" is only a file name, not a title.
        #expect(page.images.filter { $0.photo == 0 }.allSatisfy { $0.title == "Aqua" })
        #expect(page.images.first { $0.url == "c.jpg" }?.title == "Cherry")
    }

    @Test("a thumbnail linking to a page is a photo link; plain links are links")
    func photoLinks() throws {
        let page = try scan(
            """
            <a href="slide_1.html"><img src="thumb_1.jpg" alt="One"></a>
            <a href="nature/">Nature</a> <a href="#top">top</a> <a href="javascript:void(0)">x</a>
            <link rel="next" href="?page=2"><iframe src="frame.html"></iframe>
            <meta http-equiv="refresh" content="5; URL='later.html'">
            """)
        #expect(page.links.map(\.href) == ["slide_1.html", "nature/", "?page=2", "frame.html", "later.html"])
        #expect(page.links[0].photo == page.images.first?.photo)
        #expect(page.links[1].photo == nil)
    }

    @Test("a placeholder every lazy image shows is dropped; the real sources stay")
    func lazyPlaceholders() throws {
        let page = try scan(
            """
            <img src="spinner.gif" data-src="one.jpg" alt="One">
            <img src="spinner.gif" data-src="two.jpg" alt="Two">
            <img src="data:image/gif;base64,R0lGOD" data-srcset="three-1x.jpg 1x, three-2x.jpg 2x" alt="Three">
            <noscript><img src="one.jpg" alt="One"></noscript>
            """)
        let urls = page.images.map(\.url)
        #expect(!urls.contains("spinner.gif"))
        #expect(urls.contains("one.jpg") && urls.contains("two.jpg") && urls.contains("three-2x.jpg"))
    }

    @Test("metadata holds what a person reads: no URLs, paths, JSON or script plumbing")
    func metadataIsText() throws {
        let page = try scan(
            """
            <figure data-price="12.50"><img src="p.jpg" data-attachment-id="7" data-orig-size="1600,1200"
              data-image-meta='{"aperture":"0"}' data-permalink="http://h/p/" data-image-title="Pier" data-comments-opened="1"
              data-caption="At dusk" alt="Pier photo"><figcaption>The pier</figcaption></figure>
            """)
        let image = try #require(page.images.first { $0.url == "p.jpg" })
        #expect(image.title == "The pier")
        #expect(image.metadata == ["price": "12.50", "image-title": "Pier", "caption": "At dusk", "alt": "Pier photo"])
    }

    @Test("page title and first heading are read")
    func titles() throws {
        let page = try scan("<title> My   Gallery </title><h1>Nature</h1><h1>Other</h1>")
        #expect(page.title == "My Gallery")
        #expect(page.heading == "Nature")
    }

    @Test("the frontier goes breadth-first within scope, depth and page limits, each page once")
    func frontier() throws {
        let start = try #require(CanonicalURL("http://h/g/"))
        var frontier = Frontier(
            start: start, scope: CrawlScope(source: start, scope: .directory), maxDepth: 1, maxPages: 3)
        #expect(frontier.next()?.url == start)
        for link in ["http://h/g/a/", "http://h/other/", "http://h/g/a/", "http://h/g/pic.jpg", "http://h/g/b/", "http://h/g/c/"]
        {
            frontier.offer(try #require(CanonicalURL(link)), from: 0)
        }
        frontier.offer(try #require(CanonicalURL("http://h/g/a/deeper/")), from: 1)
        #expect(frontier.next()?.url.string == "http://h/g/a/")
        #expect(frontier.next()?.url.string == "http://h/g/b/")
        #expect(frontier.next() == nil)
        #expect(frontier.refusals == .init(outOfScope: 2, beyondDepth: 1, beyondPageLimit: 1))
        let hostWide = CrawlScope(source: start, scope: .host)
        #expect(hostWide.contains(try #require(CanonicalURL("http://h/other/"))))
        #expect(hostWide.contains(try #require(CanonicalURL("https://h/g/x"))))
        #expect(!hostWide.contains(try #require(CanonicalURL("http://h:8080/g/x"))))
    }

    @Test("thumbnail → per-photo page → display and original are one photo; the cover makes the start page its album")
    func photoGroups() throws {
        // Page 0 (the index) shows an album cover linking to album page 1; page 1 shows two
        // thumbnails linking to per-photo pages 2 and 3; each of those shows its display image
        // linking to the original, and a strip of both thumbnails linking to the two pages.
        var catalog: [CanonicalURL: CatalogEntry] = [:]
        func see(_ url: String, _ document: Int, _ photo: Int, _ role: RenditionSize.Role) throws {
            let key = try #require(CanonicalURL("http://h/g/" + url))
            let discovery = Discovery(
                key: key, reference: ImageReference(url: url, photo: photo, size: .init(role: role)), document: document)
            let entry = catalog[key] ?? CatalogEntry(key: key, reference: discovery.reference, verdict: .accepted)
            entry.see(discovery)
            catalog[key] = entry
        }
        try see("a/thumb_1.jpg", 0, 0, .display)
        try see("a/thumb_1.jpg", 1, 0, .display)
        try see("a/thumb_2.jpg", 1, 1, .display)
        for (page, number) in [(2, 1), (3, 2)] {
            try see("a/scaled_\(number).jpg", page, 0, .display)
            try see("a/\(number).jpg", page, 0, .full)
            try see("a/thumb_1.jpg", page, 1, .display)
            try see("a/thumb_2.jpg", page, 2, .display)
        }
        var summary = CrawlSummary()
        for (number, path) in [(0, ""), (1, "a/"), (2, "a/slide_1.html"), (3, "a/slide_2.html")] {
            let url = try #require(CanonicalURL("http://h/g/" + path))
            summary.documents[number] = .init(url: url, kind: .page)
            summary.pageNumbers[url] = number
        }
        func link(_ document: Int, _ photo: Int, _ path: String) throws {
            summary.photoLinks.append(
                .init(document: document, photo: photo, page: try #require(CanonicalURL("http://h/g/" + path))))
        }
        try link(0, 0, "a/")
        try link(1, 0, "a/slide_1.html")
        try link(1, 1, "a/slide_2.html")
        for page in [2, 3] {
            try link(page, 1, "a/slide_1.html")
            try link(page, 2, "a/slide_2.html")
        }
        let groups = PhotoGroups(entries: catalog.values, summary: summary)
        let photos = groups.photos.map { Set($0.keys.map { String($0.string.dropFirst("http://h/g/".count)) }) }
        #expect(
            Set(photos) == [["a/thumb_1.jpg", "a/scaled_1.jpg", "a/1.jpg"], ["a/thumb_2.jpg", "a/scaled_2.jpg", "a/2.jpg"]])
        // A photo's album is the first page (in crawl order) it was found on, not counting where
        // it is shown as an album's cover: the cover is the album's picture, and the photo
        // belongs to the album (issue 26).
        #expect(
            Set(groups.photos.map { "\($0.keys.map(\.string).sorted().first ?? "") \($0.album ?? -1)" }) == [
                "http://h/g/a/1.jpg 1", "http://h/g/a/2.jpg 1",
            ])
        #expect(groups.decorations.isEmpty)
    }

    @Test("a sighting keeps what it is given in 48 bytes: none stays none, zero stays zero, a repeat only enlarges")
    func compactSightings() throws {
        let key = try #require(CanonicalURL("http://h/a.jpg"))
        let sizes = [
            RenditionSize(), RenditionSize(role: .thumbnail, width: 0, height: 0, density: 0),
            RenditionSize(role: .original, width: 4000, height: 3000, density: 1.5),
            RenditionSize(role: .full, width: -1, height: nil, density: 2),
        ]
        for (number, size) in sizes.enumerated() {
            for photo in [nil, 0, 7] as [Int?] {
                let sighting = CatalogEntry.Sighting(
                    document: number, photo: photo, size: size, isDecoration: number == 1, isFromDataFile: number == 2,
                    title: number == 0 ? nil : "T\(number)", titleSource: .caption)
                #expect(sighting.document == number && sighting.photo == photo && sighting.size == size)
                #expect(sighting.isDecoration == (number == 1) && sighting.isFromDataFile == (number == 2))
                #expect(sighting.title == (number == 0 ? nil : "T\(number)") && sighting.titleSource == .caption)
            }
        }
        let huge = CatalogEntry.Sighting(
            document: 0, photo: 0, size: RenditionSize(width: .max), isDecoration: false, isFromDataFile: false, title: nil,
            titleSource: .attribute)
        #expect(huge.size.width == Int(Int32.max))
        #expect(MemoryLayout<CatalogEntry.Sighting>.stride <= 48)

        // A second sighting in the same document and photo enlarges the first and names it once.
        var reference = ImageReference(url: key.string, photo: 3)
        reference.size = RenditionSize(role: .thumbnail)
        let entry = CatalogEntry(key: key, reference: reference, verdict: .accepted)
        entry.see(Discovery(key: key, reference: reference, document: 2))
        reference.size = RenditionSize(role: .full, width: 800)
        reference.title = "Bay"
        entry.see(Discovery(key: key, reference: reference, document: 2))
        reference.title = "Other"
        entry.see(Discovery(key: key, reference: reference, document: 2))
        #expect(entry.sightings.count == 1)
        #expect(entry.sightings[0].size == RenditionSize(role: .full, width: 800) && entry.sightings[0].title == "Bay")
        entry.see(Discovery(key: key, reference: reference, document: 3))
        #expect(entry.sightings.map(\.document) == [2, 3] && entry.largestSize == RenditionSize(role: .full, width: 800))
    }

    @Test("captions title the image before them; generators' stock words and file names are no titles")
    func captionsAndStockWords() throws {
        let page = try scan(
            """
            <div id="image"><img src="lake_small.jpg" alt="Image lake.jpg"></div>
            <div class="image_comment">Alpine Lake at Dawn</div>
            <div class="original_link"><a href="lake.jpg">Original picture</a></div>
            <div class="image_caption_tech"><ul><li>lake.jpg</li></ul></div>
            <a href="fern.jpg" title="Click to see full size fern.jpg "><img src="scaled_fern.jpg" alt="Scaled image fern.jpg "></a>
            <p class="caption">&nbsp; Fern Spiral &nbsp;(2/8)&nbsp;</p>
            <a href="next.html"><img src="maple_thumb.jpg" alt="maple thumb"></a>
            """)
        let titles = Dictionary(page.images.map { ($0.url, $0.title ?? "-") }, uniquingKeysWith: { first, _ in first })
        #expect(titles["lake_small.jpg"] == "Alpine Lake at Dawn")
        #expect(titles["lake.jpg"] == "-")
        #expect(titles["scaled_fern.jpg"] == "Fern Spiral")
        #expect(titles["fern.jpg"] == "Fern Spiral")
        #expect(titles["maple_thumb.jpg"] == "-")
        for stock in ["Original picture", "Scaled image fern.jpg", "Click to see full size fern.jpg", "maple thumb", "Download"] {
            #expect(PageReading.label(stock) == nil, "\(stock)")
        }
        for title in ["Full Moon over the Bay", "Sunset", "Old Bridge", "The Baker"] {
            #expect(PageReading.label(title) == title)
        }
        #expect(PageReading.removingPositions("Sunset (2/8)") == "Sunset  ")
        #expect(PageReading.removingPositions("( 12 / 30 ) Bay (c) 2024 (1/x)") == "  Bay (c) 2024 (1/x)")
        #expect(PageReading.isStockText("Click to see full size: fern.jpg!"))
        // With no title at all, the site labels a photo by its file name without the extension.
        #expect(MirrorPublisher.fileTitle("http://h/g/a/circuit%20board.jpg?size=2") == "circuit board")
        #expect(MirrorPublisher.fileTitle("http://h/g/image?id=3") == "image")
    }

    @Test("an image alone on most pages, or marked as a spinner or icon, is decoration; a repeated thumbnail is not")
    func decorations() throws {
        var catalog: [CanonicalURL: CatalogEntry] = [:]
        func see(_ url: String, _ document: Int, _ photo: Int, decorative: Bool = false, fromData: Bool = false) throws {
            let key = try #require(CanonicalURL("http://h/" + url))
            var reference = ImageReference(url: url, photo: photo)
            reference.isDecoration = decorative
            reference.isFromDataFile = fromData
            let discovery = Discovery(key: key, reference: reference, document: document)
            let entry = catalog[key] ?? CatalogEntry(key: key, reference: reference, verdict: .accepted)
            entry.see(discovery)
            catalog[key] = entry
        }
        var summary = CrawlSummary()
        for document in 0..<4 {
            let url = try #require(CanonicalURL("http://h/\(document).html"))
            summary.documents[document] = .init(url: url, kind: .page)
            summary.pageNumbers[url] = document
            try see("arrow.png", document, 0)
            try see("photo\(document).jpg", document, 1)
            // A strip of thumbnails, each linking to its per-photo page, on every page.
            try see("thumb.jpg", document, 2)
            summary.photoLinks.append(.init(document: document, photo: 2, page: try #require(CanonicalURL("http://h/3.html"))))
            // A listing every page links: its photos count as found on each page, and are photos.
            try see("listed.jpg", document, 5, fromData: true)
        }
        try see("spinner.gif", 1, 3, decorative: true)
        let groups = PhotoGroups(entries: catalog.values, summary: summary)
        #expect(groups.decorations.map(\.string).sorted() == ["http://h/arrow.png", "http://h/spinner.gif"])
        // The arrow joins no photo even though every page shows it.
        #expect(groups.photo(of: try #require(CanonicalURL("http://h/arrow.png")))?.keys.count == 1)

        let upper = try scan(#"<IMG SRC="/a.jpg" Alt="Bay" CLASS="Photo-Icon">"#)
        #expect(upper.images.map(\.url) == ["/a.jpg"])
        #expect(upper.images.first?.title == "Bay" && upper.images.first?.isDecoration == true)
        let marked = try scan(#"<img src="/load.gif" class="lazy-spinner"><img src="/a.jpg" class="photo">"#)
        #expect(marked.images.map(\.isDecoration) == [true, false])
    }

    @Test("the site's name is what every album title shares after one separator; albums are titled without it")
    func siteName() throws {
        let name = try #require(
            SiteName(titles: [
                "Nature Walks - Test Photo Gallery", "People - Test Photo Gallery", "Deep Space - Test Photo Gallery",
            ]))
        #expect(name.name == "Test Photo Gallery")
        #expect(name.strip("Nature Walks - Test Photo Gallery") == "Nature Walks")
        #expect(name.strip("Unrelated") == "Unrelated")
        #expect(name.isIn("sigal-source - Test Photo Gallery"))
        let prefixed = try #require(SiteName(titles: ["Zenphoto Demo | Science", "Zenphoto Demo | Deep Space"]))
        #expect(prefixed.name == "Zenphoto Demo")
        #expect(prefixed.strip("Zenphoto Demo | Science") == "Science")
        #expect(SiteName(titles: ["Nature - A", "People - B"]) == nil)
        #expect(SiteName(titles: ["Only One - Site"]) == nil)
        #expect(SiteName(titles: ["Nature", "People"]) == nil)
        // One album: the start page's title is the name when the album's title carries it.
        let single = try #require(SiteName(titles: ["Deep Space – Science Portfolio"], siteTitle: "Science Portfolio"))
        #expect(single.strip("Deep Space – Science Portfolio") == "Deep Space")
        #expect(SiteName(titles: ["Deep Space"], siteTitle: "Science Portfolio") == nil)
    }

    @Test("a key shared by many different photos is a placeholder: it joins nothing")
    func placeholderKeys() throws {
        var catalog: [CanonicalURL: CatalogEntry] = [:]
        for index in 0..<3 {
            for url in ["blank.gif", "photo\(index).jpg"] {
                let key = try #require(CanonicalURL("http://h/" + url))
                let discovery = Discovery(key: key, reference: ImageReference(url: url, photo: index), document: 0)
                let entry = catalog[key] ?? CatalogEntry(key: key, reference: discovery.reference, verdict: .accepted)
                entry.see(discovery)
                catalog[key] = entry
            }
        }
        var summary = CrawlSummary()
        summary.documents[0] = .init(url: try #require(CanonicalURL("http://h/")), kind: .page)
        let groups = PhotoGroups(entries: catalog.values, summary: summary)
        #expect(groups.photos.count == 4)
        #expect(groups.photos.allSatisfy { $0.keys.count == 1 })
    }

    @Test("the site: one card per photo, smallest shown and largest linked, albums nested by folder")
    func sitePlan() throws {
        func item(_ key: String, bytes: Int64, album: String?, variantOf: String? = nil, title: String? = nil) -> Manifest.Item {
            Manifest.Item(
                key: "http://h/g/" + key, path: "images/\(key.replacingOccurrences(of: "/", with: "-"))", sha256: "00",
                bytes: bytes, contentType: "image/jpeg", title: title, album: album.map { "http://h/g/" + $0 },
                variantOf: variantOf.map { "http://h/g/" + $0 }, firstSeen: Date(), lastChecked: Date())
        }
        let manifest = Manifest(
            source: "http://h/g/", title: "My Gallery", generatedAt: Date(),
            items: [
                item("a/1.jpg", bytes: 900, album: "a/", title: "One"),
                item("a/thumb_1.jpg", bytes: 10, album: "a/", variantOf: "a/1.jpg", title: "One"),
                item("a/b/2.jpg", bytes: 800, album: "a/b/"),
                item("root.jpg", bytes: 50, album: ""),
                item("more.jpg", bytes: 50, album: "?page=2"),
            ], rejected: [],
            albums: [
                .init(url: "http://h/g/", title: "My Gallery"), .init(url: "http://h/g/?page=2", title: "My Gallery, 2"),
                .init(url: "http://h/g/a/", title: "Album A"), .init(url: "http://h/g/a/b/", title: "Album B"),
            ])
        let site = SitePlan(manifest: manifest, itemsPerPage: 10)
        #expect(site.siteTitle == "My Gallery")
        #expect(site.albums.map(\.title) == ["My Gallery", "Album A", "Album B"])
        #expect(site.albums.map(\.fileBase) == ["index", "albums/a", "albums/a-b"])
        #expect(site.albums.map(\.parent) == [nil, 0, 1])
        #expect(site.albums[0].photos.map(\.original.key) == ["http://h/g/root.jpg", "http://h/g/more.jpg"])
        let one = try #require(site.albums[1].photos.first)
        #expect(one.display.key == "http://h/g/a/thumb_1.jpg" && one.original.key == "http://h/g/a/1.jpg")
        #expect(site.photoCount == 4)
        let publisher = MirrorPublisher(
            layout: MirrorLayout(root: URL(fileURLWithPath: "/tmp/unused")), template: try SiteTemplate.embedded(),
            itemsPerPage: 10)
        let pages = publisher.render(manifest)
        #expect(pages.count == 3)
        #expect(pages[0].contains("href=\"albums/a.html\"") && pages[0].contains("href=\"albums/a-b.html\""))
        #expect(pages[1].contains("src=\"../images/a-thumb_1.jpg\"") && pages[1].contains("href=\"../images/a-1.jpg\""))
        #expect(pages[1].contains("href=\"a-b.html\"") && pages[1].contains("href=\"../index.html\""))
        #expect(!pages[1].contains("images/a-1.jpg\" alt"))  // the original is linked, not shown
    }
}
