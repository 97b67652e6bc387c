import Foundation
import MirrorTestSupport
import Testing

/// Issue 45, "a photo is its pixels": galleries of real photographs where a site's structure
/// proposes images as one photo (or hides a photo) and only the pixels can say. igal2 3.x and
/// jigl 2.0.1 preload the next photo in a script on each photo page (the tool chained every photo
/// into one); the hand-written ones (`Scripts/handwritten.py`) crop, rename, hide a photo in
/// `data-bg`, list photos as Apache does and title them with path-like and markup-like text.
///
/// `GeneratedGalleryTests` runs these galleries with no flag like every other fixture gallery;
/// this suite adds `--variants largest` and the checks that only some of them need.
@Suite("PixelGalleryTests", .tags(.generatedGalleries))
struct PixelGalleryTests {
    @Test(
        "--variants largest keeps each photo's largest rendition and nothing smaller, no decoration, and exits 0",
        arguments: GalleryFixtures.pixelGalleries.filter(GalleryFixtures.all.contains))
    func keepsTheLargest(name: String) async throws {
        let (site, truth) = try await GalleryFixtures.gallery(name)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = StaticSiteServer(directory: site, mount: GalleryFixtures.mount(name))
        try await server.run { base in
            let mirror = directory.url.appendingPathComponent("mirror")
            let result = try await Binary.run(
                ["sync", base + truth.start, "--out", mirror.path, "--variants", "largest"], in: directory.url)
            let summary = Self.summary(mirror: mirror, run: result)
            print("\(name) --variants largest: exit \(result.status)\(summary)")
            #expect(result.status == 0, "\(name): sync --variants largest exited \(result.status)\(summary)")
            let manifest = try #require(try? MirrorManifest(mirror: mirror), "\(name): no manifest.json\(summary)")
            let items = Dictionary(manifest.items.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            let key = { (path: String) in base + path }
            var found = 0
            var problems: [String] = []
            for photo in truth.photos {
                let smaller = (photo.renditions + photo.optional).filter { $0 != photo.largest && items[key($0)] != nil }
                if !smaller.isEmpty {
                    problems.append("\(photo.id): --variants largest kept \(smaller.joined(separator: ", ")) besides its largest")
                }
                guard let item = items[key(photo.largest)] else {
                    problems.append(
                        "\(photo.id): its largest rendition \(photo.largest) is not published"
                            + (smaller.isEmpty ? "" : " (published instead: \(smaller.joined(separator: ", ")))"))
                    continue
                }
                found += 1
                if let variantOf = item.variantOf { problems.append("\(photo.id): the largest has variantOf \(variantOf)") }
                if let title = photo.title, item.title != title {
                    problems.append("\(photo.id): title is \(item.title.map { "\"\($0)\"" } ?? "missing"), expected \"\(title)\"")
                }
            }
            let allowed = Set(truth.photos.flatMap { $0.renditions + $0.optional }.map(key) + truth.extras.map(key))
            let decorations = Set(truth.decorations.map(key))
            for item in manifest.items where !allowed.contains(item.key) {
                problems.append(
                    decorations.contains(item.key)
                        ? "published \(item.key), a decoration of the site"
                        : "published \(item.key), which is no photo of the source")
            }
            #expect(found == truth.photos.count, "\(name): \(found) of \(truth.photos.count) largest renditions published")
            for problem in problems.prefix(40) { Issue.record("\(name): \(problem)") }
        }
    }

    @Test(
        "each photo page of the preloading galleries preloads another photo in an inline script",
        arguments: ["igal2", "igal2-slides", "jigl", "preload-script"].filter(GalleryFixtures.all.contains))
    func fixturePreloadsTheNextPhoto(name: String) async throws {
        // What issue 45 is about, kept true of the fixtures: were a generator's next version to
        // drop its preload, these galleries would no longer test anything.
        let (site, truth) = try await GalleryFixtures.gallery(name)
        var owner: [String: String] = [:]
        for photo in truth.photos {
            for path in photo.renditions + photo.optional { owner[(path as NSString).lastPathComponent] = photo.id }
        }
        var preloaded: [(page: String, shown: Set<String>, next: String)] = []
        let files = FileManager.default.enumerator(at: site, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            // Not igal2's own templates (.slidetemplate2.html), which no page links.
            guard file.pathExtension == "html", !file.lastPathComponent.hasPrefix("."),
                let text = try? String(contentsOf: file, encoding: .utf8)
            else { continue }
            guard let match = text.firstMatch(of: /new Image\(\);\s*\w+\.src\s*=\s*"([^"]+)"/) else { continue }
            let next = String(match.1).removingPercentEncoding ?? String(match.1)
            let shown = text.matches(of: /(?i)<img src="([^"]+)"/).map {
                ((String($0.1).removingPercentEncoding ?? String($0.1)) as NSString).lastPathComponent
            }
            preloaded.append((file.lastPathComponent, Set(shown.compactMap { owner[$0] }), (next as NSString).lastPathComponent))
        }
        #expect(preloaded.count >= truth.photos.count, "\(name): \(preloaded.count) pages preload a photo")
        for page in preloaded {
            guard let next = owner[page.next] else {
                Issue.record("\(name): \(page.page) preloads \(page.next), no photo's rendition")
                continue
            }
            #expect(!page.shown.contains(next), "\(name): \(page.page) preloads its own photo \(page.next)")
            #expect(page.shown.count == 1, "\(name): \(page.page) shows \(page.shown.count) photos")
        }
        #expect(Set(preloaded.compactMap { owner[$0.next] }).count == truth.photos.count, "\(name): not every photo is preloaded")
    }

    @Test(
        "titles that look like paths or markup are kept verbatim, write nothing outside the mirror and stay text",
        .enabled(if: GalleryFixtures.all.contains("hostile-listing")))
    func hostileTitles() async throws {
        let name = "hostile-listing"
        let (site, truth) = try await GalleryFixtures.gallery(name)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        // The mirror sits three folders down: "../../../../cm-escape-3" taken as a path from any
        // folder of it lands inside `directory`, where the test looks for it.
        let mirror = directory.url.appendingPathComponent("a/b/c/mirror")
        try FileManager.default.createDirectory(at: mirror.deletingLastPathComponent(), withIntermediateDirectories: true)
        let server = StaticSiteServer(directory: site, mount: GalleryFixtures.mount(name))
        try await server.run { base in
            let result = try await Binary.run(["sync", base + truth.start, "--out", mirror.path], in: directory.url)
            let summary = Self.summary(mirror: mirror, run: result)
            print("\(name): exit \(result.status)\(summary)")
            #expect(result.status == 0, "\(name): sync exited \(result.status)\(summary)")
            let manifest = try #require(try? MirrorManifest(mirror: mirror), "\(name): no manifest.json\(summary)")
            for photo in truth.photos {
                guard let title = photo.title else { continue }
                let item = manifest.items.first { $0.key == base + photo.largest }
                #expect(item != nil, "\(name): \(photo.largest) is not published")
                if let item {
                    #expect(
                        item.title == title,
                        "\(name): \(photo.largest) is titled \(item.title.debugDescription), expected \(title.debugDescription)")
                }
            }
            for item in manifest.items {
                #expect(
                    item.path.hasPrefix("images/") && !item.path.contains(".."), "\(name): \(item.key) is written at \(item.path)"
                )
            }
            // Nothing named after a title anywhere in the test's directory but inside the mirror.
            var escaped: [String] = []
            var pages: [URL] = []
            let files = FileManager.default.enumerator(at: directory.url, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                let path = file.standardizedFileURL.path
                let inside = path.hasPrefix(mirror.standardizedFileURL.path + "/")
                if file.lastPathComponent.contains("cm-escape") && !inside { escaped.append(path) }
                if inside, ["html", "js", "atom"].contains(file.pathExtension) { pages.append(file) }
            }
            #expect(escaped.isEmpty, "\(name): files written outside the mirror: \(escaped)")
            // The catalog's text is escaped on output: no generated page or script holds it as markup.
            for page in pages {
                let text = (try? String(contentsOf: page, encoding: .utf8)) ?? ""
                for markup in ["<img src=x onerror", "<script>alert(2)"] where text.contains(markup) {
                    Issue.record("\(name): \(page.lastPathComponent) holds \(markup) unescaped")
                }
            }
        }
    }

    /// What a run said and rejected, for a message: its last lines of standard error, the items
    /// published and the rejected keys counted by reason.
    static func summary(mirror: URL, run: Binary.Result) -> String {
        let lines = run.stderr.split(separator: "\n").suffix(4).joined(separator: " | ")
        let data = try? Data(contentsOf: mirror.appendingPathComponent("manifest.json"))
        let rejected = data.flatMap { try? JSONDecoder().decode(Rejected.self, from: $0) }?.rejected ?? []
        let items = (try? MirrorManifest(mirror: mirror))?.items.count ?? 0
        var reasons: [String: Int] = [:]
        for entry in rejected { reasons[entry.reason, default: 0] += 1 }
        let counted = reasons.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return ": \(lines.suffix(600)); \(items) items; rejected: \(counted.isEmpty ? "none" : counted)"
    }

    private struct Rejected: Decodable {
        struct Entry: Decodable {
            var key: String
            var reason: String
        }

        var rejected: [Entry]
    }
}
