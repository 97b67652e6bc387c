import Foundation
import Testing

@testable import CatalogMirror

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
