import Foundation
import MirrorTestSupport
import Testing

@testable import CatalogMirror
@testable import MirrorCore

/// What photos say about themselves, through whole syncs of the built binary: real photographs
/// (Debian's MATE wallpapers, with their cameras' EXIF) and one whose IPTC title, caption,
/// keywords and GPS position exiftool wrote, served by a static server as a plain gallery page.
@Suite("Embedded metadata, end to end")
struct EmbeddedMetadataSyncTests {
    /// Where the harbour photo was taken, as exiftool is told: 43.2965 N, 5.3698 E.
    static let latitude = "43.2965"
    static let longitude = "5.3698"

    /// A gallery of three photos: `blinds.jpg` (the page titles it; its EXIF is a Canon EOS
    /// 350D's, 2008-01-22), `harbour.jpg` (no title on the page; IPTC title, caption, keywords,
    /// copyright and a GPS position written by exiftool into a copy of another wallpaper), and
    /// `aqua.jpg` (neither: a title from its name).
    static func gallery(in directory: URL) async throws -> URL {
        try ExternalTool.require(.exiftool, .mateBackgrounds)
        let site = directory.appendingPathComponent("site/gallery")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        let wallpapers = "/usr/share/backgrounds/mate/nature/"
        for (name, file) in [("blinds.jpg", "Blinds.jpg"), ("harbour.jpg", "Storm.jpg"), ("aqua.jpg", "Aqua.jpg")] {
            try FileManager.default.copyItem(
                atPath: wallpapers + file, toPath: site.appendingPathComponent(name).path)
        }
        let written = try await ExternalTool.exiftool.run([
            "-q", "-overwrite_original", "-IPTC:ObjectName=Harbour at dusk",
            "-IPTC:Caption-Abstract=Boats back in before the storm", "-IPTC:Keywords=harbour", "-IPTC:Keywords=storm",
            "-IPTC:CopyrightNotice=© 2008 A. Photographer", "-GPSLatitude=\(latitude)", "-GPSLatitudeRef=N",
            "-GPSLongitude=\(longitude)", "-GPSLongitudeRef=E", site.appendingPathComponent("harbour.jpg").path,
        ])
        #expect(written.status == 0, "\(written.stderr)")
        let page = """
            <!DOCTYPE html><html><head><title>Wallpapers</title></head><body>
            <h1>Wallpapers</h1>
            <figure><img src="blinds.jpg" alt="Blinds in the sun"><figcaption>Blinds in the sun</figcaption></figure>
            <figure><img src="harbour.jpg"></figure>
            <figure><img src="aqua.jpg"></figure>
            </body></html>
            """
        try Data(page.utf8).write(to: site.appendingPathComponent("index.html"))
        return directory.appendingPathComponent("site")
    }

    static func manifest(_ output: URL) throws -> Manifest {
        try Manifest.read(from: output.appendingPathComponent("manifest.json"))
    }

    @Test(
        "the manifest carries what each file says, a photo with no title on the page shows its IPTC title, and a 304 keeps it all"
    )
    func manifestAndSite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let root = try await Self.gallery(in: directory.url)
        let server = StaticSiteServer(directory: root, mount: "/")
        let output = directory.url.appendingPathComponent("mirror")
        try await server.run { origin in
            let first = try await Binary.run(["sync", origin + "gallery/", "--out", output.path], in: directory.url)
            #expect(first.status == 0, "\(first.stderr)")
            let manifest = try Self.manifest(output)
            let items = Dictionary(
                uniqueKeysWithValues: manifest.items.map { (String($0.key.split(separator: "/").last ?? ""), $0) })
            let blinds = try #require(items["blinds.jpg"])
            #expect(blinds.title == "Blinds in the sun" && blinds.titleFrom == .page)
            #expect(blinds.taken == "2008-01-22T03:28:22")
            #expect(blinds.camera == "Canon EOS 350D DIGITAL")
            #expect(
                blinds.exposure == EmbeddedMetadata.Exposure(focalLength: 107, aperture: 5.6, exposureTime: "1/80", iso: 400))
            #expect(blinds.location == nil)
            let harbour = try #require(items["harbour.jpg"])
            #expect(harbour.title == "Harbour at dusk" && harbour.titleFrom == .file)
            #expect(harbour.metadata?["caption"] == "Boats back in before the storm" && harbour.captionFrom == .file)
            #expect(harbour.keywords == ["harbour", "storm"])
            #expect(harbour.copyright == "© 2008 A. Photographer")
            #expect(harbour.camera == "Canon EOS 400D DIGITAL" && harbour.taken == "2008-04-20T19:12:06")
            #expect(harbour.location == EmbeddedMetadata.Location(latitude: 43.2965, longitude: 5.3698))
            // GIMP's empty EXIF block says nothing, and is no problem either.
            let aqua = try #require(items["aqua.jpg"])
            #expect(aqua.title == "Aqua" && aqua.titleFrom == .name && aqua.taken == nil)
            #expect(!first.stderr.contains("warning"), "\(first.stderr)")

            let index = try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8)
            #expect(index.contains(">Harbour at dusk</span>"))
            #expect(index.contains("<dt>Camera</dt><dd>Canon EOS 350D DIGITAL</dd>"))
            #expect(index.contains("<time datetime=\"2008-01-22T03:28:22\">22 January 2008, 03:28</time>"))
            #expect(index.contains("<dt>Exposure</dt><dd>107\u{A0}mm · f/5.6 · 1/80\u{A0}s · ISO\u{A0}400</dd>"))
            #expect(index.contains("<dt>Location</dt><dd>43.29650° N, 5.36980° E</dd>"))
            #expect(index.contains("<p class=\"copyright\">© 2008 A. Photographer</p>"))
            #expect(index.contains("id=\"sort-order\""))
            let search = try String(contentsOf: output.appendingPathComponent("assets/search-index.js"), encoding: .utf8)
            #expect(search.contains("harbour storm") && search.contains("Canon EOS 350D DIGITAL") && search.contains(" 2008"))
            #expect(!search.contains(Self.latitude))

            // Again: every image answers 304, and what the files said is kept.
            let second = try await Binary.run(["sync", "--out", output.path], in: directory.url)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(try Self.manifest(output).items.map(\.embedded) == manifest.items.map(\.embedded))
            #expect(server.log.contains { $0.path.hasSuffix("blinds.jpg") && $0.status == 304 })
        }
    }

    @Test("--strip-location leaves no coordinate anywhere under DIR; a run without it puts the position back")
    func stripLocation() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let root = try await Self.gallery(in: directory.url)
        let server = StaticSiteServer(directory: root, mount: "/")
        let output = directory.url.appendingPathComponent("mirror")
        // The position as any page, script, index or manifest could spell it.
        let spellings = [Self.latitude, Self.longitude, "43.29650", "5.36980", "43,17", "43°", "43 deg", "5,22"]
        try await server.run { origin in
            let stripped = try await Binary.run(
                ["sync", origin + "gallery/", "--out", output.path, "--strip-location"], in: directory.url)
            #expect(stripped.status == 0, "\(stripped.stderr)")
            #expect(try Self.manifest(output).items.allSatisfy { $0.location == nil })
            #expect(try Self.manifest(output).items.contains { $0.keywords == ["harbour", "storm"] })
            for spelling in spellings {
                #expect(
                    filesContaining(spelling, under: output).isEmpty, "\(spelling) in \(filesContaining(spelling, under: output))"
                )
            }
            // Saved like every option: the cron form strips too.
            let cron = try await Binary.run(["sync", "--out", output.path], in: directory.url)
            #expect(cron.status == 0, "\(cron.stderr)")
            for spelling in spellings { #expect(filesContaining(spelling, under: output).isEmpty, "\(spelling)") }

            // Turned off in the saved settings: the next run reads the positions from the files again.
            let settingsFile = output.appendingPathComponent(".catalog-mirror/settings.json")
            var settings = try JSONDecoder().decode(MirrorSettings.self, from: Data(contentsOf: settingsFile))
            #expect(settings.stripLocation == true)
            settings.stripLocation = nil
            try JSONEncoder().encode(settings).write(to: settingsFile)
            let kept = try await Binary.run(["sync", "--out", output.path], in: directory.url)
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(
                try Self.manifest(output).items.contains {
                    $0.location == EmbeddedMetadata.Location(latitude: 43.2965, longitude: 5.3698)
                })
        }
    }
}
