import Foundation
import Testing

@testable import MirrorCatalog
@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorMarkup

@Suite("Photos tied together from their renditions")
struct PhotoGroupsTests {
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

    @Test("the structure proposes, the pixels decide: a pair that differs is two photos, and never chains others")
    func pixelsDecide() throws {
        // Pages 0–2 are photo pages that each show their photo (display, linking to the
        // original) and, in the same local photo, the next photo's display image, as a preload
        // script once did on igal2 and jigl: every page proposes its photo and the next as one.
        var catalog: [CanonicalURL: CatalogEntry] = [:]
        func key(_ path: String) throws -> CanonicalURL { try #require(CanonicalURL("http://h/g/" + path)) }
        func see(_ url: String, _ document: Int, _ photo: Int, _ role: RenditionSize.Role) throws {
            let discovery = Discovery(
                key: try key(url), reference: ImageReference(url: url, photo: photo, size: .init(role: role)),
                document: document)
            let entry =
                catalog[discovery.key] ?? CatalogEntry(key: discovery.key, reference: discovery.reference, verdict: .accepted)
            entry.see(discovery)
            catalog[discovery.key] = entry
        }
        var summary = CrawlSummary()
        for page in 0..<3 {
            try see("slide_\(page).jpg", page, 0, .display)
            try see("\(page).jpg", page, 0, .full)
            try see("slide_\(page + 1).jpg", page, 0, .thumbnail)
            let url = try key("\(page).html")
            summary.documents[page] = .init(url: url, kind: .page)
            summary.pageNumbers[url] = page
        }
        func photos(_ groups: PhotoGroups) -> Set<Set<String>> {
            Set(groups.photos.map { Set($0.keys.map { String($0.string.dropFirst("http://h/g/".count)) }) })
        }
        // Without pixels, every proposal joins: one chain, and every pair waits for a verdict.
        let proposed = PhotoGroups(entries: catalog.values, summary: summary)
        #expect(photos(proposed).count == 1)
        // Each pair of a page's three images.
        #expect(proposed.unjudged.count == 9)
        // The pixels: each page's display matches its original; the next photo matches neither.
        var evidence = RenditionEvidence()
        for pair in proposed.unjudged {
            let names = [pair.first, pair.second].map { $0.string.dropFirst("http://h/g/".count) }
            let digits = names.map { $0.filter(\.isNumber) }
            evidence.record(digits[0] == digits[1] ? .match : .differ, for: pair.first, pair.second)
        }
        let decided = PhotoGroups(entries: catalog.values, summary: summary, evidence: evidence)
        #expect(
            photos(decided) == [
                ["slide_0.jpg", "0.jpg"], ["slide_1.jpg", "1.jpg"], ["slide_2.jpg", "2.jpg"], ["slide_3.jpg"],
            ])
        #expect(decided.unjudged.isEmpty)
        #expect(evidence.counts.matched == 3 && evidence.counts.differed == 6)
        // --variants largest discards only what the pixels confirmed: the displays matched their
        // originals; the next photo's image, alone, is the largest of its own photo.
        let choice = decided.largestRenditions()
        #expect(
            Set(choice.smaller.map(\.key.string))
                == Set(["slide_0.jpg", "slide_1.jpg", "slide_2.jpg"].map { "http://h/g/" + $0 }))
        #expect(Set(choice.largest.map(\.key.string)).contains("http://h/g/slide_3.jpg"))

        // A pair that could not be compared joins as proposed, and is kept by --variants largest.
        var unknown = RenditionEvidence()
        for pair in proposed.unjudged { unknown.record(.unknown, for: pair.first, pair.second) }
        let undecided = PhotoGroups(entries: catalog.values, summary: summary, evidence: unknown)
        #expect(photos(undecided).count == 1)
        #expect(undecided.largestRenditions().smaller.isEmpty)
    }

    @Test("copies of an original the catalog does not hold propose each other; their pixels decide")
    func siblingCopies() throws {
        var catalog: [CanonicalURL: CatalogEntry] = [:]
        var summary = CrawlSummary()
        for (document, url) in [(0, "a-x900.jpg"), (1, "a-x2000.jpg"), (1, "garden-x900.jpg"), (2, "garden-x2000.jpg")] {
            let key = try #require(CanonicalURL("http://h/" + url))
            let discovery = Discovery(key: key, reference: ImageReference(url: url, photo: 0), document: document)
            let entry = catalog[key] ?? CatalogEntry(key: key, reference: discovery.reference, verdict: .accepted)
            entry.see(discovery)
            catalog[key] = entry
            summary.documents[document] = .init(url: try #require(CanonicalURL("http://h/\(document).html")), kind: .page)
        }
        let proposed = PhotoGroups(entries: catalog.values, summary: summary)
        let pairs = Set(proposed.unjudged.map { "\($0.first.path) \($0.second.path)" })
        #expect(pairs.contains("/a-x2000.jpg /a-x900.jpg") && pairs.contains("/garden-x2000.jpg /garden-x900.jpg"), "\(pairs)")
        var evidence = RenditionEvidence()
        for pair in proposed.unjudged {
            // The two "a" copies are one photo; the two gardens are different photographs.
            evidence.record(
                pair.first.path.hasPrefix("/a-") && pair.second.path.hasPrefix("/a-") ? .match : .differ, for: pair.first,
                pair.second)
        }
        let groups = PhotoGroups(entries: catalog.values, summary: summary, evidence: evidence)
        let photos = Set(groups.photos.map { Set($0.keys.map(\.path)) })
        #expect(photos == [["/a-x900.jpg", "/a-x2000.jpg"], ["/garden-x900.jpg"], ["/garden-x2000.jpg"]], "\(photos)")
    }

    @Test("igal2's slides each preload the next photo from a script: every slide's photo stays its own")
    func preloadedNextSlide() throws {
        // An index of thumbnails linking to slides 1.html...3.html, as igal2 writes them; each
        // slide shows its photo and preloads the next one (issue 45: all of them chained into
        // one photo, the preload being taken for a second rendition of the slide's photo).
        let names = ["aqua", "by%2Dthe%2Dwater", "fern"]
        var pages = [
            (
                "",
                names.enumerated().map { index, name in
                    #"<TD><A href="\#(index + 1).html"><IMG src=".thumb_\#(name).jpg" width=100 height=75 alt="" border=0></A></TD>"#
                }.joined()
            )
        ]
        for (index, name) in names.enumerated() {
            let next = names[(index + 1) % names.count]
            pages.append(
                (
                    "\(index + 1).html",
                    """
                    <HTML><HEAD><TITLE>\(name)</TITLE><SCRIPT type="text/javascript" language="javascript" defer>
                    if (document.images) { Image1 = new Image(); Image1.src = "\(next).jpg"; }
                    </SCRIPT></HEAD><BODY><P class="center"><A href="index.html">Index</A>
                    <A href="\((index + 2) % 3 + 1).html" title="">&lt;&lt; Prev</A> <A href="\((index + 1) % 3 + 1).html" title="">Next &gt;&gt;</A></P>
                    <DIV class="center"><TABLE bgcolor="#ffffff" cellspacing=0 cellpadding=4><TR><TD class="slide">
                    <IMG src="\(name).jpg" width=640 height=480 alt="\(name)" border=0></TD></TR></TABLE>
                    <P class="center">&nbsp;&nbsp;&nbsp;(\(index + 1)/3)</P></DIV></BODY></HTML>
                    """
                ))
        }
        var catalog: [CanonicalURL: CatalogEntry] = [:]
        var summary = CrawlSummary()
        for (number, (path, html)) in pages.enumerated() {
            let base = try #require(CanonicalURL("http://h/g/" + path))
            summary.documents[number] = .init(url: base, kind: .page)
            summary.pageNumbers[base] = number
            let scan = try HTMLScanner.scan(Array(html.utf8), url: base.string)
            for reference in scan.images {
                let key = try #require(CanonicalURL(reference.url, relativeTo: base))
                let discovery = Discovery(key: key, reference: reference, document: number)
                let entry = catalog[key] ?? CatalogEntry(key: key, reference: reference, verdict: .accepted)
                entry.see(discovery)
                catalog[key] = entry
            }
            for link in scan.links {
                guard let photo = link.photo, let target = CanonicalURL(link.href, relativeTo: base) else { continue }
                summary.photoLinks.append(.init(document: number, photo: photo, page: target))
            }
        }
        let groups = PhotoGroups(entries: catalog.values, summary: summary)
        let photos = groups.photos.map { Set($0.keys.map { String($0.string.dropFirst("http://h/g/".count)) }) }
        #expect(
            Set(photos) == [
                [".thumb_aqua.jpg", "aqua.jpg"], [".thumb_by-the-water.jpg", "by-the-water.jpg"],
                [".thumb_fern.jpg", "fern.jpg"],
            ], "\(photos)")
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
    }

    @Test("a key shared by many different photos is a placeholder: the pixels split it off, and past 64 photos it joins nothing")
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
        // Proposed with each photo; the pixels differ: four photos of one key each.
        let proposed = PhotoGroups(entries: catalog.values, summary: summary)
        #expect(proposed.unjudged.count == 3)
        var evidence = RenditionEvidence()
        for pair in proposed.unjudged { evidence.record(.differ, for: pair.first, pair.second) }
        let groups = PhotoGroups(entries: catalog.values, summary: summary, evidence: evidence)
        #expect(groups.photos.count == 4)
        #expect(groups.photos.allSatisfy { $0.keys.count == 1 })
        // Shown with more than 64 different photos, it is compared with none and joins none.
        for index in 3..<(PhotoGroups.placeholderLocals + 1) {
            for url in ["blank.gif", "photo\(index).jpg"] {
                let key = try #require(CanonicalURL("http://h/" + url))
                let discovery = Discovery(key: key, reference: ImageReference(url: url, photo: index), document: 0)
                let entry = catalog[key] ?? CatalogEntry(key: key, reference: discovery.reference, verdict: .accepted)
                entry.see(discovery)
                catalog[key] = entry
            }
        }
        let many = PhotoGroups(entries: catalog.values, summary: summary)
        #expect(many.unjudged.isEmpty)
        #expect(many.photos.count == PhotoGroups.placeholderLocals + 2)
        #expect(many.photos.allSatisfy { $0.keys.count == 1 })
    }
}
