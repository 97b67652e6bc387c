import Crypto
import Foundation
import MirrorTestSupport
import Synchronization
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorPublish
@testable import MirrorStore
@testable import SampleGallery

/// Changes the fixture catalog between runs: image 3 gets new bytes, image 5 goes away, and
/// image 15 is new.
func mutate(_ catalog: inout GalleryCatalog) {
    catalog.entries[catalog.entries.firstIndex { $0.id == 3 }!].bytes = SampleImage.bundled[20].bytes
    catalog.entries.removeAll { $0.id == 5 }
    catalog.entries.append(.init(id: 15, name: "Newcomer", price: "3.00", bytes: SampleImage.bundled[21].bytes))
}

/// Every file and directory under `root` (the state directory too) with size, mtime and hash.
func treeFingerprint(_ root: URL) throws -> [String: String] {
    var result: [String: String] = [:]
    let enumerator = FileManager.default.enumerator(atPath: root.path)
    while let path = enumerator?.nextObject() as? String {
        let url = root.appendingPathComponent(path)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        let mtime = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        var value = "\(attributes[.type] ?? "") \(attributes[.size] ?? 0) \(mtime)"
        if attributes[.type] as? FileAttributeType == .typeRegular {
            value += " " + sha256Hex(Array(try Data(contentsOf: url)))
        }
        result[path] = value
    }
    return result
}

/// What a web server serving `root` could hand out that is wrong: pages referencing files that
/// are missing, and image files that are not complete images.
func servedProblems(_ root: URL) throws -> [String] {
    var problems: [String] = []
    let images = root.appendingPathComponent("images")
    for name in (try? FileManager.default.contentsOfDirectory(atPath: images.path)) ?? [] {
        if let problem = incompleteImage(images.appendingPathComponent(name)) { problems.append(problem) }
    }
    if FileManager.default.fileExists(atPath: root.appendingPathComponent("index.html").path) {
        problems += try unresolvedReferences(in: root)
    }
    return problems
}

/// nil when the file is a complete image; otherwise what is wrong.
func incompleteImage(_ url: URL) -> String? {
    guard let data = FileManager.default.contents(atPath: url.path) else { return "\(url.lastPathComponent): missing" }
    let bytes = Array(data)
    let result = ContentInspector.inspect(
        head: Array(bytes.prefix(ContentInspector.headLength)), tail: Array(bytes.suffix(ContentInspector.tailLength)),
        length: Int64(bytes.count)
    ) { offset, count in Array(bytes[Int(offset)..<min(Int(offset) + count, bytes.count)]) }
    if case .failure(let failure) = result { return "\(url.lastPathComponent): \(failure.reason)" }
    return nil
}

@Suite("Scheduled sync")
struct ScheduledSyncTests {
    /// Mirrors the fixture gallery once into a fresh directory, then runs `body` with the
    /// server (to change the catalog), the configuration used, and the mirror directory.
    func afterFirstSync(
        _ body: @Sendable (GalleryServer, URL, MirrorConfiguration, URL) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = GalleryServer(catalog: Fixture.catalog())
        let output = directory.url.appendingPathComponent("m")
        try await server.run { url in
            let configuration = testConfiguration(source: url.absoluteString, output: output)
            _ = try await MirrorEngine(configuration: configuration).run()
            try await body(server, url, configuration, output)
        }
    }

    @Test("changed images are replaced, removed ones pruned, new ones added; the rest keeps its names")
    func incremental() async throws {
        try await afterFirstSync { server, url, configuration, output in
            let first = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            let key = { (id: Int) in "http://127.0.0.1:\(url.port!)/gallery/image?\(id)" }
            let firstPath = { (id: Int) in first.items.first { $0.key == key(id) }?.path }

            server.update(mutate)
            let report = try await MirrorEngine(configuration: configuration).run()
            let second = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            let secondPath = { (id: Int) in second.items.first { $0.key == key(id) }?.path }
            #expect(report.added == 1 && report.replaced == 1 && report.removed == 1 && report.unchanged == 10)
            #expect(report.exitStatus == 1)  // the JSON-error and 404 entries still fail
            #expect(secondPath(3) != firstPath(3))
            #expect(try Data(contentsOf: output.appendingPathComponent(secondPath(3)!)) == Data(SampleImage.bundled[20].bytes))
            #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent(firstPath(3)!).path))
            #expect(secondPath(5) == nil)
            #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent(firstPath(5)!).path))
            #expect(secondPath(15) != nil)
            for id in [1, 2, 4, 6, 7, 8, 9, 10, 11, 12] {
                #expect(secondPath(id) == firstPath(id))
                #expect(second.items.first { $0.key == key(id) }?.firstSeen == first.items.first { $0.key == key(id) }?.firstSeen)
            }
            let imageFiles = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent("images").path)
            #expect(Set(imageFiles) == Set(second.items.map { String($0.path.dropFirst(7)) }))
            #expect(try MirrorVerifier.verify(MirrorLayout(root: output)).isClean)

            // A third run over the unchanged gallery: pages answer 304 and are read from the
            // stored copies, so every image is still found and revalidated.
            let before = server.exchangeLog.count
            let third = try await MirrorEngine(configuration: configuration).run()
            let exchanges = server.exchangeLog.dropFirst(before)
            let pages = exchanges.filter { $0.target.hasPrefix("/gallery/?") || $0.target == "/gallery/" }
            #expect(!pages.isEmpty && pages.allSatisfy { $0.conditional && $0.status == 304 })
            #expect(exchanges.filter { $0.target.hasPrefix("/gallery/image?") && $0.status == 304 }.count == 12)
            #expect(third.published == 12 && third.unchanged == 12 && third.downloaded == 0)
            // Nothing changed, so nothing but the manifest (its lastChecked) was rewritten.
            let fourthBefore = try treeFingerprint(output).filter {
                !$0.key.hasPrefix(".catalog-mirror") && $0.key != "manifest.json"
            }
            _ = try await MirrorEngine(configuration: configuration).run()
            #expect(
                try treeFingerprint(output).filter { !$0.key.hasPrefix(".catalog-mirror") && $0.key != "manifest.json" }
                    == fourthBefore)
        }
    }

    @Test("an image still listed but failing this run keeps its published file and its whole manifest item")
    func keptWhileFailing() async throws {
        try await afterFirstSync { server, url, configuration, output in
            let first = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            let key = "http://127.0.0.1:\(url.port!)/gallery/image?4"
            let before = try #require(first.items.first { $0.key == key })

            server.update { $0.entries[$0.entries.firstIndex { $0.id == 4 }!].behavior = .notFound }
            let report = try await MirrorEngine(configuration: configuration).run()
            let second = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            #expect(report.kept == 1 && report.removed == 0, "\(report)")
            #expect(report.failed["http-404"] == 2)  // image?4, and the entry that always fails
            // The item the last run published, field for field (lastChecked included: it was
            // not confirmed this run), and its file, unchanged.
            #expect(second.items.first { $0.key == key } == before)
            #expect(!second.rejected.contains { $0.key == key })
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(before.path).path))
            #expect(try MirrorVerifier.verify(MirrorLayout(root: output)).isClean)
        }
    }

    @Test("a listing that collapses trips the --max-delete guard: exit 4, nothing deleted")
    func pruneGuard() async throws {
        try await afterFirstSync { server, _, configuration, output in
            var configuration = configuration
            let before = try snapshot(output)
            // The listing drops to 10 % of its items.
            server.update { $0.entries = Array($0.entries.prefix(1)) + $0.entries.suffix(2) }
            await #expect {
                _ = try await MirrorEngine(configuration: configuration).run()
            } throws: { error in
                guard let error = error as? MirrorError, error.code == .pruneGuard else { return false }
                return error.deletions?.wouldDelete == 11 && error.deletions?.previous == 12 && error.exitStatus == 4
            }
            #expect(try snapshot(output) == before)
            configuration.publish.maxDelete = DeleteLimit("11")!
            let report = try await MirrorEngine(configuration: configuration).run()
            #expect(report.removed == 11)
            #expect(try Manifest.read(from: output.appendingPathComponent("manifest.json")).items.count == 1)
        }
    }

    @Test("an outage exits 3 and leaves the mirror byte for byte as it was")
    func outage() async throws {
        try await afterFirstSync { server, _, configuration, output in
            let before = try snapshot(output)
            server.update { $0.outage = true }
            await #expect {
                _ = try await MirrorEngine(configuration: configuration).run()
            } throws: { error in
                (error as? MirrorError)?.exitStatus == 3 && "\(error)".contains("500")
            }
            #expect(try snapshot(output) == before)
        }
    }

    @Test("a dry run changes nothing, requests no image body, and tells what would change")
    func dryRun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = GalleryServer(catalog: Fixture.catalog())
        try await server.run { url in
            let first = try await Binary.run(["sync", url.absoluteString], in: directory.url)
            #expect(first.status == 1)
            server.update(mutate)
            let mirror = directory.url.appendingPathComponent("mirror")
            let before = try treeFingerprint(mirror)
            let exchangesBefore = server.exchangeLog.count
            let dry = try await Binary.run(["sync", "--dry-run", "--report", "/dev/null"], in: directory.url)
            #expect(dry.status == 1, "\(dry.stderr)")
            // The report went to the device, not over it (a rename would replace /dev/null).
            let null = try FileManager.default.attributesOfItem(atPath: "/dev/null")
            #expect(null[.type] as? FileAttributeType == .typeCharacterSpecial)
            #expect(try treeFingerprint(mirror) == before)
            let images = server.exchangeLog.dropFirst(exchangesBefore).filter { $0.target.hasPrefix("/gallery/image?") }
            #expect(!images.isEmpty && images.allSatisfy { $0.bodyBytes == 0 })
            let lines = Set(dry.stdout.split(separator: "\n").map(String.init))
            let key = { (id: Int) in "http://127.0.0.1:\(url.port!)/gallery/image?\(id)" }
            #expect(lines.isSuperset(of: ["add \(key(15))", "replace \(key(3))", "delete \(key(5))"]))
            #expect(dry.stderr.contains("dry run: would add"))

            // A dry run into a directory that does not exist does not create it.
            let nowhere = try await Binary.run(["sync", url.absoluteString, "--out", "fresh", "--dry-run"], in: directory.url)
            #expect(nowhere.status == 1)
            #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("fresh").path))
        }
    }

    @Test("a second sync on a locked mirror exits 75 at once, naming the directory and the holder")
    func lock() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url.appendingPathComponent("mirror"))
        let held = try MirrorLock.acquire(layout, create: true)
        let result = try await Binary.run(["sync", "http://127.0.0.1:1/"], in: directory.url)
        #expect(result.status == 75)
        #expect(result.stderr.contains(layout.root.path))
        #expect(result.stderr.contains("PID \(getpid())"))
        withExtendedLifetime(held) {}
    }

    /// Where a kill lands: after the server saw N requests of the sync (crawl and downloads,
    /// held open by a slow image endpoint), or as soon as publishing is seen to have begun,
    /// written the pages, or written the manifest.
    enum KillPoint: CustomStringConvertible {
        case requests(Int)
        case imagesPublished, pagesWritten, manifestWritten

        var description: String {
            switch self {
            case .requests(let count): "after \(count) requests"
            case .imagesPublished: "once a new image is in images/"
            case .pagesWritten: "once index.html is new"
            case .manifestWritten: "once manifest.json is new"
            }
        }
    }

    /// The run after a kill (`arguments`, in `directory`): it finishes the fixture's mirror
    /// (exit 1: the fixture's failing keys), asks for each of `reused` only conditionally (a
    /// 304), and leaves the 12 items' files, nothing else in `images/`, and no leftovers.
    func completesAfterKill(
        _ arguments: [String], server: GalleryServer, url: URL, in directory: URL, reusing reused: Set<String>,
        kill: String
    ) async throws {
        let mirror = directory.appendingPathComponent("mirror")
        server.update { $0.imageDelay = .zero }
        let before = server.exchangeLog.count
        let next = try await Binary.run(arguments, in: directory)
        #expect(next.status == 1, "after a kill \(kill): \(next.stderr)")
        for exchange in server.exchangeLog.dropFirst(before) where exchange.target.hasPrefix("/gallery/image?") {
            let key = "http://127.0.0.1:\(url.port!)" + exchange.target
            if reused.contains(key) {
                #expect(exchange.status == 304, "\(key) downloaded again after a kill \(kill)")
            }
        }
        #expect(try servedProblems(mirror) == [])
        #expect(try MirrorVerifier.verify(MirrorLayout(root: mirror)).isClean)
        let manifest = try Manifest.read(from: mirror.appendingPathComponent("manifest.json"))
        #expect(manifest.items.count == 12)
        let files = try FileManager.default.contentsOfDirectory(atPath: mirror.appendingPathComponent("images").path)
        #expect(Set(files) == Set(manifest.items.map { String($0.path.dropFirst(7)) }))
        let leftovers = ["tmp", "staged"].flatMap {
            (try? FileManager.default.contentsOfDirectory(
                atPath: mirror.appendingPathComponent(".catalog-mirror/\($0)").path)) ?? []
        }
        #expect(leftovers.isEmpty)
    }

    @Test("SIGKILL at any point leaves a consistent mirror, and the next run finishes it without downloading again")
    func killAnywhere() async throws {
        let points: [KillPoint] =
            [1, 3, 5, 8, 11, 14, 17, 19].map(KillPoint.requests) + [.imagesPublished, .pagesWritten, .manifestWritten]
        var killedMidRun = 0
        for point in points {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let server = GalleryServer(catalog: Fixture.catalog())
            let killed: Bool = try await server.run { url in
                let mirror = directory.url.appendingPathComponent("mirror")
                #expect(try await Binary.run(["sync", url.absoluteString], in: directory.url).status == 1)
                server.update {
                    mutate(&$0)
                    $0.imageDelay = .milliseconds(25)
                }
                let imagesBefore = Set(
                    try FileManager.default.contentsOfDirectory(atPath: mirror.appendingPathComponent("images").path))
                let indexBefore = try Data(contentsOf: mirror.appendingPathComponent("index.html"))
                let manifestBefore = try Data(contentsOf: mirror.appendingPathComponent("manifest.json"))
                let start = server.requestLog.count
                let running = try Binary.start(["sync", "--concurrency", "2", "--quiet"], in: directory.url)
                func reached() -> Bool {
                    switch point {
                    case .requests(let count):
                        return server.requestLog.count >= start + count
                    case .imagesPublished:
                        let now = Set(
                            (try? FileManager.default.contentsOfDirectory(atPath: mirror.appendingPathComponent("images").path))
                                ?? [])
                        return !now.subtracting(imagesBefore).isEmpty
                    case .pagesWritten:
                        return (try? Data(contentsOf: mirror.appendingPathComponent("index.html"))).map { $0 != indexBefore }
                            ?? false
                    case .manifestWritten:
                        return (try? Data(contentsOf: mirror.appendingPathComponent("manifest.json"))).map {
                            $0 != manifestBefore
                        } ?? false
                    }
                }
                while !reached() && running.process.isRunning { try await Task.sleep(for: .microseconds(200)) }
                kill(running.process.processIdentifier, SIGKILL)
                let killed = await running.wait() == -SIGKILL
                if case .requests = point { #expect(killed, "the sync ended before the kill \(point)") }

                // Whatever the kill interrupted, a web server would hand out nothing broken.
                #expect(try servedProblems(mirror) == [], "after a kill \(point)")
                // What the killed run had verified: rows still staged, or whose file is not the
                // one the manifest in place names.
                let manifestInPlace = try Manifest.read(from: mirror.appendingPathComponent("manifest.json"))
                let published = Dictionary(manifestInPlace.items.map { ($0.key, $0.path) }) { first, _ in first }
                let journaled = Set(
                    try StateDatabase.open(MirrorLayout(root: mirror), readOnly: true).allImages()
                        .filter { $0.isStaged || published[$0.key.string] != $0.path }.map(\.key.string))

                // The next run completes the mirror, reusing what the killed run had verified.
                try await completesAfterKill(
                    ["sync"], server: server, url: url, in: directory.url, reusing: journaled, kill: "\(point)")
                print("kill \(point): \(killed ? "killed mid-run" : "the sync had finished"), \(journaled.count) journaled")
                return killed
            }
            if killed { killedMidRun += 1 }
        }
        #expect(killedMidRun >= 10)
    }

    @Test("SIGKILL during a first run leaves nothing outside .catalog-mirror/, and the next run downloads none it had recorded")
    func killFirstRun() async throws {
        var killedMidRun = 0
        var recordedBeforeKill = 0
        for count in [1, 6, 10] {
            let directory = try TemporaryDirectory()
            defer { directory.cleanup() }
            let server = GalleryServer(catalog: Fixture.catalog())
            let (killed, recordedCount): (Bool, Int) = try await server.run { url in
                // A first run keeps each checked download in .catalog-mirror/staged/ under its
                // final name. Slow enough that the later kills come after rows were written
                // (within a second).
                server.update { $0.imageDelay = .milliseconds(400) }
                let mirror = directory.url.appendingPathComponent("mirror")
                let arguments = ["sync", url.absoluteString, "--concurrency", "2", "--quiet"]
                let running = try Binary.start(arguments, in: directory.url)
                let staged = mirror.appendingPathComponent(".catalog-mirror/staged").path
                while ((try? FileManager.default.contentsOfDirectory(atPath: staged))?.count ?? 0) < count
                    && running.process.isRunning
                {
                    try await Task.sleep(for: .microseconds(200))
                }
                kill(running.process.processIdentifier, SIGKILL)
                let killed = await running.wait() == -SIGKILL
                if killed {
                    // Nothing is published before a run completes: no page, no manifest, no images/.
                    #expect(try FileManager.default.contentsOfDirectory(atPath: mirror.path) == [".catalog-mirror"])
                }
                let rows = (try? StateDatabase.open(MirrorLayout(root: mirror), readOnly: true).allImages()) ?? []
                if killed {
                    // Each row's file waits in staged/ under the name it will have in images/.
                    #expect(rows.allSatisfy { $0.stagedName == $0.fileName })
                    let files = Set((try? FileManager.default.contentsOfDirectory(atPath: staged)) ?? [])
                    #expect(Set(rows.map(\.fileName)).isSubset(of: files))
                    for name in files { #expect(incompleteImage(URL(fileURLWithPath: staged + "/" + name)) == nil) }
                }
                let recorded = Set(rows.map(\.key.string))

                // No settings were saved by the killed run: the source is given again.
                try await completesAfterKill(
                    ["sync", url.absoluteString], server: server, url: url, in: directory.url, reusing: recorded,
                    kill: "at \(count) images")
                let when = killed ? "mid-run" : "it had finished"
                print("first run killed at \(count) images: \(when), \(recorded.count) recorded")
                return (killed, recorded.count)
            }
            if killed { killedMidRun += 1 }
            recordedBeforeKill += recordedCount
        }
        #expect(killedMidRun >= 2)
        #expect(recordedBeforeKill > 0)
    }

    @Test("a reader never meets a missing or partial file while a sync adds, replaces and removes images")
    func readerDuringSync() async throws {
        try await afterFirstSync { server, _, configuration, output in
            for round in 0..<3 {
                server.update { catalog in
                    // Each round replaces, removes and adds something.
                    let good = catalog.entries.filter { $0.behavior == .image }
                    let victim = good[round % good.count].id
                    catalog.entries[catalog.entries.firstIndex { $0.id == victim }!].bytes = SampleImage.bundled[22 + round].bytes
                    catalog.entries.removeAll { $0.id == good[(round + 3) % good.count].id }
                    catalog.entries.append(
                        .init(id: 100 + round, name: "New \(round)", price: "1", bytes: SampleImage.bundled[26 + round].bytes))
                }
                let done = Mutex(false)
                let sync = Task {
                    defer { done.withLock { $0 = true } }
                    return try await MirrorEngine(configuration: configuration).run()
                }
                var reads = 0
                var problems: [String] = []
                repeat {
                    problems += try readOnce(output)
                    reads += 1
                    await Task.yield()
                } while !done.withLock({ $0 }) && reads < 100_000
                _ = try await sync.value
                problems += try readOnce(output)
                #expect(problems == [], "round \(round)")
                #expect(reads > 1)
            }
        }
    }

    /// Reads every page and each image it references, as a browser would. A missing image
    /// counts only if the page still references it when read again (a page replaced in between
    /// was not handed out with that reference any more).
    func readOnce(_ root: URL) throws -> [String] {
        var problems: [String] = []
        let pages = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).filter { $0.hasSuffix(".html") }
        for page in pages {
            guard let html = try? String(contentsOf: root.appendingPathComponent(page), encoding: .utf8) else { continue }
            for match in html.matches(of: /src="(images\/[^"]+)"/) {
                let file = root.appendingPathComponent(String(match.1))
                if let problem = incompleteImage(file) {
                    let again = try? String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
                    if again == html { problems.append("\(page) → \(problem)") }
                }
            }
        }
        return problems
    }
}
