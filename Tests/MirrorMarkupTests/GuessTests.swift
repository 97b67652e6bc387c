import Foundation
import Testing

@testable import MirrorMarkup

/// Which references a document shows as images and which it only suggests (`isGuess`), and
/// what an API's JSON gives (SPEC "Shown and guessed").
@Suite("Shown and guessed references")
struct GuessTests {
    @Test("a page shows img, srcset and lazy sources; links, data-* values, og:image and styles are guesses")
    func pageReferences() throws {
        let html = """
            <html><head><meta property="og:image" content="/card.jpg"></head><body>
            <a href="/full.jpg"><img src="/thumb.jpg" srcset="/thumb-2x.jpg 2x" data-full="/original.jpg"></a>
            <img data-src="/lazy.jpg" src="/spinner.gif">
            <div style="background-image: url(/hero.jpg)"></div>
            <a href="/wiki/File:Aqua.jpg">Aqua</a>
            <script>var photos = [{"image": "/script.jpg", "title": "From a script"}];</script>
            </body></html>
            """
        var scan = try HTMLScanner.scan(Array(html.utf8), url: "http://h/", encoding: "UTF-8")
        scan.readScripts()
        let guess = Dictionary(scan.images.map { ($0.url, $0.isGuess) }) { first, _ in first }
        for shown in ["/thumb.jpg", "/thumb-2x.jpg", "/lazy.jpg", "/spinner.gif"] {
            #expect(guess[shown] == false, "\(shown)")
        }
        for guessed in ["/card.jpg", "/full.jpg", "/original.jpg", "/hero.jpg", "/wiki/File:Aqua.jpg", "/script.jpg"] {
            #expect(guess[guessed] == true, "\(guessed)")
        }
    }

    @Test("an API's JSON gives only image URLs that stand on their own, as guesses")
    func apiDocument() throws {
        // A WordPress REST answer: links to pages, comments and other API documents under
        // image-like names, and file names relative to an uploads folder it does not name.
        let post = """
            {"id": 12, "link": "http://h/2024/05/12/close-ups/", "guid": {"rendered": "http://h/?p=12"},
             "title": {"rendered": "A week of close-ups"},
             "media_details": {"file": "2024/05/storm.jpg", "sizes": {"thumbnail": {"file": "storm-150x150.jpg",
               "source_url": "http://h/wp-content/uploads/2024/05/storm-150x150.jpg"}}},
             "source_url": "/wp-content/uploads/2024/05/storm.jpg",
             "_links": {"self": [{"href": "http://h/wp-json/wp/v2/posts/12"}],
                        "replies": [{"href": "http://h/wp-json/wp/v2/comments?post=12"}],
                        "version-history": [{"href": "http://h/wp-json/wp/v2/posts/12/revisions"}]}}
            """
        let references = try JSONReader.read(Array(post.utf8))
        #expect(
            Set(references.map(\.url)) == [
                "http://h/wp-content/uploads/2024/05/storm-150x150.jpg", "/wp-content/uploads/2024/05/storm.jpg",
            ])
        #expect(references.allSatisfy { $0.isGuess })
        #expect(references.allSatisfy { $0.title == nil || $0.title != "A week of close-ups" })
        // A listing of images keeps its image fields, named URLs without an extension included.
        let listing = try JSONReader.read(Array(#"[{"name": "Smiling Face", "url": "/gallery/image?3"}]"#.utf8))
        #expect(listing.map(\.url) == ["/gallery/image?3"])
        #expect(listing.allSatisfy { !$0.isGuess })
    }

    @Test("a document is an API's when its records carry hypermedia links or it is an oEmbed answer")
    func apiDetection() throws {
        func isAPI(_ json: String) throws -> Bool {
            JSONReader.isAPIDocument(try JSONParser(maxDepth: 16).parse(Array(json.utf8)))
        }
        #expect(try isAPI(#"{"id": 1, "_links": {}}"#))
        #expect(try isAPI(#"[{"id": 1, "_embedded": {}}, {"id": 2}]"#))
        #expect(try isAPI(#"{"version": "1.0", "type": "rich", "html": "<iframe>"}"#))
        #expect(!(try isAPI(#"[{"url": "a.jpg"}]"#)))
        #expect(!(try isAPI(#"{"version": "https://jsonfeed.org/version/1.1", "items": []}"#)))
    }
}

/// Labels that are no title, captions that belong to another part of the page, and the site's
/// furniture (issue 36's CMS galleries).
@Suite("What titles a photo, and what is furniture")
struct PageFurnitureTests {
    @Test("sizes and dates are no title")
    func sizesAndDates() {
        for text in [
            "2,560 × 1,600 pixels", "800x600", "320 × 200 px", "04:19, 28 November 2026", "2024-05-12",
            "May 2, 2024", "Thumbnail for version as of 04:19, 28 November 2026",
        ] {
            #expect(PageReading.label(text) == nil, "\(text)")
        }
        for text in ["photo 699", "May", "Room 101", "12.50", "Before the storm", "Ten past ten", "A 2x4 plank"] {
            #expect(PageReading.label(text) != nil, "\(text)")
        }
    }

    @Test("a caption titles the image beside it, never one far back up the page")
    func captionsNearby() throws {
        let html = """
            <main><figure class="wp-block-gallery"><figure><a href="a.jpg"><img src="a-1024.jpg" alt="Drop"></a>
            <figcaption>A single drop</figcaption></figure></figure>
            <p>Posted May 2</p><div class="wp-block-comments"><h2>Comments</h2><div id="respond" class="comment-respond">
            <h3 id="reply-title" class="comment-reply-title">Leave a Reply <small>Cancel reply</small></h3></div></div>
            <div class="post"><img src="b.jpg" alt=""><p>Some text.</p><div><div><span class="photo-caption">Far below</span>
            </div></div></div>
            <ul><li class="gallerybox"><div class="thumb"><a href="/wiki/File:C.jpg"><img src="c-120.jpg" alt="c"></a></div>
            <div class="gallerytext"><p>Water at dawn</p></div></li></ul>
            <table><tr><td><a href="d.jpg"><img src="d-800.jpg" alt="Scaled image d.jpg"></a></td></tr></table>
            <p class="caption">Alpine Lake at Dawn (1/8)</p></main>
            """
        let scan = try HTMLScanner.scan(Array(html.utf8), url: "http://h/", encoding: "UTF-8")
        let titles = Dictionary(scan.images.map { ($0.url, $0.title) }) { first, _ in first }
        #expect(titles["a-1024.jpg"] == "A single drop")
        #expect(titles["b.jpg"] == .some(nil), "\(String(describing: titles["b.jpg"]))")
        #expect(titles["c-120.jpg"] == "Water at dawn")
        #expect(titles["d-800.jpg"] == "Alpine Lake at Dawn")
    }

    @Test("images in the site's header, footer, sidebar or widgets are furniture, unless they are content")
    func furniture() throws {
        let html = """
            <header class="wp-block-template-part"><a href="/"><img class="wp-image-3" src="/logo.png"></a></header>
            <main><article><header class="entry-header"><img src="/featured.jpg" alt="Featured"></header>
            <img src="/content.jpg" alt="Content"></article></main>
            <aside><img src="/widget.png"></aside>
            <div id="footer" role="contentinfo"><ul id="footer-icons"><li id="footer-poweredbyico">
            <a href="https://www.mediawiki.org/"><img src="/poweredby.png" srcset="/poweredby-2x.png 2x"></a></li></ul>
            <a href="/big.jpg"><img src="/footer-photo.jpg" alt="A photo in the footer"></a></div>
            """
        let scan = try HTMLScanner.scan(Array(html.utf8), url: "http://h/", encoding: "UTF-8")
        let decoration = Dictionary(scan.images.map { ($0.url, $0.isDecoration) }) { first, _ in first }
        for furniture in ["/logo.png", "/widget.png", "/poweredby.png", "/poweredby-2x.png"] {
            #expect(decoration[furniture] == true, "\(furniture)")
        }
        for content in ["/featured.jpg", "/content.jpg", "/footer-photo.jpg", "/big.jpg"] {
            #expect(decoration[content] == false, "\(content)")
        }
    }
}
