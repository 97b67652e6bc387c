import Foundation
import MirrorTestSupport
import Testing

extension ExternalTool {
    /// Playwright and axe-core for python3, as `.ci/run` installs them.
    static let playwright = ExternalTool(
        name: "Playwright and axe-playwright-python", executable: "python3",
        install: "python3 -m pip install playwright==1.65.2 axe-playwright-python==0.1.8",
        probe: ["-c", "import playwright.sync_api, axe_playwright_python"])
    /// Debian's Chromium, which Playwright drives (no browser is downloaded).
    static let chromium = ExternalTool(name: "chromium", executable: "chromium", install: "apt-get install chromium")
}

/// Issue 26: the generated site tried as a person would, in real Chromium: the photo view
/// (click, ←/→, Esc and focus, its own URL in a fresh tab, Back), search, the keyboard alone,
/// 375 px, no request outside the mirror, no console error, axe-core. The checks themselves are
/// `Tests/Browser/site_test.py` (Playwright driving `/usr/bin/chromium`), run here on mirrors of
/// the sample gallery (`demo`), a sigal (PhotoSwipe theme) gallery and a lazygal gallery, from
/// `file://` and over HTTP.
@Suite("BrowserTests", .tags(.generatedGalleries))
struct BrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Browser/site_test.py")

    @Test(
        "photo view, search, Back, keyboard, 375 px and axe-core in Chromium on the sample, sigal and lazygal mirrors, and EXIF in the photo view"
    )
    func browser() async throws {
        try ExternalTool.require(.playwright, .chromium)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        var mirrors: [String] = []
        let sample = directory.url.appendingPathComponent("sample")
        let demo = try await Binary.run(["demo", "--out", sample.path, "--quiet"], in: directory.url)
        try #require(demo.status == 0, "demo exited \(demo.status): \(demo.stderr.suffix(600))")
        mirrors.append("sample=\(sample.path)")
        for name in ["sigal-photoswipe", "lazygal"] {
            let (site, truth) = try await GalleryFixtures.gallery(name)
            let mirror = directory.url.appendingPathComponent(name)
            let server = StaticSiteServer(directory: site, mount: GalleryFixtures.mount(name))
            let result = try await server.run { base in
                try await Binary.run(["sync", base + truth.start, "--out", mirror.path, "--quiet"], in: directory.url)
            }
            try #require(result.status == 0, "\(name): sync exited \(result.status): \(result.stderr.suffix(600))")
            #expect(try unresolvedReferences(in: mirror) == [], "\(name)")
            mirrors.append("\(name)=\(mirror.path)")
        }
        // Photos whose files say when, with what and where they were taken (issue 39): the photo
        // view's details, the order by date and search by keyword, camera and year.
        let exif = directory.url.appendingPathComponent("exif")
        let exifSite = try await EmbeddedMetadataSyncTests.gallery(in: directory.url.appendingPathComponent("exif-source"))
        let exifSync = try await StaticSiteServer(directory: exifSite, mount: "/").run { base in
            try await Binary.run(["sync", base + "gallery/", "--out", exif.path, "--quiet"], in: directory.url)
        }
        try #require(exifSync.status == 0, "exif: sync exited \(exifSync.status): \(exifSync.stderr.suffix(600))")
        mirrors.append("exif=\(exif.path)")
        let python = try ExternalTool.playwright.required()
        _ = try ExternalTool.chromium.required()
        // SITE_SCREENSHOTS=DIR keeps the screenshots (start page, album, photo view, search, dark
        // mode, 375 px) of the file:// runs, to look at.
        let shots = ProcessInfo.processInfo.environment["SITE_SCREENSHOTS"].map { ["--screenshots", $0] } ?? []
        let run = try await ExternalTool.run(python, [Self.script.path] + shots + mirrors)
        let failures = run.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") || $0.hasPrefix("missing") }
        #expect(
            run.status == 0, "site_test.py exited \(run.status): \(failures.joined(separator: "\n")) \(run.stderr.suffix(2000))")
        #expect(run.stdout.contains(" passed, 0 failed"), "\(run.stdout.suffix(3000))")
    }
}
