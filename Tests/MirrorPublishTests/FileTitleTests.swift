import Testing

@testable import MirrorPublish

@Suite("A photo's title from its file name")
struct FileTitleTests {
    @Test("with no title at all, the site labels a photo by its file name without the extension")
    func fileTitle() {
        #expect(MirrorPublisher.fileTitle("http://h/g/a/circuit%20board.jpg?size=2") == "circuit board")
        #expect(MirrorPublisher.fileTitle("http://h/g/image?id=3") == "image")
    }
}
