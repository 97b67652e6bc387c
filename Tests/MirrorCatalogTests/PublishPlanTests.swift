import Foundation
import Synchronization
import Testing

@testable import MirrorCatalog
@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorMarkup

@Suite("The publish plan")
struct PublishPlanTests {
    /// An accepted entry for `path` that the loader stored, seen as a rendition of photo 0.
    static func stored(_ path: String, width: Int) throws -> (CatalogEntry, StoredImage) {
        let key = try #require(CanonicalURL("http://h/\(path)"))
        let reference = ImageReference(url: key.string, photo: 0, size: RenditionSize(width: width))
        let entry = CatalogEntry(key: key, reference: reference, verdict: .accepted)
        entry.see(Discovery(key: key, reference: reference, document: 0))
        entry.outcome = .stored(staged: false)
        let image = StoredImage(
            key: key, fileName: path, sha256: String(repeating: "a", count: 64), byteCount: Int64(width),
            contentType: "image/png", etag: nil, lastModified: nil, firstSeen: Date(timeIntervalSince1970: 0),
            lastChecked: Date(timeIntervalSince1970: 0))
        return (entry, image)
    }

    @Test("a smaller rendition is rejected by the plan, smaller-rendition, its record not read; its entry stays accepted")
    func smallerRenditions() async throws {
        let (large, largeImage) = try Self.stored("large.png", width: 800)
        let (small, smallImage) = try Self.stored("small.png", width: 100)
        let images = [large.key: largeImage, small.key: smallImage]
        let asked = Mutex<[CanonicalURL]>([])
        let plan = try await PublishPlan(
            entries: [large, small], previous: nil,
            records: { keys in
                asked.withLock { $0 += keys }
                return keys.map { images[$0] }
            },
            stored: { _ in nil }, summary: CrawlSummary(), smaller: [small.key])
        #expect(plan.items.keys == [large.key.string])
        #expect(plan.rejected == [Manifest.Rejection(key: small.key.string, reason: "smaller-rendition")])
        #expect(asked.withLock { $0 } == [large.key])
        #expect(small.verdict == .accepted)

        // Without it, both are published.
        let both = try await PublishPlan(
            entries: [large, small], previous: nil, records: { keys in keys.map { images[$0] } }, stored: { _ in nil },
            summary: CrawlSummary())
        #expect(both.items.keys == [large.key.string, small.key.string])
        #expect(both.rejected.isEmpty)
    }
}
