import Foundation
import Testing

@testable import MirrorMarkup

/// Issue 28: a page is read as a stream of libxml2 SAX events (`PageStream`), with no tree, and
/// gives the same scan as a reading of the whole tree.
@Suite("Pages read as a stream, without a tree")
struct PageStreamTests {
    func readings(_ html: String) throws -> (streamed: PageStream.Reading, whole: PageStream.Reading) {
        let bytes = Array(html.utf8)
        return (
            try PageStream.read(bytes, url: "http://h/g/", encoding: nil, keepingWholePage: false),
            try PageStream.read(bytes, url: "http://h/g/", encoding: nil, keepingWholePage: true)
        )
    }

    /// Markup where reading an element looks past it: the link around an image, a figure's
    /// caption after its image, a picture's sources, captions by class, link text, titles,
    /// scripts, skipped styles and templates, and libxml2's recovery from broken nesting.
    static let pages = [
        #"<a href="big/a.jpg" title="Aqua"><span><img src="a.jpg" alt="a.jpg"></span></a><a href="b.jpg">Bee</a>"#,
        #"<figure data-price="12"><img src="f.jpg" alt="Fern alt" data-w="1"><figcaption>Fern <b>leaf</b></figcaption></figure>"#,
        #"<figure><div><div><div><div><img src="deep.jpg"></div></div></div></div><figcaption>Too deep?</figcaption></figure>"#,
        #"<picture><source srcset="p.avif 1x" type="image/avif"><source srcset="p.webp 1x"><img src="p.jpg"></picture>"#,
        #"<img src="c.jpg"><p class="caption">Cherry (2/8)</p><p class="caption">Second caption</p>"#,
        #"<img src="d.jpg"><div class="image_comment">Date <em>tree</em><div>block</div></div>"#,
        #"<div class="gallery-captions"><img src="e.jpg"><span class="caption">Elder</span></div>"#,
        #"<title>Site &amp; name</title><h1>The <i>album</i></h1><script>var photos = ["s1.jpg", "s2.jpg"];</script>"#,
        #"<style>.x { background: url(no.jpg) }</style><template><img src="no2.jpg"></template><div style="background-image: url('bg.jpg')">x</div>"#,
        #"<a href="x.html"><img src="one.jpg"><img src="two.jpg"></a><a href="y.jpg"><a href="z.jpg">Zed</a>"#,
        #"<ul><li><a href="1.html"><img src="1.jpg"><p class="caption">One</p></a><li><a href="2.html"><img src="2.jpg" class="icon"></ul>"#,
        #"<video poster="v.jpg"><source src="v.mp4"></video><area href="map.jpg" title="Map"><iframe src="frame.html"></iframe>"#,
        #"<meta property="og:image" content="og.jpg"><link rel="image_src" href="ls.jpg"><link rel="next" href="p2.html"><base href="/b/">"#,
        #"<img data-src="real.jpg" src="spinner.gif"><img data-src="real2.jpg" src="spinner.gif"><noscript><img src="real.jpg"></noscript>"#,
        "<table><tr><td><a href=\"t.jpg\"><img src=\"tt.jpg\"></td></tr></table><p>after <a href=\"u.jpg\">you</a>",
    ]

    @Test("each page gives the same scan streamed as read whole", arguments: pages)
    func sameAsWhole(html: String) throws {
        let (streamed, whole) = try readings(html)
        #expect(streamed.scan == whole.scan)
        #expect(!streamed.scan.images.isEmpty || !streamed.scan.links.isEmpty || !streamed.scan.scripts.isEmpty)
    }

    @Test("a figure's caption after its image, and a picture's sources, belong to the image")
    func lookaheadStillWorks() throws {
        let scan = try readings(Self.pages[1] + Self.pages[3]).streamed.scan
        let fern = try #require(scan.images.first { $0.url == "f.jpg" })
        #expect(fern.title == "Fern leaf")
        #expect(fern.metadata["price"] == "12")
        let picture = scan.images.filter { ["p.avif", "p.webp", "p.jpg"].contains($0.url) }
        #expect(picture.count == 3)
        #expect(Set(picture.map(\.photo)).count == 1)
    }

    @Test("a page of 20,000 photos is read holding a few elements at a time, where its tree held them all")
    func boundedElements() throws {
        var html = "<!doctype html><html><head><title>Big</title></head><body><ul class=\"grid\">"
        for index in 0..<20_000 {
            html += #"<li><a href="p/\#(index).html"><img src="t/\#(index).jpg" alt="Photo \#(index)"></a></li>"#
        }
        html += "</ul></body></html>"
        let (streamed, whole) = try readings(html)
        #expect(streamed.scan == whole.scan)
        #expect(streamed.scan.images.count == 20_000)
        #expect(streamed.peakElements <= 10)
        #expect(whole.peakElements > 60_000)
    }

    @Test("an empty page, a page of text and a page in Latin-1 are read")
    func oddPages() throws {
        #expect(try HTMLScanner.scan([], url: "http://h/").images.isEmpty)
        #expect(try HTMLScanner.scan(Array("   \n".utf8), url: "http://h/").images.isEmpty)
        let latin1: [UInt8] =
            Array(#"<img src="caf"#.utf8) + [0xE9] + Array(#".jpg" alt="Caf"#.utf8) + [0xE9] + Array(#" au lait">"#.utf8)
        let scan = try HTMLScanner.scan(latin1, url: "http://h/", encoding: "ISO-8859-1")
        #expect(scan.images.map(\.url) == ["café.jpg"])
        #expect(scan.images.first?.title == "Café au lait")
    }

    @Test("a script longer than the page's script budget is read up to it, with a warning, never with a gap")
    func longScript() throws {
        // A budget of 4 KB rather than the real 32 MB: the same code, without holding a
        // hundred megabytes in a process whose peak other tests measure.
        let budget = 4096
        let head = #"var photos = ["first.jpg"];"#
        // One long comment: cheap for the tokenizer, so only the cut can make the reading incomplete.
        let filler = "/*" + String(repeating: "x", count: 3 * budget) + "*/"
        let html = "<script>" + head + filler + #"var late = ["late.jpg"];"# + "</script><img src=\"after.jpg\">"
        var scan = try PageStream.read(
            Array(html.utf8), url: "http://h/", encoding: nil, keepingWholePage: false, scriptBudget: budget
        ).scan
        scan.readScripts()
        #expect(scan.scriptsIncomplete)
        let script = try #require(scan.scripts.first)
        #expect(script.hasPrefix(head + "/*xxx"))
        #expect(script.utf8.count <= budget)
        #expect(!script.includes("late.jpg"))
        #expect(scan.images.map(\.url).contains("first.jpg"))
        #expect(scan.images.map(\.url).contains("after.jpg"))
    }
}
