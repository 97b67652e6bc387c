import Foundation
import Testing

@testable import MirrorCore
@testable import MirrorEmbedded

/// What a photo says about itself, read from photos whose metadata exiftool wrote
/// (`Fixtures/photos/make_photos.py`): EXIF through libexif, IPTC through libiptcdata, XMP
/// through libxml2, in JPEG, PNG and WebP, and files whose metadata is damaged.
@Suite("Embedded metadata")
struct EmbeddedMetadataTests {
    static let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/photos")

    static func read(_ name: String) throws -> EmbeddedMetadata {
        try #require(EmbeddedMetadataReader.read(fileAtPath: photos.appendingPathComponent(name).path))
    }

    @Test("a JPEG's EXIF, IPTC and XMP: what the camera recorded from EXIF, what a person wrote from XMP first")
    func everything() throws {
        let metadata = try Self.read("full.jpg")
        #expect(metadata.taken == "2019-06-01T18:30:05+02:00")
        #expect(metadata.camera == "Canon EOS 5D Mark IV")
        #expect(metadata.lens == "EF24-105mm f/4L IS USM")
        #expect(
            metadata.exposure == EmbeddedMetadata.Exposure(focalLength: 50, aperture: 8, exposureTime: "1/250", iso: 200))
        #expect(metadata.location == EmbeddedMetadata.Location(latitude: 48.8583701, longitude: 2.2944813))
        #expect(metadata.title == "Tour Eiffel at dusk")
        #expect(metadata.caption == "The tower lit at dusk, seen from the Trocadéro")
        #expect(metadata.keywords == ["Paris", "tower", "dusk"])
        #expect(metadata.creator == "Jane Doe")
        #expect(metadata.copyright == "© 2019 Jane Doe")
        #expect(metadata.problem == nil)
        #expect(metadata.year == "2019")
    }

    @Test("IPTC alone, in Latin-1: title, caption, keywords, copyright, date and time created")
    func iptcOnly() throws {
        let metadata = try Self.read("iptc-only.jpg")
        #expect(metadata.title == "Harbour at noon")
        #expect(metadata.caption == "Fishing boats by the café")
        #expect(metadata.keywords == ["harbour", "boats"])
        #expect(metadata.copyright == "© 2021 Port Authority")
        #expect(metadata.taken == "2021-07-14T12:05:00+01:00")
        #expect(metadata.camera == nil && metadata.location == nil && metadata.problem == nil)
    }

    @Test("a PNG's eXIf and iTXt XMP, with a position in XMP's own form")
    func png() throws {
        let metadata = try Self.read("xmp.png")
        #expect(metadata.camera == "Panasonic DMC-GX80")
        #expect(metadata.taken == "2020-02-29T09:15:00")
        #expect(metadata.title == "Meadow")
        #expect(metadata.keywords == ["grass", "spring"])
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - 51.5073333) < 1e-6 && abs(location.longitude + 0.1277500) < 1e-6)
    }

    @Test("a WebP's EXIF and XMP chunks after its image data")
    func webp() throws {
        let metadata = try Self.read("exif.webp")
        #expect(metadata.camera == "NIKON D700")
        #expect(metadata.taken == "2012-12-24T23:59:59")
        #expect(metadata.exposure == EmbeddedMetadata.Exposure(aperture: 2.8, exposureTime: "2.5"))
        #expect(metadata.title == "Midnight mass")
        #expect(metadata.creator == "Ann, Bob")
    }

    @Test("a file that says nothing reads as empty, with no problem")
    func plain() throws {
        let metadata = try Self.read("plain.jpg")
        #expect(metadata.isEmpty && metadata.problem == nil)
    }

    @Test("a damaged EXIF block is ignored with a problem; the XMP beside it is kept")
    func damaged() throws {
        let metadata = try Self.read("damaged-exif.jpg")
        #expect(metadata.title == "Still titled")
        #expect(metadata.problem == "its EXIF block could not be read")
    }

    @Test("structures that lie about their lengths end the walk with a problem, never a trap")
    func lies() throws {
        let full = Array(try Data(contentsOf: Self.photos.appendingPathComponent("full.jpg")))
        // Every prefix of a real file: segments cut anywhere.
        for length in stride(from: 0, through: min(full.count, 1_200), by: 7) {
            _ = EmbeddedMetadataReader.read(bytes: Array(full.prefix(length)))
        }
        // An APP1 segment claiming 64 KB in a file of a few bytes.
        let cut = EmbeddedMetadataReader.read(bytes: [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xFF] + Array("Exif".utf8) + [0, 0])
        #expect(cut.problem == "a JPEG segment runs past the end of the file")
        // A PNG chunk claiming 2 GB.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x7F, 0xFF, 0xFF, 0xFF] + Array("eXIf".utf8)
        #expect(EmbeddedMetadataReader.read(bytes: png).problem == "a PNG chunk runs past the end of the file")
        // An XMP packet that is not XML, and one whose entity names a file: never loaded.
        #expect(XMPFields.read(Array("<x:xmpmeta><unclosed".utf8)[...]).problem == "its XMP packet is not well-formed XML")
        let entity = """
            <!DOCTYPE x [<!ENTITY file SYSTEM "\(Self.photos.appendingPathComponent("make_photos.py").path)">]>\
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>a&file;b</dc:title>\
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let title = XMPFields.read(Array(entity.utf8)[...]).title
        #expect(!(title ?? "").contains("Pillow"), "\(title ?? "")")
    }

    @Test("an exposure value that rounds to zero is no value; the rest of the exposure is kept")
    func roundsToZero() throws {
        #expect(EXIFBlock.rounded(0.04, places: 1) == nil)
        #expect(EXIFBlock.rounded(0.06, places: 1) == 0.1)
        // FuzzMetadata's finding: a focal length of 5065984/704643327 (0.007 mm) came out as 0.
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/FuzzMetadata")
        let bytes = try [UInt8](Data(contentsOf: corpus.appendingPathComponent("exif-focal-length-under-0.05.jpg")))
        let metadata = EmbeddedMetadataReader.read(bytes: bytes)
        #expect(metadata.exposure?.focalLength == nil)
        #expect(metadata.exposure?.aperture == 0.7)
        #expect(metadata.camera == "Canon EOS 5D Mark IV")
    }

    @Test("dates, offsets, exposure times and coordinates in the forms files write them")
    func forms() {
        #expect(EXIFBlock.takenDate("2008:01:22 03:28:22", offset: nil) == "2008-01-22T03:28:22")
        #expect(EXIFBlock.takenDate("0000:00:00 00:00:00", offset: nil) == nil)
        #expect(EXIFBlock.takenDate("    :  :     :  :  ", offset: nil) == nil)
        #expect(EXIFBlock.takenDate("2008:01:22 03:28:22", offset: "-05:30") == "2008-01-22T03:28:22-05:30")
        #expect(EXIFBlock.takenDate("2008:01:22 03:28:22", offset: "+99:99") == "2008-01-22T03:28:22")
        #expect(XMPFields.date("2008-01-22T03:28:22.57+01:00") == "2008-01-22T03:28:22+01:00")
        #expect(XMPFields.date("2008-01-22T03:28") == "2008-01-22T03:28:00")
        #expect(XMPFields.date("2008-01-22") == "2008-01-22")
        #expect(XMPFields.date("2008") == nil)
        #expect(IPTCBlock.takenDate(date: "20080122", time: "032822+0100") == "2008-01-22T03:28:22+01:00")
        #expect(IPTCBlock.takenDate(date: "20081322", time: nil) == nil)
        #expect(EXIFBlock.exposureTime(1.0 / 80) == "1/80")
        #expect(EXIFBlock.exposureTime(0.3) == "0.3")
        #expect(EXIFBlock.exposureTime(30) == "30")
        #expect(EXIFBlock.exposureTime(0) == nil)
        #expect(XMPFields.rational("56/10") == 5.6)
        #expect(XMPFields.rational("1/0") == nil)
        #expect(XMPFields.coordinate("48,51.504N", positive: "N", negative: "S").map { abs($0 - 48.8584) < 1e-9 } == true)
        #expect(XMPFields.coordinate("0,7,39.9W", positive: "E", negative: "W").map { abs($0 + 0.12775) < 1e-9 } == true)
        #expect(XMPFields.coordinate("48,51.504", positive: "N", negative: "S") == nil)
        #expect(XMPFields.coordinate("48,,N", positive: "N", negative: "S") == nil)
        #expect(EXIFBlock.camera(make: "Canon", model: "Canon EOS 350D DIGITAL") == "Canon EOS 350D DIGITAL")
        #expect(EXIFBlock.camera(make: "NIKON CORPORATION", model: "NIKON D700") == "NIKON D700")
        #expect(EXIFBlock.camera(make: "Panasonic", model: "DMC-GX80") == "Panasonic DMC-GX80")
        #expect(EmbeddedMetadata.Location(latitude: 91, longitude: 0) == nil)
        #expect(EmbeddedMetadata.cleaned("  a\u{0}\tb \n c\u{0}\u{0} ") == "a b c")
        #expect(EmbeddedMetadata.cleaned(String(repeating: "x", count: 5_000))?.count == EmbeddedMetadata.longestText)
    }
}
