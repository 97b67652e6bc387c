import Foundation
import Testing

@testable import MirrorMarkup

/// Issue 45: what a photo's own page says of its photo (SPEC "Titles and albums"), what a script
/// only preloads, CSS backgrounds in any attribute ("Image keys"), and the catalog's own text
/// kept as written. The pages are igal2's and jigl's, generated from three JPEGs.
@Suite("Photo pages: nearest text, preloads, backgrounds, catalog text")
struct PhotoPageTextTests {
    /// igal2 2.2's slide `1.html` (`igal2 -c`, `aqua.jpg ---- Water drop` in `.captions`).
    static let igal2Slide = """
        <!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">
        <HTML>
          <HEAD>
            <META http-equiv="Content-Type" content="text/html; charset=UTF-8">
            <META name="generator" content="igal2">
            <TITLE>aqua</TITLE>
            <LINK rel="stylesheet" type="text/css" href="igal2.css">
            <LINK rel="next" href="2.html" title="">
            <SCRIPT type="text/javascript" language="javascript" defer>
        if (document.images)    {
        Image1          = new Image();
        Image1.src      = "by%2Dthe%2Dwater.jpg";
        }
        function toggle(obj) {
        var el = document.getElementById(obj);
        el.style.display = (el.style.display != 'block' ? 'block' : 'none' );
        }
            </SCRIPT>
          </HEAD>
          <BODY>
            <P class="center">
              <A href="index.html">Index</A> &nbsp; &nbsp; &nbsp;
              <A href="3.html" title="">&lt;&lt; Prev</A>&nbsp; &nbsp;
              <A href="2.html" title="">Next &gt;&gt;</A>
            </P>
            <DIV class="center">
              <TABLE bgcolor="#ffffff" cellspacing=0 cellpadding=4>
                <TR>
                  <TD class="slide">
                    <IMG src="aqua.jpg" width=640 height=480 alt="aqua" border=0>
                  </TD>
                </TR>
              </TABLE>

              <P class="center">CAPTION&nbsp;&nbsp;&nbsp;(1/3)</P>
              <!--EXIF-INFO-->
            </DIV>
            <P class="center">
              <A href="index.html">Index</A>&nbsp; &nbsp;
              <A href="2.html" title="">Next &gt;&gt;</A>
            </P>
          </BODY>
        </HTML>
        """

    /// jigl 2.0.1's slide `web/1.html` (`aqua.jpg ---- Water drop` in `gallery.dat`).
    static let jiglSlide = """
        <html>
        <!-- Created with jigl - http://xome.net/projects/jigl -->
        <head>
           <title>Image: aqua.jpg (1/25)</title>
           <!-- Preload the next image here -->
           <script language="javascript">       <!--
               if (document.images)    {
                  Image1          = new Image();
                  Image1.src      = "slides/slide_by-the-water.jpg";
               }       //-->
           </script>
        </head>
        <body bgcolor="#333333" text="#dddddd" link="#95ddff" vlink="#aaaaaa">
        <font face="verdana,sans-serif">
        <center>
        <!-- Top Navigation -->
        <table width=60% border=0 cellspacing=0 cellpadding=0>
            <tr>
                <td align=center>First Slide</td>
                <td align=center><a href="index.html">Index</a> &nbsp; <a href="1_info.html">Info</a></td>
                <td align=center><a href="2.html">Next &gt;&gt;</a></td>
            </tr>
        </table>
        <table cellspacing=0 cellpadding=4>
            <tr><td>&nbsp;</td></tr>
            <tr>
                <!-- Image -->
                <td bgcolor=#ffffff align=center valign=middle>
                    <img src="slides/slide_aqua.jpg" width=640 height=480 border=1>
                </td>
            </tr>
        </table>
        <!-- Bottom Navigation -->
        <table width=60% border=0 cellspacing=0 cellpadding=0>
            <!-- Comment -->
            <tr><td>&nbsp;</td></tr>
            <tr>
                <td colspan=3>
                    <table width=100% bgcolor="#444444" border=1 cellspacing=0 cellpadding=0>
                        <tr><td align=center>CAPTION<br>(1/25)</td></tr>
                    </table>
                </td>
            </tr>
            <tr><td>&nbsp;</td></tr>
            <tr>
                <td align=center>First Slide</td>
                <td align=center><a href="index.html">Index</a> &nbsp; <a href="1_info.html">Info</a></td>
                <td align=center><a href="2.html">Next &gt;&gt;</a></td>
            </tr>
        </table>
        </font>
        </center>
        </body>
        </html>
        """

    /// jigl 2.0.1's index page: three thumbnails, each over a cell of its size.
    static let jiglIndex = """
        <html><head><title>My Pictures</title></head>
        <body><table bgcolor="#444444" border=0 cellspacing=0 cellpadding=4>
            <tr>
                <td valign=middle align=center>
                    <a href="1.html"><img src="thumbs/thumb_aqua.jpg" width=100 height=75 border=0></a></td>
                <td valign=middle align=center>
                    <a href="2.html"><img src="thumbs/thumb_by-the-water.jpg" width=100 height=75 border=0></a></td>
                <td valign=middle align=center>
                    <a href="3.html"><img src="thumbs/thumb_fern.jpg" width=100 height=75 border=0></a></td>
            </tr>
            <tr>
                <td valign=middle align=center>640x480 (5kb)</td>
                <td valign=middle align=center>640x480 (5kb)</td>
                <td valign=middle align=center>Water drop</td>
            </tr>
        </table></body></html>
        """

    func scan(_ html: String) throws -> PageScan {
        try HTMLScanner.scan(Array(html.utf8), url: "http://h/g/1.html")
    }

    /// Both readings of a page (streamed, and whole as one tree) and that they agree.
    func readings(_ html: String) throws -> PageScan {
        let bytes = Array(html.utf8)
        let streamed = try PageStream.read(bytes, url: "http://h/g/", encoding: nil, keepingWholePage: false)
        let whole = try PageStream.read(bytes, url: "http://h/g/", encoding: nil, keepingWholePage: true)
        #expect(streamed.scan == whole.scan)
        return streamed.scan
    }

    // MARK: - Item 1: a script's string is a photo of its own

    @Test("a photo shown in an <img> and the next one a script preloads share no photo number")
    func preloadIsNoRendition() throws {
        let page = try scan(
            """
            <html><head><script>
            if (document.images) { Image1 = new Image(); Image1.src = "b.jpg"; }
            </script></head><body><img src="a.jpg" alt="Aqua"></body></html>
            """)
        let shown = try #require(page.images.first { $0.url == "a.jpg" })
        let preloaded = try #require(page.images.first { $0.url == "b.jpg" })
        #expect(preloaded.isGuess)
        #expect(!shown.isGuess)
        // No number at all: a number makes it one of the page's photos, which a per-photo page
        // joins to the one it shows (`PhotoGroupsTests.preloadedNextSlide`).
        #expect(preloaded.photo == nil)
        #expect(shown.photo != nil)
    }

    @Test("on igal2's and jigl's slides the preloaded next photo is no rendition of the slide's photo")
    func generatorPreloads() throws {
        for (html, shownURL, preloadURL) in [
            (Self.igal2Slide, "aqua.jpg", "by%2Dthe%2Dwater.jpg"),
            (Self.jiglSlide, "slides/slide_aqua.jpg", "slides/slide_by-the-water.jpg"),
        ] {
            let page = try scan(html)
            let shown = try #require(page.images.first { $0.url == shownURL })
            let preloaded = try #require(page.images.first { $0.url == preloadURL }, "\(preloadURL)")
            #expect(preloaded.photo == nil && shown.photo != nil, "\(preloadURL)")
        }
    }

    @Test("a script's record of several renditions stays one photo, numbered apart from the page's")
    func scriptRecordKeepsItsRenditions() throws {
        let page = try scan(
            """
            <img src="a.jpg"><script>var photos = [{"thumb": "t/b.jpg", "image": "b.jpg", "title": "Bee"}];</script>
            """)
        let thumb = try #require(page.images.first { $0.url == "t/b.jpg" })
        let image = try #require(page.images.first { $0.url == "b.jpg" })
        let shown = try #require(page.images.first { $0.url == "a.jpg" })
        #expect(thumb.photo != nil && thumb.photo == image.photo)
        #expect(thumb.photo != shown.photo)
        #expect(image.title == "Bee")
    }

    // MARK: - Item 2: a photo page's caption is the text nearest the photo

    @Test("igal2's slide: the paragraph under the photo is its caption; the alt and title that restate the name are not")
    func igal2Caption() throws {
        let captioned = try readings(Self.igal2Slide.replacingOccurrences(of: "CAPTION", with: "Water drop"))
        let photo = try #require(captioned.images.first { $0.url == "aqua.jpg" })
        #expect(photo.title == "Water drop")
        #expect(photo.titleSource == .caption)
        // No caption: only the counter is left under the photo, and "aqua" restates aqua.jpg.
        let bare = try readings(Self.igal2Slide.replacingOccurrences(of: "CAPTION", with: ""))
        #expect(bare.images.first { $0.url == "aqua.jpg" }?.title == nil)
    }

    @Test("jigl's slide: the table cell under the photo is its caption; 'Image: aqua.jpg (1/25)' is no title")
    func jiglCaption() throws {
        let captioned = try readings(Self.jiglSlide.replacingOccurrences(of: "CAPTION", with: "Water drop"))
        let photo = try #require(captioned.images.first { $0.url == "slides/slide_aqua.jpg" })
        #expect(photo.title == "Water drop")
        #expect(photo.titleSource == .caption)
        #expect(captioned.title == "Image: aqua.jpg (1/25)")
        #expect(PageReading.label(captioned.title) == nil)
        #expect(PageReading.label("Image: aqua.jpg") == nil)
        #expect(PageReading.label("Sunset (2/8)") == "Sunset (2/8)")
        let bare = try readings(Self.jiglSlide.replacingOccurrences(of: "CAPTION", with: ""))
        #expect(bare.images.first { $0.url == "slides/slide_aqua.jpg" }?.title == nil)
    }

    @Test("text in the photo's own cell after it is its caption (jigl's other theme)")
    func ownCellCaption() throws {
        let page = try readings(
            #"<table><tr><td><img src="slides/slide_x.jpg"><br>Water drop</td><td>Next</td></tr></table>"#)
        #expect(page.images.first?.title == "Water drop")
    }

    @Test("a heading or a paragraph right after a full-width photo is its caption; prose and furniture are not")
    func blockAfterCaption() throws {
        let heading = try readings(#"<main><img src="storm.jpg"><h2>Before the storm</h2><p>Text.</p></main>"#)
        #expect(heading.images.first?.title == "Before the storm")
        let prose = String(repeating: "We walked along the shore for a long while. ", count: 8)
        let long = try readings(#"<main><img src="storm.jpg"><p>\#(prose)</p></main>"#)
        #expect(long.images.first?.title == nil)
        // A photo the page labels already (a WordPress post's alt) keeps its label: the
        // paragraph after it is the post's.
        let post = try readings(
            #"<main><img src="storm.jpg" alt="Dark storm clouds above a road"><p>We drove home just ahead of it.</p></main>"#)
        #expect(post.images.first?.title == "Dark storm clouds above a road")
        // A page that names its photo in its heading (an attachment page): the text after the
        // photo describes it.
        let attachment = try readings(
            #"<main><h1>Aitzgorri in autumn</h1><img src="aitzgorri.jpg"><p>Beech woods below the ridge.</p></main>"#)
        #expect(attachment.images.first?.title == nil)
        let footer = try readings(#"<img src="storm.jpg"><footer><p>© 2026 Someone</p></footer>"#)
        #expect(footer.images.first?.title == nil)
    }

    @Test("on a page of several photos the text after each is no caption (jigl's index: sizes, the next cell)")
    func severalPhotosNoNearText() throws {
        let page = try readings(Self.jiglIndex)
        #expect(page.images.count == 3)
        #expect(page.images.allSatisfy { $0.title == nil }, "\(page.images.map(\.title))")
    }

    @Test("a label that only restates the file name is no title, with or without a counter")
    func restatedNames() throws {
        #expect(PageReading.restatesFileName("aqua", of: "aqua.jpg"))
        #expect(PageReading.restatesFileName("by-the-water", of: "by%2Dthe%2Dwater.jpg"))
        #expect(PageReading.restatesFileName("Aqua", of: "aqua.jpg"))
        // Words a person spelled out of the name are a title (sigal's, from its metadata).
        #expect(!PageReading.restatesFileName("Desert Dunes", of: "thumbnails/desert-dunes.jpg"))
        #expect(PageReading.restatesFileName("aqua (1/25)", of: "slides/slide_aqua.jpg"))
        #expect(!PageReading.restatesFileName("Water drop", of: "aqua.jpg"))
        #expect(!PageReading.restatesFileName("Aquarium", of: "aqua.jpg"))
        // In a page: an alt, a link's title or a text link that only names the file.
        let page = try readings(
            #"<a href="big/fern.jpg" title="Fern"><img src="t/fern.jpg" alt="fern"></a><a href="by-the-water.jpg">by-the-water</a>"#
                + #"<img src="drop.jpg" alt="A water drop">"#)
        #expect(page.images.map(\.title) == [nil, nil, nil, "A water drop"], "\(page.images.map(\.title))")
    }

    // MARK: - Item 3: CSS backgrounds in any attribute

    @Test("an attribute holding a CSS url(...) is read as a style is: data-bg, data-background, data-style")
    func cssAttributes() throws {
        let page = try readings(
            """
            <div class="lazy" data-bg="url(photo-x2000.jpg)"></div>
            <section data-background="url('/hero.jpg')"></section>
            <div data-style="background-image: url(&quot;tile.png&quot;)"></div>
            <p data-caption="see url(x) here">t</p>
            <svg><rect fill="url(#gradient)"></rect></svg>
            """)
        let urls = page.images.map(\.url)
        #expect(urls == ["photo-x2000.jpg", "/hero.jpg", "tile.png"])
        #expect(page.images.allSatisfy { $0.isGuess })
        #expect(Set(page.images.compactMap(\.photo)).count == 3)
    }

    @Test(
        "a heading right after a background photo, or a hero's title over it, is its caption; one element's backgrounds are one photo"
    )
    func backgroundCaptions() throws {
        // The issue's lazy "hero" blocks, and prosopopee 1.1.5's full-width picture and album cover.
        let page = try readings(
            """
            <h1>Full Width</h1>
            <section class="block"><div class="hero" data-bg="url(photo-x2000.jpg)"></div>
            <h2>Path into the Picos de Europa</h2><p>Read more below.</p></section>
            <section class="lazy full-picture" data-bg="url(Aqua-x2000.jpg)" style="background-size: cover;">
            <div class="picture-text"><div class="picture-text-column"><h1>A drop into blue water</h1>
            <h2>Early morning</h2></div></div></section>
            <div class="gallery-square"><a href="nature/"><div class="gallery-title"><h2>Nature walks</h2></div></a>
            <div class="gallery-cover" style="background-image: url('nature/Aqua-x1366.jpg'), url('nature/Aqua-x900.jpg');"></div></div>
            <div class="tile" data-bg="url(far.jpg)"></div><ul><li>A list</li></ul><h2>Not its caption</h2>
            """)
        let byURL = Dictionary(uniqueKeysWithValues: page.images.map { ($0.url, $0) })
        #expect(byURL["photo-x2000.jpg"]?.title == "Path into the Picos de Europa")
        #expect(byURL["Aqua-x2000.jpg"]?.title == "A drop into blue water")
        #expect(byURL["far.jpg"]?.title == nil)
        let cover = ["nature/Aqua-x1366.jpg", "nature/Aqua-x900.jpg"].compactMap { byURL[$0]?.photo }
        #expect(cover.count == 2 && cover[0] == cover[1])
    }

    // MARK: - Item 4: the catalog's own text is kept verbatim

    @Test("a JSON listing's titles and captions are kept as written, however they look")
    func listingTextVerbatim() throws {
        let listing = """
            [{"title": "../../../../cm-escape-3", "url": "/image?1", "description": "<b>bold</b> &amp; more"},
             {"title": "&lt;img src=x onerror=alert(1)&gt;", "url": "/image?2", "page": "http://h/photos/2.html"},
             {"name": "C:\\\\photos\\\\c.txt", "image": "/c.jpg"}]
            """
        let references = try JSONReader.read(Array(listing.utf8))
        let byURL = Dictionary(uniqueKeysWithValues: references.map { ($0.url, $0) })
        #expect(byURL["/image?1"]?.title == "../../../../cm-escape-3")
        #expect(byURL["/image?1"]?.metadata["description"] == "<b>bold</b> &amp; more")
        #expect(byURL["/image?2"]?.title == "&lt;img src=x onerror=alert(1)&gt;")
        #expect(byURL["/image?2"]?.titleSource == .catalog)
        // Another field holding an address is the record's page, not its text.
        #expect(byURL["/image?2"]?.metadata["page"] == nil)
        #expect(byURL["/c.jpg"]?.title == #"C:\photos\c.txt"#)
    }

    @Test("a feed's titles are kept as written; only text the feed declares HTML is read as HTML")
    func feedTextVerbatim() throws {
        let rss = """
            <?xml version="1.0"?>
            <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>f</title>
            <item><title>&lt;img src=x onerror=alert(1)&gt;</title><enclosure url="http://h/a.jpg" type="image/jpeg"/>
              <description>&lt;p&gt;A &lt;b&gt;bold&lt;/b&gt; caption&lt;/p&gt;</description></item>
            <item><title>../../../../cm-escape-3</title><enclosure url="http://h/b.jpg" type="image/jpeg"/></item>
            </channel></rss>
            """
        let parser = FeedStreamParser(url: "http://h/feed.xml", charset: nil)
        let bytes = Array(rss.utf8)
        let references = try bytes.withUnsafeBytes { try parser.feed($0) } + parser.finish()
        let byURL = Dictionary(uniqueKeysWithValues: references.map { ($0.url, $0) })
        #expect(byURL["http://h/a.jpg"]?.title == "<img src=x onerror=alert(1)>")
        #expect(byURL["http://h/a.jpg"]?.metadata["description"] == "A bold caption")
        #expect(byURL["http://h/b.jpg"]?.title == "../../../../cm-escape-3")
    }
}
