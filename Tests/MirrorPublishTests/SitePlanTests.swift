import Foundation
import Testing

@testable import MirrorCore
@testable import MirrorPublish
@testable import MirrorStore

@Suite("The site plan")
struct SitePlanTests {
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
