import Foundation
import Testing

@testable import MirrorCatalog
@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorMarkup

@Suite("Catalog entries")
struct CatalogEntryTests {
    @Test("a sighting keeps what it is given in 48 bytes: none stays none, zero stays zero, a repeat only enlarges")
    func compactSightings() throws {
        let key = try #require(CanonicalURL("http://h/a.jpg"))
        let sizes = [
            RenditionSize(), RenditionSize(role: .thumbnail, width: 0, height: 0, density: 0),
            RenditionSize(role: .original, width: 4000, height: 3000, density: 1.5),
            RenditionSize(role: .full, width: -1, height: nil, density: 2),
        ]
        for (number, size) in sizes.enumerated() {
            for photo in [nil, 0, 7] as [Int?] {
                let sighting = CatalogEntry.Sighting(
                    document: number, photo: photo, size: size, isDecoration: number == 1, isFromDataFile: number == 2,
                    title: number == 0 ? nil : "T\(number)", titleSource: .caption)
                #expect(sighting.document == number && sighting.photo == photo && sighting.size == size)
                #expect(sighting.isDecoration == (number == 1) && sighting.isFromDataFile == (number == 2))
                #expect(sighting.title == (number == 0 ? nil : "T\(number)") && sighting.titleSource == .caption)
            }
        }
        let huge = CatalogEntry.Sighting(
            document: 0, photo: 0, size: RenditionSize(width: .max), isDecoration: false, isFromDataFile: false, title: nil,
            titleSource: .attribute)
        #expect(huge.size.width == Int(Int32.max))
        #expect(MemoryLayout<CatalogEntry.Sighting>.stride <= 48)

        // A second sighting in the same document and photo enlarges the first and names it once.
        var reference = ImageReference(url: key.string, photo: 3)
        reference.size = RenditionSize(role: .thumbnail)
        let entry = CatalogEntry(key: key, reference: reference, verdict: .accepted)
        entry.see(Discovery(key: key, reference: reference, document: 2))
        reference.size = RenditionSize(role: .full, width: 800)
        reference.title = "Bay"
        entry.see(Discovery(key: key, reference: reference, document: 2))
        reference.title = "Other"
        entry.see(Discovery(key: key, reference: reference, document: 2))
        #expect(entry.sightings.count == 1)
        #expect(entry.sightings[0].size == RenditionSize(role: .full, width: 800) && entry.sightings[0].title == "Bay")
        entry.see(Discovery(key: key, reference: reference, document: 3))
        #expect(entry.sightings.map(\.document) == [2, 3] && entry.largestSize == RenditionSize(role: .full, width: 800))
    }

    @Test("entries sort by key in byte order, as packed texts do")
    func sortedByKey() {
        let keys = ["http://h/b.jpg", "http://h/a%20b.jpg", "http://h/A.jpg", "http://h/a.jpg", "http://h/a.jpg?x=1"]
        let entries = keys.compactMap { CanonicalURL($0) }.map {
            CatalogEntry(key: $0, reference: ImageReference(url: $0.string), verdict: .accepted)
        }
        #expect(
            CatalogEntry.sortedByKey(entries).map(\.key.string)
                == keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }
}
