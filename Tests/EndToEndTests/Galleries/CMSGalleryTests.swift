import AsyncHTTPClient
import Foundation
import MirrorTestSupport
import Testing

/// Issue 36: galleries people run on a CMS. WordPress 6.1 (MariaDB, dated permalinks) with a block
/// theme and with a classic theme, and MediaWiki 1.39 (SQLite, ImageMagick thumbnails,
/// `/wiki/$1`), installed from Debian's packages without a browser and filled with 25 real
/// photographs (`Scripts/cms/`), mirrored by the built binary as a new user would: from the home
/// page with no flag, with `--variants largest`, and with `--max-depth 1` from each gallery page.
/// Serialized: each test runs a whole web application beside the mirror, on two cores.
@Suite("CMSGalleryTests", .tags(.cmsGalleries), .serialized)
struct CMSGalleryTests {
    @Test("each CMS fixture serves every photo, photo page and furniture image its truth names", arguments: CMSSite.all)
    func fixtureMatchesItsTruth(name: String) async throws {
        try await CMSSite.with(name) { site in
            let truth = site.truth
            #expect(truth.photos.count == 25, "\(name): \(truth.photos.count) photos")
            #expect(Set(truth.photos.map(\.original)).count == truth.photos.count, "\(name): two photos share a file")
            #expect(!truth.furniture.isEmpty, "\(name): the truth names no furniture image")
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            do {
                for photo in truth.photos {
                    #expect(photo.renditions.last == photo.original, "\(name): \(photo.id) lists its file last")
                    #expect(photo.albums.first == photo.album && !photo.albums.contains(photo.page))
                    #expect(try await contentType(client, site.url(photo.original)) == "image/jpeg", "\(name): \(photo.original)")
                    #expect(
                        try await contentType(client, site.url(photo.page))?.hasPrefix("text/html") == true,
                        "\(name): \(photo.page)")
                }
                for path in truth.furniture {
                    #expect(try await contentType(client, site.url(path))?.hasPrefix("image/") == true, "\(name): \(path)")
                }
                for gallery in truth.galleries {
                    #expect(
                        try await contentType(client, site.url(gallery.path))?.hasPrefix("text/html") == true,
                        "\(name): \(gallery.path)")
                }
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }

    @Test(
        "from the home page with no flag: every original, titles and albums as the site gives them, no furniture, exit 0 twice",
        arguments: CMSSite.all)
    func mirrorsFromTheHomePage(name: String) async throws {
        try await CMSSite.with(name) { site in
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let mirror = directory.url.appendingPathComponent("mirror")
            let arguments = ["sync", site.url(site.truth.start), "--out", mirror.path]
            let first = try await Binary.run(arguments, in: directory.url)
            let checks = CMSChecks(site: site, mirror: mirror, run: first)
            #expect(first.status == 0, "\(name): the first sync exited \(first.status)\(checks.summary)")
            checks.record(checks.originalProblems(site.truth.photos))
            checks.record(checks.furnitureProblems())
            checks.record(checks.titleProblems(site.truth.photos))
            checks.record(checks.albumProblems(site.truth.photos))
            checks.record(checks.renditionProblems())
            let second = try await Binary.run(arguments, in: directory.url)
            let again = CMSChecks(site: site, mirror: mirror, run: second)
            #expect(second.status == 0, "\(name): the second, no-op sync exited \(second.status)\(again.summary)")
            again.record(again.originalProblems(site.truth.photos).map { "after the second sync: " + $0 })
        }
    }

    @Test("--variants largest keeps each photo's original and nothing smaller, and exits 0", arguments: CMSSite.all)
    func keepsTheOriginals(name: String) async throws {
        try await CMSSite.with(name) { site in
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let mirror = directory.url.appendingPathComponent("mirror")
            let result = try await Binary.run(
                ["sync", site.url(site.truth.start), "--out", mirror.path, "--variants", "largest"], in: directory.url)
            let checks = CMSChecks(site: site, mirror: mirror, run: result)
            #expect(result.status == 0, "\(name): sync --variants largest exited \(result.status)\(checks.summary)")
            checks.record(checks.originalProblems(site.truth.photos))
            checks.record(checks.furnitureProblems())
            for photo in site.truth.photos {
                guard let largest = checks.largest(photo) else { continue }
                let smaller = checks.published(photo).filter { $0 != largest }.map(checks.path)
                if !smaller.isEmpty {
                    checks.record([
                        "\(photo.id): --variants largest kept \(smaller.joined(separator: ", ")) besides \(checks.path(largest))"
                    ])
                }
            }
        }
    }

    @Test(
        "--max-depth 1 from each gallery page: its photos' originals, titles, the page as their album, exit 0",
        arguments: CMSSite.all)
    func mirrorsEachGalleryPage(name: String) async throws {
        try await CMSSite.with(name) { site in
            for gallery in site.truth.galleries {
                let directory = try TemporaryDirectory()
                defer { directory.cleanup() }
                let mirror = directory.url.appendingPathComponent("mirror")
                let result = try await Binary.run(
                    ["sync", site.url(gallery.path), "--out", mirror.path, "--max-depth", "1"], in: directory.url)
                let checks = CMSChecks(site: site, mirror: mirror, run: result, context: "from \(gallery.path)")
                #expect(
                    result.status == 0,
                    "\(name): sync --max-depth 1 from \(gallery.path) exited \(result.status)\(checks.summary)")
                let photos = site.truth.photos.filter { gallery.photos.contains($0.id) }
                checks.record(checks.originalProblems(photos))
                checks.record(checks.furnitureProblems())
                checks.record(checks.titleProblems(photos, titles: gallery.titles))
                for photo in photos {
                    guard let key = checks.largest(photo), let item = checks.items[key] else { continue }
                    if item.album != site.url(gallery.path) {
                        checks.record([
                            "\(photo.id): album is \(item.album ?? "missing"), expected the start page \(gallery.path)"
                        ])
                    }
                }
            }
        }
    }

    /// The Content-Type `url` answers with (its body read and dropped).
    private func contentType(_ client: HTTPClient, _ url: String) async throws -> String? {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
        _ = try await response.body.collect(upTo: 64 << 20)
        return response.status.code == 200 ? response.headers.first(name: "content-type") : "HTTP \(response.status.code)"
    }
}
