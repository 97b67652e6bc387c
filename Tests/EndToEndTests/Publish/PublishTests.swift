import Foundation
import Hummingbird
import MirrorTestSupport
import Synchronization
import Testing

@testable import CatalogMirror
@testable import SampleGallery

/// `sync --publish s3://…` and `verify --publish` against a real SeaweedFS, through the built
/// binary as cron runs it. The counts are the store's (a counting proxy in front of it).
@Suite("Publishing to an S3 bucket (SeaweedFS)", .serialized)
struct PublishTests {
    /// A gallery that syncs cleanly (exit 0): the twelve first sample images, four a page.
    static func catalog() -> GalleryCatalog {
        var catalog = Fixture.catalog()
        catalog.entries = Array(catalog.entries.prefix(12))
        return catalog
    }

    /// Every file of the mirror outside `.catalog-mirror/`, relative to its root.
    static func files(_ mirror: URL) -> Set<String> {
        var found = Set<String>()
        let base = mirror.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: base) else { return found }
        while let path = walker.nextObject() as? String {
            if path == ".catalog-mirror" {
                walker.skipDescendants()
                continue
            }
            if walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular { found.insert(path) }
        }
        return found
    }

    /// With a store, a gallery and a temporary directory.
    func withStore(
        _ body: @Sendable (SeaweedFS, GalleryServer, URL, URL) async throws -> Void
    ) async throws {
        try ExternalTool.require(.seaweedfs)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try await SeaweedFS.start(in: directory.url)
        defer { store.stop() }
        let server = GalleryServer(catalog: Self.catalog())
        try await server.run { url in try await body(store, server, url, directory.url) }
    }

    static let target = "s3://gallery/site"

    /// Changes the gallery's first JPEG to another rendition of itself (`Rendition.of`, `variant`):
    /// one image changes, everything else stays.
    static func changeFirstJPEG(of server: GalleryServer, to variant: Int) {
        server.update { catalog in
            let jpeg = catalog.entries.firstIndex { $0.bytes.starts(with: [0xFF, 0xD8]) } ?? 0
            catalog.entries[jpeg].bytes = Rendition.of(catalog.entries[jpeg].bytes, variant)
        }
    }

    /// `sync URL --out OUT --publish target` against `store`, expected to succeed: the first
    /// publish most tests start from. Returns the run, for what its output says.
    @discardableResult
    func publish(_ url: URL, out: URL, store: SeaweedFS, in directory: URL) async throws -> Binary.Result {
        let run = try await Binary.run(
            ["sync", url.absoluteString, "--out", out.path, "--publish", Self.target], in: directory,
            environment: store.environment)
        #expect(run.status == 0, "\(run.stderr)")
        return run
    }

    @Test(
        "a first publish sends every file; a no-op sends no PUT and no LIST; a change sends what changed; a deletion deletes last"
    )
    func publishNoOpChangeDeletion() async throws {
        try await withStore { store, server, url, directory in
            let mirror = directory.appendingPathComponent("mirror")
            // Given a first sync with --publish,
            let first = try await publish(url, out: mirror, store: store, in: directory)
            let files = Self.files(mirror)
            var counts = try await store.counts()
            // then every file went up once, with no listing of the bucket,
            #expect(counts["PUT"] == files.count, "\(counts) for \(files.count) files")
            #expect(counts["LIST"] == nil)
            #expect(first.stderr.contains("→ s3://gallery/site/ (\(files.count) uploaded, 0 deleted)"), "\(first.stderr)")
            // and a visitor reads the site from the bucket, typed and cached as it should be.
            let index = try await store.anonymousGet("site/index.html")
            #expect(index.status == 200)
            #expect(index.headers["content-type"] == "text/html; charset=utf-8")
            #expect(index.headers["cache-control"] == "public, max-age=60")
            let manifest = try Manifest.read(from: mirror.appendingPathComponent("manifest.json"))
            let image = try #require(manifest.items.first)
            let object = try await store.anonymousGet("site/\(image.path)")
            #expect(object.status == 200)
            #expect(object.headers["content-type"] == image.contentType)
            #expect(object.headers["cache-control"] == "public, max-age=31536000, immutable")
            #expect(sha256Hex(Array(object.body)) == image.sha256)
            let verified = try await Binary.run(
                ["verify", "--publish", Self.target], in: directory, environment: store.environment)
            #expect(verified.status == 0, "\(verified.stderr)")
            #expect(verified.stderr.contains("verified \(manifest.items.count) objects"), "\(verified.stderr)")
            // The target is saved with the settings; the credentials are not.
            let settings = try String(
                contentsOf: mirror.appendingPathComponent(".catalog-mirror/settings.json"), encoding: .utf8)
            #expect(settings.contains("s3://gallery/site"))
            #expect(!settings.contains(SeaweedFS.secretKey) && !settings.contains(SeaweedFS.accessKey))

            // When nothing changed, the cron form sends no PUT, no LIST and no DELETE.
            try await store.resetCounts()
            let noOp = try await Binary.run(["sync", "--out", mirror.path], in: directory, environment: store.environment)
            #expect(noOp.status == 0, "\(noOp.stderr)")
            counts = try await store.counts()
            let noOpRequests = try await store.requests()
            #expect(counts["PUT"] == nil && counts["LIST"] == nil && counts["DELETE"] == nil, "\(noOpRequests)")

            // When one image of twelve changes, its new object goes up with the pages that show
            // it and the manifest, and the old object is deleted.
            try await store.resetCounts()
            Self.changeFirstJPEG(of: server, to: 7)
            let changed = try await Binary.run(["sync", "--out", mirror.path], in: directory, environment: store.environment)
            #expect(changed.status == 0, "\(changed.stderr)")
            counts = try await store.counts()
            let put = counts["PUT"] ?? 0
            let changeRequests = try await store.requests()
            #expect(put >= 2 && put < files.count / 2, "\(changeRequests) of \(files.count) files")
            #expect(counts["DELETE"] == 1, "\(counts)")
            #expect(counts["LIST"] == nil)

            // When an image leaves the gallery, its object is deleted from the bucket.
            try await store.resetCounts()
            let before = try Manifest.read(from: mirror.appendingPathComponent("manifest.json"))
            server.update { $0.entries.removeLast() }
            let removed = try await Binary.run(["sync", "--out", mirror.path], in: directory, environment: store.environment)
            #expect(removed.status == 0, "\(removed.stderr)")
            let after = try Manifest.read(from: mirror.appendingPathComponent("manifest.json"))
            let gone = Set(before.items.map(\.path)).subtracting(after.items.map(\.path))
            #expect(!gone.isEmpty)
            for path in gone { #expect(try await store.anonymousGet("site/\(path)").status == 404, "\(path)") }
            counts = try await store.counts()
            #expect(counts["DELETE"] == gone.count, "\(counts)")
            let served = try await store.anonymousGet("site/manifest.json")
            #expect(served.body == (try Data(contentsOf: mirror.appendingPathComponent("manifest.json"))))
            let again = try await Binary.run(["verify", "--publish", Self.target], in: directory, environment: store.environment)
            #expect(again.status == 0, "\(again.stderr)")
        }
    }

    @Test("a failed upload fails the run naming the object; the bucket keeps serving the last mirror; the next run finishes")
    func failedUploadKeepsTheLastMirror() async throws {
        try await withStore { store, server, url, directory in
            let mirror = directory.appendingPathComponent("mirror")
            try await publish(url, out: mirror, store: store, in: directory)
            let servedBefore = try await store.anonymousGet("site/manifest.json").body

            // Given a change whose new image the store refuses (500 on every try),
            Self.changeFirstJPEG(of: server, to: 3)
            try await store.failPuts(matching: "/images/")
            let failed = try await Binary.run(["sync", "--out", mirror.path], in: directory, environment: store.environment)
            // the run fails with exit 1 and one line naming the object,
            #expect(failed.status == 1, "\(failed.stderr)")
            let line = failed.stderr.split(separator: "\n").first { $0.contains("error:") }.map(String.init) ?? ""
            #expect(line.contains("publishing to s3://gallery/site/ failed"), "\(failed.stderr)")
            #expect(line.contains("s3://gallery/site/images/"), "\(line)")
            // and the bucket still serves the last complete mirror: its manifest, every image it names.
            #expect(try await store.anonymousGet("site/manifest.json").body == servedBefore)
            let verified = try await Binary.run(
                ["verify", "--publish", Self.target], in: directory, environment: store.environment)
            #expect(verified.status == 0, "\(verified.stderr)")

            // When the store takes uploads again, the cron form finishes the publish.
            try await store.failPuts(matching: nil)
            try await store.resetCounts()
            let finished = try await Binary.run(["sync", "--out", mirror.path], in: directory, environment: store.environment)
            #expect(finished.status == 0, "\(finished.stderr)")
            #expect(
                try await store.anonymousGet("site/manifest.json").body
                    == (try Data(contentsOf: mirror.appendingPathComponent("manifest.json"))))
            let counts = try await store.counts()
            #expect((counts["PUT"] ?? 0) >= 2, "\(counts)")
            let again = try await Binary.run(["verify", "--publish", Self.target], in: directory, environment: store.environment)
            #expect(again.status == 0, "\(again.stderr)")
        }
    }

    @Test("refused credentials: exit 2, one line, nothing written to the bucket or the disk")
    func refusedCredentials() async throws {
        try await withStore { store, _, url, directory in
            let mirror = directory.appendingPathComponent("mirror")
            var environment = store.environment
            environment["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
            let result = try await Binary.run(
                ["sync", url.absoluteString, "--out", mirror.path, "--publish", Self.target], in: directory,
                environment: environment)
            #expect(result.status == 2, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.contains("refused the credentials") == true, "\(result.stderr)")
            #expect(!result.stderr.contains("not-the-secret"))
            #expect(!FileManager.default.fileExists(atPath: mirror.path))
            #expect(try await store.counts()["PUT"] == nil)
        }
    }

    @Test(
        "a worker with an empty disk starts from the bucket's manifest: it revalidates every image, downloads and sends only what changed"
    )
    func workerWithAnEmptyDisk() async throws {
        try await withStore { store, server, url, directory in
            try await publish(url, out: directory.appendingPathComponent("a"), store: store, in: directory)
            let published = try Manifest.read(from: directory.appendingPathComponent("a/manifest.json"))

            // Given a worker whose --out is empty, when nothing changed at the source,
            try await store.resetCounts()
            var start = server.exchangeLog.count
            let worker = directory.appendingPathComponent("b")
            let second = try await Binary.run(
                ["sync", url.absoluteString, "--out", worker.path, "--publish", Self.target], in: directory,
                environment: store.environment)
            #expect(second.status == 0, "\(second.stderr)")
            // then every image was revalidated with the manifest's validators (a 304 each), none downloaded,
            let images = server.exchangeLog.dropFirst(start).filter { $0.target.hasPrefix("/gallery/image?") }
            #expect(images.count == published.items.count, "\(images)")
            #expect(images.allSatisfy { $0.conditional && $0.status == 304 }, "\(images)")
            // nothing sent and no listing of the bucket; and, as the bucket's manifest names the
            // site it serves, and this worker would make the same one, no page was made or
            // asked about: one GET (the manifest) and one HEAD (the credentials' check) in all;
            var counts = try await store.counts()
            let requests = try await store.requests()
            #expect(counts["PUT"] == nil && counts["LIST"] == nil && counts["DELETE"] == nil, "\(requests)")
            #expect(counts["HEAD"] == 1 && counts["GET"] == 1, "\(requests)")
            #expect(Self.files(worker) == ["manifest.json"])
            // its manifest is the bucket's, item for item, first-seen dates kept.
            let kept = try Manifest.read(from: worker.appendingPathComponent("manifest.json"))
            #expect(kept.items.map(\.key) == published.items.map(\.key))
            #expect(kept.items.map(\.path) == published.items.map(\.path))
            #expect(kept.items.map(\.firstSeen) == published.items.map(\.firstSeen))
            #expect(kept.items.map(\.title) == published.items.map(\.title))
            #expect(kept.items.map(\.variantOf) == published.items.map(\.variantOf))

            // When one image changes at the source, a fresh worker downloads that one alone and sends it.
            Self.changeFirstJPEG(of: server, to: 7)
            try await store.resetCounts()
            start = server.exchangeLog.count
            let third = directory.appendingPathComponent("c")
            let changed = try await Binary.run(
                ["sync", url.absoluteString, "--out", third.path, "--publish", Self.target], in: directory,
                environment: store.environment)
            #expect(changed.status == 0, "\(changed.stderr)")
            let bodies = server.exchangeLog.dropFirst(start).filter { $0.target.hasPrefix("/gallery/image?") && $0.status == 200 }
            #expect(bodies.count == 1, "\(bodies)")
            counts = try await store.counts()
            let sent = try await store.requests().filter { $0.hasPrefix("PUT") && $0.contains("/images/") }
            #expect(sent.count == 1, "\(sent)")
            #expect(counts["DELETE"] == 1, "\(counts)")
            let verified = try await Binary.run(
                ["verify", "--publish", Self.target], in: directory, environment: store.environment)
            #expect(verified.status == 0, "\(verified.stderr)")
        }
    }

    @Test(
        "the manifest names the site only while the bucket holds all of it: a publish that fails among the pages leaves none named, and a worker then makes and checks every page"
    )
    func siteMarkOnlyForAWholeSite() async throws {
        try await withStore { store, server, url, directory in
            let mirror = directory.appendingPathComponent("mirror")
            try await publish(url, out: mirror, store: store, in: directory)
            let mark = try await store.anonymousGet("site/manifest.json").headers[ObjectMetadata.siteMark]
            #expect(mark?.count == 64, "\(String(describing: mark))")
            let servedBefore = try await store.anonymousGet("site/manifest.json").body

            // Given a change whose pages the store refuses once their images went up,
            Self.changeFirstJPEG(of: server, to: 5)
            try await store.failPuts(matching: ".html")
            let failed = try await Binary.run(["sync", "--out", mirror.path], in: directory, environment: store.environment)
            #expect(failed.status == 1, "\(failed.stderr)")
            // the bucket serves its last manifest, which no longer names a site (some pages may be new),
            let served = try await store.anonymousGet("site/manifest.json")
            #expect(served.body == servedBefore)
            #expect(served.headers[ObjectMetadata.siteMark] == nil, "\(served.headers)")
            #expect(served.headers["content-type"] == "application/json")
            #expect(served.headers["cache-control"] == ObjectMetadata.shortLived)

            // so a worker with an empty disk makes every page and asks the bucket about each,
            // sends those that differ, and names its site once they are all there.
            try await store.failPuts(matching: nil)
            try await store.resetCounts()
            let worker = directory.appendingPathComponent("worker")
            let run = try await Binary.run(
                ["sync", url.absoluteString, "--out", worker.path, "--publish", Self.target], in: directory,
                environment: store.environment)
            #expect(run.status == 0, "\(run.stderr)")
            let pages = Self.files(worker).filter { $0.hasSuffix(".html") }
            #expect(!pages.isEmpty)
            let requests = try await store.requests()
            #expect(requests.filter { $0.hasPrefix("HEAD") }.count >= pages.count, "\(requests)")
            for page in pages {
                #expect(
                    try await store.anonymousGet("site/" + page).body
                        == (try Data(contentsOf: worker.appendingPathComponent(page))))
            }
            let named = try await store.anonymousGet("site/manifest.json").headers[ObjectMetadata.siteMark]
            #expect(named != nil && named != mark)
            let verified = try await Binary.run(
                ["verify", "--publish", Self.target], in: directory, environment: store.environment)
            #expect(verified.status == 0, "\(verified.stderr)")
        }
    }

    @Test(
        "a worker with an empty disk groups renditions as the disk did, fetching from the bucket only the pixels it must compare")
    func workerGroupsRenditions() async throws {
        try ExternalTool.require(.seaweedfs)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try await SeaweedFS.start(in: directory.url)
        defer { store.stop() }
        let server = TestServer()
        // Three renditions of one photo (they match), and a photo linking another (they differ).
        let lake = Rendition.photos[0]
        let files: [(String, [UInt8])] = [
            ("thumb.jpg", Rendition.of(lake, 1)), ("display.jpg", Rendition.of(lake, 2)), ("original.jpg", lake),
            ("cover.jpg", Rendition.photos[1]), ("next.jpg", Rendition.photos[2]),
        ]
        try await server.run(routes: { router, _ in
            router.get("/g/") { _, _ in
                html(
                    """
                    <title>Gallery</title>
                    <a href="display.jpg"><img src="thumb.jpg" alt="Lake" data-big="original.jpg"></a>
                    <a href="next.jpg"><img src="cover.jpg" alt="Not the same photo"></a>
                    """)
            }
            for (name, body) in files {
                let etag = "\"\(sha256Hex(body).prefix(16))\""
                router.get("/g/\(name)") { request, _ in
                    if request.headers[.ifNoneMatch] == etag { return Response(status: .notModified, headers: [.eTag: etag]) }
                    return bytes(body, type: "image/jpeg", headers: [.eTag: etag])
                }
            }
        }) { origin in
            let disk = directory.url.appendingPathComponent("disk")
            try await publish(URL(string: origin + "/g/")!, out: disk, store: store, in: directory.url)
            let published = try Manifest.read(from: disk.appendingPathComponent("manifest.json"))
            #expect(published.items.filter { $0.variantOf != nil }.count == 2, "\(published.items.map(\.key))")

            try await store.resetCounts()
            let start = server.log.count
            let worker = directory.url.appendingPathComponent("worker")
            let run = try await Binary.run(
                ["sync", origin + "/g/", "--out", worker.path, "--publish", Self.target], in: directory.url,
                environment: store.environment)
            #expect(run.status == 0, "\(run.stderr)")
            let kept = try Manifest.read(from: worker.appendingPathComponent("manifest.json"))
            #expect(kept.items.map(\.key) == published.items.map(\.key))
            #expect(kept.items.map(\.variantOf) == published.items.map(\.variantOf))
            #expect(kept.items.map(\.path) == published.items.map(\.path))
            // Each image was asked once, and none was written to the bucket; the pair whose
            // pixels differ was compared again from the bucket's copies, the rest from the manifest.
            let asked = server.log.dropFirst(start).filter { $0.hasSuffix(".jpg") }
            #expect(asked.count == files.count, "\(asked)")
            let requests = try await store.requests()
            #expect(!requests.contains { $0.hasPrefix("PUT") && $0.contains("/images/") }, "\(requests)")
            let fetched = requests.filter { $0.hasPrefix("GET") && $0.contains("/images/") }
            #expect(fetched.count == 2, "\(requests)")
            #expect(!FileManager.default.fileExists(atPath: worker.appendingPathComponent("images").path))
        }
    }

    @Test("SIGINT during the upload: exit 130 and one line; no manifest went up; the next run finishes")
    func interruptedUpload() async throws {
        try await withStore { store, _, url, directory in
            let mirror = directory.appendingPathComponent("mirror")
            try await store.delayPuts(milliseconds: 1_500)
            let stderr = directory.appendingPathComponent("stderr.txt")
            FileManager.default.createFile(atPath: stderr.path, contents: nil)
            let running = try Binary.start(
                ["sync", url.absoluteString, "--out", mirror.path, "--publish", Self.target], in: directory,
                environment: store.environment, stderr: try FileHandle(forWritingTo: stderr))
            // When the first upload is under way (by condition, not by time),
            while try await !store.requests().contains(where: { $0.hasPrefix("PUT") }) {
                try await Task.sleep(for: .milliseconds(20))
            }
            running.process.interrupt()
            // then the run stops as interrupted, and says the bucket serves what it served.
            #expect(await running.wait() == 130)
            let said = try String(contentsOf: stderr, encoding: .utf8)
            #expect(said.contains("publishing to s3://gallery/site/ was interrupted"), "\(said)")
            #expect(try await store.anonymousGet("site/manifest.json").status == 404)
            try await store.delayPuts(milliseconds: 0)
            let again = try await Binary.run(["sync", "--out", mirror.path], in: directory, environment: store.environment)
            #expect(again.status == 0, "\(again.stderr)")
            let verified = try await Binary.run(
                ["verify", "--publish", Self.target], in: directory, environment: store.environment)
            #expect(verified.status == 0, "\(verified.stderr)")
        }
    }

    @Test("an https endpoint is checked against AWS_CA_BUNDLE: untrusted without it, published with it")
    func caBundle() async throws {
        try ExternalTool.require(.seaweedfs)
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let authority = try TestAuthority()
        let store = try await SeaweedFS.start(in: directory.url, tls: try authority.serverIdentity())
        defer { store.stop() }
        let httpsPort = try #require(store.httpsPort)
        let https = store.environment.merging(["AWS_ENDPOINT_URL_S3": "https://127.0.0.1:\(httpsPort)"]) { _, new in new }
        let server = GalleryServer(catalog: Self.catalog())
        try await server.run { url in
            var environment = https
            let mirror = directory.url.appendingPathComponent("mirror")
            // Given a store whose certificate no system authority signed: refused before anything is written,
            let untrusted = try await Binary.run(
                ["sync", url.absoluteString, "--out", mirror.path, "--publish", Self.target], in: directory.url,
                environment: environment)
            #expect(untrusted.status == 2, "\(untrusted.stderr)")
            #expect(untrusted.stderr.contains("AWS_CA_BUNDLE"), "\(untrusted.stderr)")
            #expect(!FileManager.default.fileExists(atPath: mirror.path))
            // and with its authority as AWS_CA_BUNDLE, published and verified;
            environment["AWS_CA_BUNDLE"] = try authority.writePEM(into: directory.url)
            let trusted = try await Binary.run(
                ["sync", url.absoluteString, "--out", mirror.path, "--publish", Self.target], in: directory.url,
                environment: environment)
            #expect(trusted.status == 0, "\(trusted.stderr)")
            #expect(try await store.anonymousGet("site/manifest.json").status == 200)
            let verified = try await Binary.run(
                ["verify", "--publish", Self.target], in: directory.url, environment: environment)
            #expect(verified.status == 0, "\(verified.stderr)")
            // a bundle that cannot be read is one line and exit 2.
            environment["AWS_CA_BUNDLE"] = directory.url.appendingPathComponent("missing.pem").path
            let missing = try await Binary.run(["sync", "--out", mirror.path], in: directory.url, environment: environment)
            #expect(missing.status == 2, "\(missing.stderr)")
            #expect(missing.stderr.contains("missing.pem"), "\(missing.stderr)")
        }
    }

    @Test("a visitor reading the bucket during a publish never meets a missing image")
    func readerDuringAPublish() async throws {
        try await withStore { store, server, url, directory in
            let mirror = directory.appendingPathComponent("mirror")
            try await publish(url, out: mirror, store: store, in: directory)
            // Given a publish that replaces half the images and deletes two, slowed down,
            server.update { catalog in
                for index in stride(from: 0, to: 10, by: 2) {
                    catalog.entries[index].bytes = Rendition.of(catalog.entries[index].bytes, 5)
                }
                catalog.entries.removeLast(2)
            }
            try await store.delayPuts(milliseconds: 40)
            let finished = Finished()
            let sync = Task {
                defer { finished.set() }
                return try await Binary.run(["sync", "--out", mirror.path], in: directory, environment: store.environment)
            }
            // a visitor who reads the manifest and the home page and then every image they name
            var rounds = 0
            var missing: [String] = []
            repeat {
                let manifest = try await store.anonymousGet("site/manifest.json")
                let page = try await store.anonymousGet("site/index.html")
                var paths = Set<String>()
                if let decoded = try? JSONCoding.decode(Manifest.self, from: manifest.body) {
                    paths.formUnion(decoded.items.map(\.path))
                }
                paths.formUnion(Self.imageReferences(in: String(decoding: page.body, as: UTF8.self)))
                for path in paths.sorted() {
                    let status = try await store.anonymousGet("site/\(path)").status
                    guard status != 200 else { continue }
                    // An image deleted after this visitor read its page: a fault only if the
                    // bucket still serves a page or manifest that names it.
                    let pageNow = try await store.anonymousGet("site/index.html").body
                    let manifestNow = try await store.anonymousGet("site/manifest.json").body
                    let named =
                        Self.imageReferences(in: String(decoding: pageNow, as: UTF8.self)).contains(path)
                        || ((try? JSONCoding.decode(Manifest.self, from: manifestNow))?.items.contains { $0.path == path }
                            ?? false)
                    if named { missing.append("\(path): \(status)") }
                }
                rounds += 1
            } while !finished.isSet
            let result = try await sync.value
            #expect(result.status == 0, "\(result.stderr)")
            // never meets one missing.
            #expect(missing.isEmpty, "\(missing)")
            #expect(rounds > 1)
        }
    }

    @Test("an upload the store refuses twice is retried and the run succeeds")
    func retriedUpload() async throws {
        try await withStore { store, _, url, directory in
            // Given a store whose first two PUTs of manifest.json answer 500,
            try await store.failPuts(matching: "manifest.json", times: 2)
            let result = try await Binary.run(
                ["sync", url.absoluteString, "--out", directory.appendingPathComponent("mirror").path, "--publish", Self.target],
                in: directory, environment: store.environment)
            // the run retries it and exits 0,
            #expect(result.status == 0, "\(result.stderr)")
            let requests = try await store.requests()
            #expect(requests.filter { $0 == "PUT /gallery/site/manifest.json" }.count == 3, "\(requests)")
            // and the bucket serves it.
            #expect(try await store.anonymousGet("site/manifest.json").status == 200)
        }
    }

    @Test("verify --publish: exit 1 naming an object that differs or is missing")
    func verifyFindsMismatches() async throws {
        try await withStore { store, _, url, directory in
            let mirror = directory.appendingPathComponent("mirror")
            try await publish(url, out: mirror, store: store, in: directory)
            let items = try Manifest.read(from: mirror.appendingPathComponent("manifest.json")).items
            // Given one object overwritten with other bytes and one deleted behind the tool's back,
            #expect(try await store.put("site/\(items[0].path)", Data("not the image".utf8)) == 200)
            #expect(try await store.signedRequest("DELETE", path: "/gallery/site/\(items[1].path)", port: store.s3Port) == 204)
            let result = try await Binary.run(
                ["verify", "--publish", Self.target], in: directory, environment: store.environment)
            // verify exits 1 and names both.
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("s3://gallery/site/\(items[0].path):"), "\(result.stderr)")
            #expect(result.stderr.contains("s3://gallery/site/\(items[1].path): missing"), "\(result.stderr)")
            // A bucket with no manifest.json is exit 2.
            let empty = try await Binary.run(
                ["verify", "--publish", "s3://gallery/nothing-here"], in: directory, environment: store.environment)
            #expect(empty.status == 2, "\(empty.stderr)")
        }
    }

    /// The `images/...` paths an HTML page of the mirror's root names.
    static func imageReferences(in html: String) -> Set<String> {
        var found = Set<String>()
        var rest = html[...]
        while let range = rest.range(of: "images/") {
            let tail = rest[range.lowerBound...]
            let end = tail.firstIndex { "\"' ,)\n".contains($0) } ?? tail.endIndex
            found.insert(String(tail[..<end]))
            rest = rest[end...]
        }
        return found
    }
}

/// Set once, when a process the test started has finished.
final class Finished: Sendable {
    private let flag = Mutex(false)

    func set() { flag.withLock { $0 = true } }

    var isSet: Bool { flag.withLock { $0 } }
}
