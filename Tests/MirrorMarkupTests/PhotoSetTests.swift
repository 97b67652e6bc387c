import Testing

@testable import MirrorMarkup

@Suite("The photos of one record")
struct PhotoSetTests {
    private func rendition(_ url: String, _ role: RenditionSize.Role = .display, title: String? = nil) -> ImageReference {
        var reference = ImageReference(url: url, size: RenditionSize(role: role))
        reference.title = title
        return reference
    }

    @Test("one URL is one image: a rendition listed again joins the one the set holds, wherever it is")
    func oneURLOneImage() {
        var set = PhotoSet()
        #expect(set.add([rendition("a.jpg"), rendition("a-thumb.jpg", .thumbnail)]) == 0)
        #expect(set.add([rendition("b.jpg"), rendition("b.jpg", .full, title: "B")]) == 1)
        // A photo whose only URL the set holds adds no photo; its rendition enlarges the known one.
        #expect(set.add([rendition("a-thumb.jpg", .full)]) == nil)
        #expect(set.photos.map { $0.map(\.url) } == [["a.jpg", "a-thumb.jpg"], ["b.jpg"]])
        #expect(set.photos[0][1].size.role == .full)
        #expect(set.photos[1][0].title == "B" && set.photos[1][0].size.role == .full)
        // Added to photo 1, a URL photo 0 holds still merges into photo 0: never two renditions of one URL.
        set.add([rendition("a.jpg", title: "A"), rendition("b-big.jpg", .full)], to: 1)
        #expect(set.photos.map { $0.map(\.url) } == [["a.jpg", "a-thumb.jpg"], ["b.jpg", "b-big.jpg"]])
        #expect(set.photos[0][0].title == "A")
        #expect(set.index(of: "b-big.jpg") == 1 && set.index(of: "a-thumb.jpg") == 0 && set.index(of: "c.jpg") == nil)
        #expect(set.add(rendition("")) == nil && set.count == 2)
    }

    @Test("a set added to another joins the photo it shares a URL with, or stands alone")
    func addSet() {
        var set = PhotoSet()
        set.add([rendition("a.jpg")])
        var other = PhotoSet()
        other.add([rendition("c.jpg"), rendition("a.jpg", .full)])
        other.add([rendition("d.jpg")])
        set.add(other)
        #expect(set.photos.map { $0.map(\.url) } == [["a.jpg", "c.jpg"], ["d.jpg"]])
        // Into an empty set, the other set as it is.
        var empty = PhotoSet()
        empty.add(other)
        #expect(empty.photos == other.photos && empty.index(of: "d.jpg") == 1)
    }

    @Test("a change of URL in update is followed by the lookup")
    func updateFollowsURLs() {
        var set = PhotoSet()
        set.add([rendition("a.jpg")])
        set.add([rendition("b.jpg")])
        set.update { if $0.url == "a.jpg" { $0.url = "z.jpg" } }
        #expect(set.index(of: "a.jpg") == nil && set.index(of: "z.jpg") == 0 && set.index(of: "b.jpg") == 1)
        #expect(set.add([rendition("a.jpg")]) == 2)
    }

    @Test("a listing of 20,000 records whose every record shares one placeholder is read record by record")
    func sharedPlaceholder() {
        // Every record joins the placeholder's photo: the photo grows to 20,001 renditions, and
        // each lookup is a table's, not a scan of that photo.
        var walker = ImageValueWalker()
        let records = (0..<20_000).map { index in
            JSONValue.object([
                .init(key: "image", value: .string("img/\(index).jpg")),
                .init(key: "thumb", value: .string("spinner.gif")),
            ])
        }
        walker.walk(.array(records))
        let photos = walker.photos.photos
        #expect(photos.count == 1)
        #expect(photos.first?.count == 20_001)
        #expect(Set(photos.first?.map(\.url) ?? []).count == 20_001)
    }
}
