import Foundation
import Testing

@testable import SampleGallery

@Suite("The sample gallery's images, compiled in from Sources/SampleGallery/Images")
struct SampleImageTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SampleGallery/Images")

    @Test("each image is its file in Images/, byte for byte, and each file is an image of the gallery once")
    func embeddedMatchesFolder() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        #expect(SampleImage.bundled.map(\.file).sorted() == files)
        #expect(SampleImage.embeddedFiles.keys.sorted() == files)
        for image in SampleImage.bundled {
            let onDisk = try Data(contentsOf: Self.folder.appendingPathComponent(image.file))
            #expect(!onDisk.isEmpty && image.bytes == Array(onDisk), "\(image.file)")
        }
    }

    @Test("the format is the file's: 32 images in PNG, JPEG and GIF, each read as what it says it is")
    func formats() {
        let signatures: [String: [UInt8]] = [
            "png": [0x89, 0x50, 0x4E, 0x47], "jpeg": [0xFF, 0xD8, 0xFF], "gif": Array("GIF8".utf8),
        ]
        #expect(SampleImage.bundled.count == 32)
        #expect(Set(SampleImage.bundled.map(\.format)) == ["png", "jpeg", "gif"])
        for image in SampleImage.bundled {
            let signature = signatures[image.format] ?? [0]
            #expect(image.bytes.starts(with: signature), "\(image.file)")
        }
    }
}
