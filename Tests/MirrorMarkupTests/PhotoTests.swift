import Foundation
import Testing

@testable import MirrorMarkup

@Suite("Photos: renditions read from pages")
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
    }

    @Test("a label that only gives a date or a time is no title, in ASCII or not; one with other words is")
    func dateLabels() {
        for date in [
            "04:19, 28 November 2026", "2024-05-12", "May 2, 2024", "Thumbnail for version as of 04:19, 28 November 2026",
            "2024-05-12 (UTC+01:00)", "28\u{A0}November\u{A0}2026, 04:19", "Thumbnail 12:30", "Photo 2024-05-12",
            "SEPT 3, 2024", "at 9:05 pm",
        ] {
            #expect(PageReading.isDate(date), "\(date)")
        }
        for title in [
            "Sunset", "Photo 12", "Dune 2024", "L'été 2024", "Été 2024", "Bay & Bridge, May 2024", "Room 101: a view", "",
            "٢٠٢٤-٠٥-١٢ Cairo", "Image 900", "IMG_1234", "2024", "12-05", "Photo 12 of 30 at noon", "Resolutions 2024",
        ] {
            #expect(!PageReading.isDate(title), "\(title)")
        }
        for size in ["2,560 × 1,600 pixels", "800x600", "320 × 200 px", "800X600"] {
            #expect(PageReading.isDimensions(size), "\(size)")
        }
        for title in ["Image 900", "Box", "x", "Fox 3", "800 m", ""] {
            #expect(!PageReading.isDimensions(title), "\(title)")
        }
    }

    @Test("an image whose class marks it as an icon or a spinner is read as decoration, in any letter case")
    func decorationMarks() throws {
        let upper = try scan(#"<IMG SRC="/a.jpg" Alt="Bay" CLASS="Photo-Icon">"#)
        #expect(upper.images.map(\.url) == ["/a.jpg"])
        #expect(upper.images.first?.title == "Bay" && upper.images.first?.isDecoration == true)
        let marked = try scan(#"<img src="/load.gif" class="lazy-spinner"><img src="/a.jpg" class="photo">"#)
        #expect(marked.images.map(\.isDecoration) == [true, false])
    }
}
