import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorCrawl

@Suite("File extraction: a file read as the crawler reads a document")
struct FileExtractionTests {
    @Test("a file streamed in 64 KB chunks gives the crawler's keys (the benchmark's extraction)")
    func fileExtraction() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        // Enough items that the feed spans several chunks; one inert and one relative URL.
        var feed = #"<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>"#
        for index in 0..<3000 {
            feed += #"<item><title>Image \#(index)</title><enclosure url="img/\#(index).jpg" type="image/jpeg"/></item>"#
        }
        feed += #"<item><enclosure url="data:image/png;base64,AAAA"/></item></channel></rss>"#
        let feedPath = directory.url.appendingPathComponent("feed.rss").path
        try Data(feed.utf8).write(to: URL(fileURLWithPath: feedPath))
        #expect(feed.utf8.count > 3 * 64 * 1024)
        let base = CanonicalURL("http://H:80/gallery/feed.rss")!
        let keys = try FileExtraction.keys(inFileAt: feedPath, kind: .feed, base: base)
        #expect(keys.count == 3000)
        #expect(keys.first?.string == "http://h/gallery/img/0.jpg")
        #expect(keys.last?.string == "http://h/gallery/img/2999.jpg")

        let pagePath = directory.url.appendingPathComponent("page.html").path
        try Data(#"<base href="/other/"><img src="a.png"><img srcset="b.png 1x, c.png 2x">"#.utf8)
            .write(to: URL(fileURLWithPath: pagePath))
        let pageKeys = try FileExtraction.keys(inFileAt: pagePath, kind: .html, base: base)
        #expect(Set(pageKeys.map(\.string)).isSuperset(of: ["http://h/other/a.png", "http://h/other/c.png"]))
        #expect(throws: FileExtraction.Failure.self) {
            try FileExtraction.keys(inFileAt: pagePath, kind: .feed, base: base)
        }
    }
}
