import Foundation
import MirrorTestSupport
import Testing

@testable import CatalogMirror
@testable import MirrorCrawl
@testable import MirrorFetch
@testable import MirrorStore

@Suite("Saved settings")
struct SettingsTests {
    @Test("a missing file is no settings; a saved one loads back")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        #expect(try SettingsStore.load(layout) == nil)
        var settings = MirrorSettings(source: "http://h/gallery/")
        settings.include = ["*.png"]
        (settings.maxSize, settings.maxDocumentSize) = (1 << 20, 1 << 28)
        try SettingsStore.save(settings, layout)
        #expect(try SettingsStore.load(layout) == settings)
    }

    @Test(
        "missing keys take defaults; bad files are errors that name the file",
        arguments: [
            (#"{"source": "http://h/"}"#, nil),
            (#"{"source": "HTTP://H:80/#x", "unknownFutureKey": 1}"#, nil),
            ("not json", "is not a JSON object"),
            ("", "is not a JSON object"),
            (#"{"version": 99, "source": "http://h/"}"#, "has version 99"),
            (#"{"maxPages": 3}"#, "has no \"source\""),
            (#"{"source": "http://h/", "maxPages": "three"}"#, "wrong type"),
            (#"{"source": "ftp://h/"}"#, "unusable source"),
        ])
    func loading(text: String, problem: String?) throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        try FileManager.default.createDirectory(at: layout.state, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: layout.settings)
        do {
            let settings = try SettingsStore.load(layout)
            #expect(problem == nil)
            #expect(settings?.source == "http://h/")
        } catch {
            let problem = try #require(problem, "unexpected error \(error)")
            #expect(error.message.contains(problem))
            #expect(error.message.contains(layout.settings.path))
            #expect(!error.message.contains("\n"))
        }
    }

    @Test("given options override saved ones; a given list replaces the saved list")
    func overriding() throws {
        var saved = MirrorSettings(source: "http://h/")
        saved.include = ["a", "b"]
        saved.maxPages = 5
        var given = MirrorSettings(source: "http://h/")
        given.include = ["c"]
        given.netrc = true
        given.noCheckCertificate = false
        given.maxSize = 1 << 40
        given.rate = 0.5
        saved.netrc = false
        saved.maxDelete = .count(3)
        saved.crawlScope = .host
        let merged = try saved.overridden(by: given)
        #expect(merged.include == ["c"])
        #expect(merged.maxPages == 5)
        // Every kind of field survives the merge (it goes through the JSON encoding).
        #expect(merged.netrc == true && merged.noCheckCertificate == false)
        #expect(merged.maxSize == 1 << 40 && merged.rate == 0.5)
        #expect(merged.maxDelete == .count(3) && merged.crawlScope == .host)
        #expect(merged.version == MirrorSettings.currentVersion)
        // A given empty list is a list given: it replaces the saved one.
        given.include = []
        #expect(try saved.overridden(by: given).include == [])
    }

    /// Stands in for the CLI's option groups: a value encoding under the settings' field names,
    /// null for an option not given, and keys that name no field.
    struct GivenOptions: Encodable {
        var maxPages: Int?
        var include: [String]?
        var netrc: Bool?
        var dryRun = true
    }

    @Test("options decode into the settings by field name: null is not given, other keys are ignored, later parts win")
    func given() throws {
        let first = GivenOptions(maxPages: 3, include: ["*.png"], netrc: true)
        let second = GivenOptions(maxPages: 9, include: nil, netrc: nil)
        let settings = try MirrorSettings(source: "http://h/", given: [first, second])
        var expected = MirrorSettings(source: "http://h/")
        (expected.maxPages, expected.include, expected.netrc) = (9, ["*.png"], true)
        #expect(settings == expected)
        #expect(try MirrorSettings(source: "http://h/", given: []) == MirrorSettings(source: "http://h/"))
    }

    @Test("the configuration takes each given field, clamps what is out of range, and names a bad saved value")
    func configuration() throws {
        var settings = MirrorSettings(source: "http://h/gallery/")
        (settings.maxPages, settings.concurrency, settings.allowHost, settings.ignoreRobots) = (0, 999, ["cdn.h"], true)
        (settings.speedTime, settings.maxDocumentSize) = (5, 10)
        let configuration = try MirrorConfiguration(settings: settings, output: URL(fileURLWithPath: "/m"), environment: [:])
        #expect(configuration.crawl.maxPages == 1 && configuration.fetch.concurrency == 256)
        #expect(configuration.fetch.maxDocumentBytes == 1 << 16)
        #expect(configuration.validation.allowedHosts == ["cdn.h"] && !configuration.validation.honourRobots)
        #expect(configuration.fetch.lowSpeed == LowSpeedLimit(bytesPerSecond: 1024, duration: .seconds(5)))
        // Not given: the stage's default.
        #expect(configuration.crawl.maxDepth == CrawlConfiguration().maxDepth)
        settings.feed = "ftp://h/feed"
        #expect {
            _ = try MirrorConfiguration(settings: settings, output: URL(fileURLWithPath: "/m"), environment: [:])
        } throws: { error in
            "\(error)".contains("the feed \"ftp://h/feed\" is not an http or https URL")
        }
    }

    @Test("a file without a version still loads, and is saved with the current one")
    func versionless() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        try FileManager.default.createDirectory(at: layout.state, withIntermediateDirectories: true)
        try Data(#"{"source": "http://h/", "maxPages": 7}"#.utf8).write(to: layout.settings)
        let loaded = try #require(try SettingsStore.load(layout))
        #expect(loaded.maxPages == 7 && loaded.include == nil)
        let merged = try loaded.overridden(by: MirrorSettings(source: "http://h/"))
        #expect(merged.version == MirrorSettings.currentVersion && merged.maxPages == 7)
    }

    @Test("--metrics is a saved setting; an empty one turns a saved file off")
    func metricsSetting() throws {
        var settings = MirrorSettings(source: "http://h/gallery/")
        settings.metrics = "/var/lib/prometheus/node-exporter/gallery.prom"
        let output = URL(fileURLWithPath: "/srv/gallery")
        let configured = try MirrorConfiguration(settings: settings, output: output, environment: [:])
        #expect(configured.metricsFile?.path == "/var/lib/prometheus/node-exporter/gallery.prom")
        let off = try MirrorConfiguration(
            settings: settings.overridden(
                by: {
                    var given = MirrorSettings(source: settings.source); given.metrics = ""; return given
                }()),
            output: output, environment: [:])
        #expect(off.metricsFile == nil)
        #expect(
            try MirrorConfiguration(settings: MirrorSettings(source: settings.source), output: output, environment: [:])
                .metricsFile == nil)
    }
}
