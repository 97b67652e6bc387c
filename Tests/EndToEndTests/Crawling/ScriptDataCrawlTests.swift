import CatalogMirror
import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore

/// Issue 10, item 3: image URLs in inline scripts, in the script files a page loads and in the
/// JSON documents they name or the page links, mirrored from the page alone, through the same
/// gate and cache as pages.
@Suite("Scripts and JSON data files in the crawl")
struct ScriptDataCrawlTests {
    /// A gallery whose photos are only in scripts and JSON, served as static files under /g/.
    private func writeSite(_ root: URL) throws {
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try write(
            "g/index.html",
            """
            <!DOCTYPE html><html><head><title>Script Gallery</title>
            <link rel="alternate" type="application/json" href="list.json">
            <script src="app.js"></script><script src="/vendor/lib.js"></script>
            <script type="application/ld+json">
            {"@context": "https://schema.org", "@type": "ImageObject", "name": "Linked",
             "contentUrl": "ld/full.png", "thumbnailUrl": "ld/thumb.png"}
            </script></head><body><h1>Script Gallery</h1><div id="galleria"></div>
            <script>
            // The gallery's data, as galleria pages write it.
            var data = [{title: 'Inline "one"', thumb: 'img/i-t.png', image: 'img/i.png', big: 'img/i-big.png'}];
            Galleria.run('#galleria', {dataSource: data});
            </script></body></html>
            """)
        try write(
            "g/app.js",
            """
            /* The page's own script: interface icons, a titled record and the data it loads. */
            Asset.images(['ui/left.png', 'ui/right.png']);
            var toggle = new Element('img', {'id': 'toggle', 'src': 'ui/toggle.png'});
            var featured = [{title: 'From app.js', src: 'img/app.png'}];
            var datafile = 'data/photos.json', missing = 'data/missing.json';
            """)
        try write("vendor/lib.js", "var decoration = {title: 'Outside', src: '/vendor/out.png'};")
        try write(
            "g/data/photos.json",
            #"{"name": "Data Gallery", "photos": [{"title": "Data", "thumb": "img/d-t.png", "full": ["img/d.png", [1600, 1200]]}]}"#
        )
        try write("g/list.json", #"[{"title": "Listed", "small": "l-s.png", "large": "l.png"}]"#)
        for path in [
            "g/img/i-t.png", "g/img/i.png", "g/img/i-big.png", "g/img/app.png", "g/img/d-t.png", "g/img/d.png", "g/l-s.png",
            "g/l.png",
            "g/ld/full.png", "g/ld/thumb.png", "g/ui/left.png", "g/ui/right.png", "g/ui/toggle.png", "vendor/out.png",
        ] {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(Fixture.png).write(to: url)
        }
    }

    @Test("photos in inline scripts, script files and JSON data files are mirrored as one photo each, on the page")
    func scriptsAndData() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let site = directory.url.appendingPathComponent("site")
        try writeSite(site)
        let output = directory.url.appendingPathComponent("mirror")
        let server = StaticSiteServer(directory: site, mount: "/")
        try await server.run { base in
            let page = base + "g/"
            let report = try await MirrorEngine(configuration: testConfiguration(source: page, output: output)).run()
            #expect(report.exitStatus == 0, "\(report.warnings)")
            let manifest = try MirrorManifest(mirror: output)
            let items = Dictionary(manifest.items.map { ($0.key.replacingOccurrences(of: page, with: ""), $0) }) { a, _ in a }
            // Every rendition is published, tied to its photo's largest; every photo is on the page.
            let expected: [String: String?] = [
                "img/i-big.png": nil, "img/i.png": "img/i-big.png", "img/i-t.png": "img/i-big.png", "img/app.png": nil,
                "img/d.png": nil, "img/d-t.png": "img/d.png", "l.png": nil, "l-s.png": "l.png", "ld/full.png": nil,
                "ld/thumb.png": "ld/full.png",
            ]
            #expect(Set(items.keys) == Set(expected.keys))
            for (path, largest) in expected {
                #expect(items[path]?.variantOf == largest.map { page + $0 }, "\(path)")
                #expect(items[path]?.album == page, "\(path)")
            }
            #expect(items["img/i-big.png"]?.title == #"Inline "one""#)
            #expect(items["img/d.png"]?.title == "Data")
            #expect(items["l.png"]?.title == "Listed")
            #expect(items["ld/full.png"]?.title == "Linked")
            // Interface images of a script file and scripts outside the crawl scope are not read.
            let paths = server.log.map(\.path)
            #expect(!paths.contains { $0.hasPrefix("/vendor/") || $0.hasPrefix("/g/ui/") })
            #expect(paths.filter { $0 == "/g/app.js" }.count == 1)
            #expect(report.warnings.contains { $0.contains("data/missing.json") && $0.contains("404") })

            // A second sync revalidates the scripts and data files as it does pages.
            let firstRun = server.log.count
            let again = try await MirrorEngine(configuration: testConfiguration(source: page, output: output)).run()
            #expect(again.exitStatus == 0)
            #expect(again.published == expected.count)
            let documents = server.log.dropFirst(firstRun).filter {
                [".js", ".json", "/"].contains(where: $0.path.hasSuffix) && $0.status != 404
            }
            #expect(documents.count == 4)
            #expect(documents.allSatisfy { $0.isConditional && $0.status == 304 }, "\(documents.map(\.path))")
        }
    }

    @Test("a listing every page advertises gives its photos to the first page only: no page repeats them")
    func sharedListing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let site = directory.url.appendingPathComponent("site")
        // Three pages, each with a photo of its own, each advertising the one listing of 20
        // records (a thumbnail and an image each), as a site advertises its API.
        let records = (0..<20).map { #"{"title": "Listed \#($0)", "thumbnail": "l/t\#($0).png", "url": "l/\#($0).png"}"# }
        var files = ["g/list.json": "[" + records.joined(separator: ",") + "]"]
        for page in 1...3 {
            let next = page < 3 ? #"<a href="page-\#(page + 1).html">next</a>"# : ""
            files[page == 1 ? "g/index.html" : "g/page-\(page).html"] = """
                <!DOCTYPE html><html><head><title>Page \(page)</title>
                <link rel="alternate" type="application/json" href="list.json"></head>
                <body><img src="own/\(page).png" alt="Own \(page)">\(next)</body></html>
                """
        }
        for (path, text) in files {
            let url = site.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let images = (0..<20).flatMap { ["g/l/t\($0).png", "g/l/\($0).png"] } + (1...3).map { "g/own/\($0).png" }
        for path in images {
            let url = site.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(Fixture.png).write(to: url)
        }
        let output = directory.url.appendingPathComponent("mirror")
        let server = StaticSiteServer(directory: site, mount: "/")
        try await server.run { base in
            let start = base + "g/"
            let report = try await MirrorEngine(configuration: testConfiguration(source: start, output: output)).run()
            #expect(report.exitStatus == 0, "\(report.warnings)")
            #expect(report.pages == 3)
            #expect(report.published == images.count)
            // Given to every page, the listing's 40 keys came back twice more as repeats.
            #expect(report.memoryHits == 0)
            let manifest = try MirrorManifest(mirror: output)
            for item in manifest.items where item.key.contains("/g/l/") {
                #expect(item.album == start, "\(item.key)")
            }
            #expect(manifest.items.first { $0.key.hasSuffix("own/3.png") }?.album == base + "g/page-3.html")
            #expect(server.log.filter { $0.path == "/g/list.json" }.count == 1)
        }
    }

    @Test("a feed that declares entities is read unexpanded with a warning, never exit 3", arguments: ["source", "--feed"])
    func entityFeed(given: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let site = directory.url.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        try Data(
            #"""
            <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY leak SYSTEM "file:///etc/passwd"><!ENTITY a "aaaaaaaaaa">]>
            <rss version="2.0"><channel><title>Entities</title><item><title>One &leak;&a;</title>
            <enclosure url="one.png" type="image/png"/></item></channel></rss>
            """#.utf8
        ).write(to: site.appendingPathComponent("feed.rss"))
        try Data("<html><head><title>Home</title></head><body><p>No images here.</p></body></html>".utf8)
            .write(to: site.appendingPathComponent("index.html"))
        try Data(Fixture.png).write(to: site.appendingPathComponent("one.png"))
        let output = directory.url.appendingPathComponent("mirror")
        let server = StaticSiteServer(directory: site, mount: "/")
        try await server.run { base in
            var configuration = testConfiguration(source: given == "source" ? base + "feed.rss" : base, output: output)
            if given == "--feed" { configuration.crawl.feed = CanonicalURL(base + "feed.rss") }
            let report = try await MirrorEngine(configuration: configuration).run()
            #expect(report.exitStatus == 0, "\(report.error ?? "")")
            #expect(report.published == 1)
            #expect(report.warnings.contains { $0.contains("declares XML entities (leak, a)") })
            let manifest = try String(contentsOf: output.appendingPathComponent("manifest.json"), encoding: .utf8)
            #expect(!manifest.contains("root:") && !manifest.contains("aaaaaaaaaa"))
        }
    }
}
