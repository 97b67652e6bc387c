import Foundation
import Testing

@testable import MirrorCatalog

@Suite("The site's name")
struct SiteNameTests {
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
}
