import Testing

@testable import CatalogMirror

@Suite("File names for hostile keys")
struct FileNamerTests {
    static let hostile = [
        "http://h/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "http://h/../../etc/passwd", "http://h//absolute/path.png",
        "http://h/nul%00byte.png", "http://h/" + String(repeating: "a", count: 300) + ".png",
        "http://h/%F0%9F%98%80%F0%9F%8E%A8.png", "http://h/%D7%A9%D7%9C%D7%95%D7%9D\u{202E}gnp.exe",
        "http://h/.hidden", "http://h/", "http://h/con.png?x=../../y",
    ]

    @Test("every name is a safe, bounded single segment", arguments: hostile)
    func safe(url: String) throws {
        let key = try #require(CanonicalURL(url))
        for title: String? in [nil, "../../evil", "<img src=x onerror=alert(1)>", String(repeating: "🎨", count: 200), "\u{0}"] {
            let name = FileNamer.fileName(key: key, title: title, sha256: String(repeating: "ab", count: 32), format: .png)
            #expect(name.wholeMatch(of: /[a-z0-9]+(-[a-z0-9]+)*-[0-9a-f]{10}\.png/) != nil, "\(name)")
            #expect(name.count <= FileNamer.maxSlugLength + 15)
            #expect(!name.contains(".."))
        }
    }

    @Test("names are stable for the same key and bytes, and differ otherwise")
    func stable() throws {
        let key = try #require(CanonicalURL("http://h/gallery/image?3"))
        let a = FileNamer.fileName(key: key, title: "Smiling Face", sha256: "aa", format: .png)
        #expect(a == FileNamer.fileName(key: key, title: "Smiling Face", sha256: "aa", format: .png))
        #expect(a.hasPrefix("smiling-face-"))
        #expect(a != FileNamer.fileName(key: key, title: "Smiling Face", sha256: "bb", format: .png))
        #expect(FileNamer.fileName(key: key, title: "Café", sha256: "aa", format: .jpeg).hasPrefix("cafe-"))
        #expect(FileNamer.fileName(key: key, title: nil, sha256: "aa", format: .gif).hasPrefix("image-"))
    }

    @Test("manifest paths cannot leave the mirror")
    func layoutPaths() {
        let layout = MirrorLayout(root: .init(fileURLWithPath: "/srv/m"))
        #expect(layout.file(atRelativePath: "images/a.png")?.path == "/srv/m/images/a.png")
        for bad in ["../x", "/etc/passwd", "images/../../x", "images//a", "", "images/./a"] {
            #expect(layout.file(atRelativePath: bad) == nil, "\(bad)")
        }
    }
}
