import Foundation
import MirrorTestSupport
import Testing

extension Tag {
    /// Tests that mirror real CMS installs (WordPress and MediaWiki from Debian's packages, run by
    /// `Scripts/cms/cms_site.py`): `swift test --filter CMSGalleryTests`.
    @Tag static var cmsGalleries: Self
}

/// What a mirror of one CMS fixture must hold, as `Scripts/cms/cms_site.py` writes it (its
/// docstring says each field). Every URL is a path from the site's origin ("/...").
struct CMSTruth: Decodable, Sendable {
    /// One photo of the site.
    struct Photo: Decodable, Sendable {
        var id: String
        /// The photo's own title as the site shows it (caption, figcaption, alt text, its page's title).
        var title: String?
        /// Which markup holds `title` (for messages).
        var titleFrom: String?
        /// The page the photo belongs to (its post, its gallery page).
        var album: String
        /// Every page that may be its album (`album` first).
        var albums: [String]
        /// The largest file the site links for the photo.
        var original: String
        /// A larger file of the photo that no page links but an API names (WordPress's unscaled
        /// upload, when the site links its `-scaled` copy): a mirror may keep it as the photo's
        /// largest file instead of `original`.
        var fullSize: String?
        /// Every URL the site's pages link for the photo, smallest first, `original` last.
        var renditions: [String]
        /// A regular expression matching the path of every file of the photo (WordPress's `-WxH`
        /// sizes and `-scaled` copy, MediaWiki's `/thumb/.../Npx-` thumbnails), linked or not.
        var family: String
        /// The photo's own page (attachment page, file page): never an album.
        var page: String
    }

    /// A page that shows photos as its content: a `--max-depth 1` start.
    struct Gallery: Decodable, Sendable {
        var path: String
        var title: String
        var photos: [String]
        /// Each photo's title as this page and the photo's own page show it (a category names
        /// files by their names, where the gallery page shows captions).
        var titles: [String: String]
    }

    var name: String
    var application: String
    var siteTitle: String
    var start: String
    var galleries: [Gallery]
    var photos: [Photo]
    var photoPages: [String]
    /// Images that are not photos (logos, badges, site icons): never published.
    var furniture: [String]
    var notes: [String]
}

/// One running copy of a CMS fixture: `cms_site.py serve` builds the site's template once (cached
/// under the system temporary directory while the scripts and the packages stay the same), starts a
/// private copy of it (MariaDB or SQLite, PHP's web server) on 127.0.0.1 and an ephemeral port, and
/// stops every process it started when its standard input closes, which `with(_:_:)` does when the
/// body returns, and the kernel does when the test process dies.
struct CMSSite: Sendable {
    /// The sites: WordPress with a block theme and with a classic theme, and MediaWiki; or those
    /// named in `CMS_SITES` (comma-separated), to look at one:
    /// `CMS_SITES=mediawiki swift test --filter CMSGalleryTests`.
    static let all: [String] = {
        let every = ["wordpress-block", "wordpress-classic", "mediawiki"]
        guard let chosen = ProcessInfo.processInfo.environment["CMS_SITES"]?.split(separator: ",").map(String.init),
            !chosen.isEmpty
        else { return every }
        return every.filter(chosen.contains)
    }()

    let name: String
    /// `http://127.0.0.1:PORT`, without the final slash.
    let origin: String
    let truth: CMSTruth

    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Scripts/cms")

    /// What running site `name` needs: python3 with PHP and ImageMagick, the application's
    /// packages, and the wallpaper packages its photographs come from.
    static func tools(_ name: String) -> [ExternalTool] {
        let application: [ExternalTool] = name == "mediawiki" ? [.mediaWiki] : [.wordPress, .mariaDB]
        return [.python3, .php, .imageMagick] + application + [.wallpapers]
    }

    /// Runs `body` with site `name` served, in a temporary directory removed afterwards; skips
    /// the test (fails it under CI) when a package it needs is missing.
    static func with<T: Sendable>(_ name: String, _ body: (CMSSite) async throws -> T) async throws -> T {
        try ExternalTool.require(tools(name))
        _ = buildAll
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try ExternalTool.python3.required())
        process.arguments = [
            scripts.appendingPathComponent("cms_site.py").path, "serve", name, directory.url.appendingPathComponent("site").path,
        ]
        let input = Pipe()
        let output = Pipe()
        let errors = directory.url.appendingPathComponent("cms_site.log")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errors)
        let exited = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { process in
            exited.continuation.yield(process.terminationStatus)
            exited.continuation.finish()
        }
        try process.run()
        // Closing standard input is the stop signal: cms_site.py then stops MariaDB and PHP.
        func stop() async {
            try? input.fileHandleForWriting.close()
            var iterator = exited.stream.makeAsyncIterator()
            _ = await iterator.next()
        }
        let line = await Binary.readLine(output.fileHandleForReading)
        guard let line, let ready = try? JSONDecoder().decode(Ready.self, from: Data(line.utf8)) else {
            await stop()
            let log = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            if process.terminationStatus == 3, let missing = log.split(separator: "\n").last(where: { $0.hasPrefix("missing:") })
            {
                try ExternalTool.skip(because: "needs " + missing.dropFirst("missing: ".count))
            }
            throw FixtureError("cms_site.py serve \(name) exited \(process.terminationStatus): \(log.suffix(1200))")
        }
        do {
            let truth = try JSONDecoder().decode(CMSTruth.self, from: Data(contentsOf: URL(fileURLWithPath: ready.truth)))
            let result = try await body(CMSSite(name: name, origin: ready.origin, truth: truth))
            await stop()
            return result
        } catch {
            await stop()
            throw error
        }
    }

    /// Builds the template of every site whose packages are installed, side by side, the first
    /// time a test asks for a site: WordPress's (PHP resizing photos) and MediaWiki's (ImageMagick)
    /// then share the two cores while the first tests run. A site's `serve` waits for its own
    /// template (`cms_site.py` locks each one), so nothing waits for this task.
    private static let buildAll = Task<Void, Never> {
        await withTaskGroup(of: Void.self) { group in
            for name in all where tools(name).allSatisfy({ $0.path != nil }) {
                group.addTask {
                    guard let python = ExternalTool.python3.path,
                        let build = try? await ExternalTool.run(
                            python, [scripts.appendingPathComponent("cms_site.py").path, "build", name])
                    else { return }
                    // "built NAME in N s" for each template this run had to build (none when cached).
                    for line in build.stderr.split(separator: "\n") where line.hasPrefix("built ") {
                        print("CMS fixture \(line) under \(FileManager.default.temporaryDirectory.path)")
                    }
                }
            }
        }
    }

    /// The absolute URL of `path` on this site.
    func url(_ path: String) -> String { origin + path }

    private struct Ready: Decodable {
        var origin: String
        var truth: String
    }
}

extension Binary {
    /// The first line `handle` gives (nil at its end before one), read on a thread of its own
    /// (see `readToEnd(_:)`); the rest of its output is left unread.
    static func readLine(_ handle: FileHandle) async -> String? {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                var line: [UInt8] = []
                var byte: UInt8 = 0
                while true {
                    let count = read(handle.fileDescriptor, &byte, 1)
                    if count == 1 {
                        if byte == UInt8(ascii: "\n") { break }
                        line.append(byte)
                    } else if count == 0 || errno != EINTR {
                        break
                    }
                }
                continuation.resume(returning: line.isEmpty ? nil : String(decoding: line, as: UTF8.self))
            }
            thread.start()
        }
    }
}

extension ExternalTool {
    /// python3, which runs the CMS fixtures' scripts.
    static let python3 = ExternalTool(name: "python3", executable: "python3", install: "apt-get install python3")
    /// PHP's command line and built-in web server, which run WordPress and MediaWiki.
    static let php = ExternalTool(name: "PHP", executable: "php", install: "apt-get install php-cli")
    /// MariaDB's server, WordPress's database.
    static let mariaDB = ExternalTool(name: "MariaDB", executable: "mariadbd", install: "apt-get install mariadb-server")
    /// Debian's WordPress with the two themes the fixtures use and the PHP modules it needs.
    static let wordPress = ExternalTool(
        name: "WordPress", executable: "php",
        install:
            "apt-get install wordpress wordpress-theme-twentytwentythree wordpress-theme-twentytwentyone php-mysql php-gd",
        probe: [
            "-r",
            """
            exit(is_file('/usr/share/wordpress/wp-settings.php') && is_dir('/usr/share/wordpress/wp-content/themes/twentytwentythree') \
            && is_dir('/usr/share/wordpress/wp-content/themes/twentytwentyone') && extension_loaded('mysqli') \
            && extension_loaded('gd') ? 0 : 1);
            """,
        ])
    /// Debian's MediaWiki with the PHP modules it needs on SQLite.
    static let mediaWiki = ExternalTool(
        name: "MediaWiki", executable: "php", install: "apt-get install mediawiki php-sqlite3 php-intl php-mbstring php-xml",
        probe: [
            "-r",
            """
            exit(is_file('/usr/share/mediawiki/maintenance/install.php') && extension_loaded('pdo_sqlite') \
            && extension_loaded('intl') && extension_loaded('mbstring') && extension_loaded('xml') ? 0 : 1);
            """,
        ])
    /// The real photographs the CMS fixtures are filled with.
    static let wallpapers = ExternalTool(
        name: "wallpaper photographs", executable: "php", install: "apt-get install mate-backgrounds lomiri-wallpapers-16.04",
        probe: [
            "-r",
            """
            exit(is_file('/usr/share/backgrounds/mate/nature/Storm.jpg') \
            && is_file('/usr/share/backgrounds/sunset_by_Aitzol_Berasategi.jpg') ? 0 : 1);
            """,
        ])
}
