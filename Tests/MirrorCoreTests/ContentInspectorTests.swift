import Testing

@testable import MirrorCore
@testable import SampleGallery

@Suite("Content checks")
struct ContentInspectorTests {
    func inspect(_ bytes: [UInt8]) -> Result<ImageFormat, FetchFailure> {
        ContentInspector.inspect(
            head: Array(bytes.prefix(ContentInspector.headLength)), tail: Array(bytes.suffix(ContentInspector.tailLength)),
            length: Int64(bytes.count)
        ) { offset, count in
            let start = Int(min(offset, Int64(bytes.count)))
            return Array(bytes[start..<min(start + count, bytes.count)])
        }
    }

    func sample(_ format: String) -> [UInt8] {
        SampleImage.bundled.first { $0.format == format }!.bytes
    }

    @Test("accepts complete PNG, JPEG and GIF files")
    func complete() throws {
        #expect(try inspect(sample("png")).get() == .png)
        #expect(try inspect(sample("jpeg")).get() == .jpeg)
        #expect(try inspect(sample("gif")).get() == .gif)
    }

    @Test("flags truncated files by their missing end markers")
    func truncated() {
        for format in ["png", "jpeg", "gif"] {
            let bytes = sample(format)
            #expect(inspect(Array(bytes.prefix(bytes.count - 100))).failureReason == .truncated, "\(format)")
        }
    }

    @Test("WebP and AVIF sizes must add up")
    func containers() throws {
        var webp: [UInt8] =
            Array("RIFF".utf8) + [22, 0, 0, 0] + Array("WEBPVP8L".utf8) + [10, 0, 0, 0] + [UInt8](repeating: 1, count: 10)
        #expect(try inspect(webp).get() == .webp)
        webp.removeLast(4)
        #expect(inspect(webp).failureReason == .truncated)
        let ftyp: [UInt8] = [0, 0, 0, 20] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("mif1".utf8)
        let mdat: [UInt8] = [0, 0, 0, 12] + Array("mdat".utf8) + [1, 2, 3, 4]
        #expect(try inspect(ftyp + mdat).get() == .avif)
        #expect(inspect(ftyp + mdat.dropLast(2)).failureReason == .truncated)
        #expect(inspect([0, 0, 0, 20] + Array("ftypmp42".utf8) + [UInt8](repeating: 0, count: 8)).failureReason == .notAnImage)
    }

    @Test("a JSON or HTML body is not an image; an empty one is empty; SVG is not published")
    func notImages() {
        #expect(inspect(Array(#"{"error": "image not available"}"#.utf8)).failureReason == .notAnImage)
        #expect(inspect(Array("<!DOCTYPE html><html>".utf8)).failureReason == .notAnImage)
        #expect(inspect([]).failureReason == .empty)
        #expect(
            inspect(Array("<?xml version='1.0'?>\n<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>".utf8))
                .failureReason == .unsupportedType)
    }
}

extension Result where Failure == FetchFailure {
    var failureReason: RejectionReason? {
        if case .failure(let failure) = self { return failure.reason }
        return nil
    }
}
