import Foundation
import Testing

@testable import MirrorCore
@testable import MirrorEmbedded
@testable import MirrorStore

/// What a photo says about itself as the index keeps it (`EmbeddedMetadata.indexText`, the
/// `embedded` column), on the photos MirrorEmbeddedTests reads (its `Fixtures/photos`).
@Suite("Embedded metadata in the index")
struct EmbeddedMetadataIndexTests {
    static let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("MirrorEmbeddedTests/Fixtures/photos")

    static func read(_ name: String) throws -> EmbeddedMetadata {
        try #require(EmbeddedMetadataReader.read(fileAtPath: photos.appendingPathComponent(name).path))
    }

    @Test("a file that says nothing has an empty index text, which reads back as nothing")
    func plain() throws {
        let metadata = try Self.read("plain.jpg")
        #expect(metadata.indexText == "")
        #expect(EmbeddedMetadata(indexText: "") == EmbeddedMetadata())
    }

    @Test("the index keeps every field, and reads back what it wrote")
    func indexText() throws {
        let metadata = try Self.read("full.jpg")
        #expect(EmbeddedMetadata(indexText: metadata.indexText) == metadata)
        #expect(EmbeddedMetadata(indexText: "{not json") == nil)
        let withheld = metadata.withholdingLocation()
        #expect(withheld.location == nil && withheld.locationWithheld == true)
        #expect(!withheld.indexText.contains("48.85"))
    }
}
