import Testing

@testable import MirrorCore
@testable import MirrorStore

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

    @Test("names are those earlier releases gave: a changed name would rename every file of a mirror")
    func unchangedNames() throws {
        let key = try #require(CanonicalURL("http://example.com/photos/Sunset%20Beach.png"))
        let sha256 = String(repeating: "ab", count: 32)
        // SHA-256 of the key, a newline and the content's hash (Python's hashlib):
        let digest = "89912b0205cda75fd806020e119650abcfa39401380d455d9863f2c34521197f"
        let cases: [(String?, Int, String)] = [
            ("Sunset at the Beach!", 10, "sunset-at-the-beach-89912b0205.png"),
            (nil, 10, "sunset-beach-89912b0205.png"),
            ("!!!", 10, "sunset-beach-89912b0205.png"),
            ("Café au lait", 10, "cafe-au-lait-89912b0205.png"),
            ("Sunset", 14, "sunset-89912b0205cda7.png"),
            ("Sunset", 66, "sunset-\(digest).png"),
        ]
        for (title, length, expected) in cases {
            #expect(
                FileNamer.fileName(key: key, title: title, sha256: sha256, format: .png, hashLength: length) == expected)
        }
    }

    @Test("the ASCII slug is the Unicode slug, for every ASCII text")
    func asciiSlug() {
        // SplitMix64 with a fixed seed: the same texts on every run.
        struct SplitMix: RandomNumberGenerator {
            var state: UInt64 = 0x5EED
            mutating func next() -> UInt64 {
                state &+= 0x9E37_79B9_7F4A_7C15
                var z = state
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
        }
        var generator = SplitMix()
        var texts = [
            "", "-", "Smiling Face", "  --Photo 01__final (2).JPG  ", String(repeating: "Ab1 ", count: 40),
            String(repeating: "x", count: 47) + "-y", "\u{0}\u{7F}\t\n", "ALL CAPS, and: punctuation!?",
        ]
        // Every byte value below 0x80, in texts of many lengths.
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<70, using: &generator)
            texts.append(
                String(decoding: (0..<length).map { _ in UInt8.random(in: 0..<0x80, using: &generator) }, as: UTF8.self))
        }
        for text in texts {
            #expect(FileNamer.slugifyASCII(text.utf8) == FileNamer.slugifyUnicode(text), "\(text.debugDescription)")
        }
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
