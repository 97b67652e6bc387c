import Testing

@testable import MirrorCatalog
@testable import MirrorCore

@Suite("A CMS's resized copies and their originals")
struct RenditionFamilyTests {
    private func originals(_ key: String) throws -> [String] {
        RenditionFamily.originals(of: try #require(CanonicalURL(key)))
    }

    @Test("MediaWiki's thumbnails are made from the file their folder names")
    func mediaWiki() throws {
        #expect(
            try originals("http://h/images/thumb/c/c8/Drop_into_still_water.jpg/120px-Drop_into_still_water.jpg")
                == ["http://h/images/c/c8/Drop_into_still_water.jpg"])
        // A timestamped copy, a qualified one, and one whose format changed.
        #expect(try originals("http://h/w/images/thumb/a/ab/A.jpg/800px-A.jpg?20261128") == ["http://h/w/images/a/ab/A.jpg"])
        #expect(
            try originals("http://h/images/thumb/a/ab/Doc.tif/lossy-page1-120px-Doc.tif.jpg") == ["http://h/images/a/ab/Doc.tif"])
        #expect(try originals("http://h/images/thumb/a/ab/Logo.svg/120px-Logo.svg.png") == ["http://h/images/a/ab/Logo.svg"])
        // Not a thumbnail: another file's name, no size, no thumb folder.
        #expect(try originals("http://h/images/thumb/a/ab/A.jpg/120px-B.jpg").isEmpty)
        #expect(try originals("http://h/images/thumb/a/ab/A.jpg/A.jpg").isEmpty)
        #expect(try originals("http://h/images/a/ab/A.jpg/120px-A.jpg").isEmpty)
    }

    @Test("WordPress's sizes are made from the upload, or from the scaled copy that stands in for it")
    func wordPress() throws {
        #expect(
            try originals("http://h/wp-content/uploads/2024/05/aqua-300x188.jpg") == [
                "http://h/wp-content/uploads/2024/05/aqua.jpg", "http://h/wp-content/uploads/2024/05/aqua-scaled.jpg",
            ])
        #expect(
            try originals("http://h/u/aitzgorri-150x150.jpg") == ["http://h/u/aitzgorri.jpg", "http://h/u/aitzgorri-scaled.jpg"])
        #expect(try originals("http://h/u/aitzgorri-scaled.jpg") == ["http://h/u/aitzgorri.jpg"])
        #expect(try originals("http://h/u/photo-rotated.png") == ["http://h/u/photo.png"])
        // Names that only look alike: no size, a word, a size without a base.
        #expect(try originals("http://h/u/2024-05-12.jpg").isEmpty)
        #expect(try originals("http://h/u/red-x-blue.jpg").isEmpty)
        #expect(try originals("http://h/u/-300x200.jpg").isEmpty)
        #expect(try originals("http://h/u/aqua.jpg").isEmpty)
    }

    @Test("any site's related names propose the stem's file: sizes, rendition words, a Hugo hash; others do not")
    func stems() throws {
        #expect(try originals("http://h/p/garden-x900.jpg") == ["http://h/p/garden.jpg"])
        #expect(try originals("http://h/p/garden-1200w.webp") == ["http://h/p/garden.webp"])
        #expect(try originals("http://h/p/garden_640px.jpg") == ["http://h/p/garden.jpg"])
        #expect(try originals("http://h/p/garden_thumb.jpg") == ["http://h/p/garden.jpg"])
        #expect(try originals("http://h/p/garden-Small.png") == ["http://h/p/garden.png"])
        #expect(
            try originals("http://h/p/IMG_2041_hu_3d03a01dcc18bc5b_1234_300x0_resize_q75_box.jpg") == ["http://h/p/IMG_2041.jpg"])
        // A number, a word that is no rendition's, or nothing before the separator proposes nothing.
        #expect(try originals("http://h/p/photo-00042.jpg").isEmpty)
        #expect(try originals("http://h/p/garden-party.jpg").isEmpty)
        #expect(try originals("http://h/p/-x900.jpg").isEmpty)
        #expect(try originals("http://h/p/IMG_2041.jpg").isEmpty)
    }

}
