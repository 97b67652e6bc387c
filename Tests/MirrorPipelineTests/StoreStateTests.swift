import Foundation
import MirrorTestSupport
import Synchronization
import Testing

@testable import MirrorCore
@testable import MirrorFetch
@testable import MirrorMarkup
@testable import MirrorPipeline
@testable import MirrorStore
@testable import SampleGallery

@Suite("The store's state")
struct StoreStateTests {
    /// A journal line exactly as versions before the state database wrote it (`JSONEncoder`,
    /// sorted keys, slashes unescaped, absent optionals left out), after the newline that
    /// started every line.
    static func legacyLine(key: String, fileName: String, stagedName: String?, bytes: [UInt8], etag: String) -> String {
        let staged = stagedName.map { ",\"staged\":true,\"stagedName\":\"\($0)\"" } ?? ",\"staged\":true"
        return "\n{\"bytes\":\(bytes.count),\"contentType\":\"image/png\",\"etag\":\"\\\"\(etag)\\\"\","
            + "\"fileName\":\"\(fileName)\",\"firstSeen\":\"2026-01-02T03:04:05Z\",\"key\":\"\(key)\","
            + "\"lastChecked\":\"2026-01-02T03:04:05Z\",\"sha256\":\"\(sha256Hex(bytes))\"\(staged)}\n"
    }

    @Test("a mirror an older version wrote (manifest + JSON journal, torn last line) is taken in once")
    func legacyStateMigrates() async throws {
        // Given the state the JSON version left: one published image in the manifest, one
        // verified download waiting in staged/, and half a line where a kill landed.
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        for folder in [layout.images, layout.staged] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let png = SampleImage.bundled.first { $0.format == "png" }!.bytes
        let other = SampleImage.bundled.filter { $0.format == "png" }.dropFirst().first?.bytes ?? png + [0]
        try Data(png).write(to: layout.images.appendingPathComponent("a-0123456789.png"))
        let published = Manifest(
            source: "http://h/", generatedAt: Date(timeIntervalSince1970: 0),
            items: [
                .init(
                    key: "http://h/a.png", path: "images/a-0123456789.png", sha256: sha256Hex(png),
                    bytes: Int64(png.count), contentType: "image/png", etag: "\"a\"",
                    firstSeen: Date(timeIntervalSince1970: 0), lastChecked: Date(timeIntervalSince1970: 0))
            ], rejected: [])
        try published.encoded().write(to: layout.manifest)
        try Data(other).write(to: layout.staged.appendingPathComponent("dl-1.part"))
        let journal =
            Self.legacyLine(key: "http://h/b.png", fileName: "b-abcdefabcd.png", stagedName: "dl-1.part", bytes: other, etag: "1")
            + "\n{\"key\":\"http://h/c.png\",\"fileNa"
        try Data(journal.utf8).write(to: layout.legacyJournal)
        #expect(LegacyState.replay(layout.legacyJournal).map(\.key) == ["http://h/b.png"])

        // When the store opens it: both images are found, the journal is gone, the database is there.
        var storage = try await ImageDatabase.open(layout)
        let a = await storage.lookup(CanonicalURL("http://h/a.png")!)
        #expect(a?.fileName == "a-0123456789.png" && a?.isStaged == false && a?.etag == "\"a\"")
        let b = await storage.lookup(CanonicalURL("http://h/b.png")!)
        #expect(b?.stagedName == "dl-1.part" && b?.etag == "\"1\"" && b?.fileName == "b-abcdefabcd.png")
        #expect(b?.firstSeen == Timestamp.date("2026-01-02T03:04:05Z"))
        #expect(await storage.lookup(CanonicalURL("http://h/c.png")!) == nil)
        #expect(!FileManager.default.fileExists(atPath: layout.legacyJournal.path))
        #expect(FileManager.default.fileExists(atPath: layout.database.path))
        await ImageDatabase.close(storage)

        // Then the next open reads the database alone, even with the manifest gone.
        try FileManager.default.removeItem(at: layout.manifest)
        storage = try await ImageDatabase.open(layout)
        #expect(await storage.lookup(CanonicalURL("http://h/a.png")!) == a)
        #expect(await storage.lookup(CanonicalURL("http://h/b.png")!) == b)
        try await storage.publish([CanonicalURL("http://h/b.png")!])
        await ImageDatabase.close(storage)
        let rows = try StateDatabase.open(layout, readOnly: true).allImages()
        #expect(rows.map(\.key.string) == ["http://h/a.png", "http://h/b.png"])
        #expect(rows.allSatisfy { !$0.isStaged })
    }

    @Test("a damaged state file is moved aside and the index rebuilt from the manifest, each file hashed; no file is touched")
    func damagedState() async throws {
        // Given a published mirror of two images, one changed on disk since, and a state file
        // overwritten with garbage.
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        for folder in [layout.state, layout.images] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        let pngs = SampleImage.bundled.filter { $0.format == "png" }.prefix(2).map(\.bytes)
        let items = pngs.enumerated().map { number, bytes in
            Manifest.Item(
                key: "http://h/\(number).png", path: "images/f\(number).png", sha256: sha256Hex(bytes), bytes: Int64(bytes.count),
                contentType: "image/png", etag: "\"\(number)\"", firstSeen: Date(timeIntervalSince1970: 0),
                lastChecked: Date(timeIntervalSince1970: 0))
        }
        try Manifest(source: "http://h/", generatedAt: Date(timeIntervalSince1970: 0), items: items, rejected: []).encoded()
            .write(to: layout.manifest)
        try Data(pngs[0]).write(to: layout.images.appendingPathComponent("f0.png"))
        var changed = pngs[1]
        changed[changed.count / 2] ^= 0xFF
        try Data(changed).write(to: layout.images.appendingPathComponent("f1.png"))
        try Data(repeating: 0x41, count: 4096).write(to: layout.database)

        // When the store opens.
        let storage = try await ImageDatabase.open(layout)
        let warnings = await storage.warnings
        let first = await storage.lookup(CanonicalURL("http://h/0.png")!)
        let second = await storage.lookup(CanonicalURL("http://h/1.png")!)
        await ImageDatabase.close(storage)

        // Then one line says what happened, the damaged file is kept aside, the index holds
        // the image whose file matches (the other is downloaded again), and images/ is as it was.
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("\(layout.database.path) was damaged (file is not a database)") == true, "\(warnings)")
        #expect(warnings.first?.contains("1 images verified") == true && warnings.first?.contains("\n") == false)
        let aside = try FileManager.default.contentsOfDirectory(atPath: layout.state.path).filter {
            $0.hasPrefix("state.sqlite.damaged-")
        }
        #expect(aside.count == 1)
        #expect(try Data(contentsOf: layout.state.appendingPathComponent(aside[0])) == Data(repeating: 0x41, count: 4096))
        #expect(first?.etag == "\"0\"" && first?.fileName == "f0.png")
        #expect(second == nil)
        #expect(try Data(contentsOf: layout.images.appendingPathComponent("f1.png")) == Data(changed))
    }

    @Test("a state file that cannot be opened for another reason (not damage) is a one-line error, and nothing is moved")
    func unopenableState() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        // A directory where the database should be: SQLite cannot open it, and moving it aside
        // would not be a repair.
        try FileManager.default.createDirectory(at: layout.database, withIntermediateDirectories: true)
        do {
            _ = try await ImageDatabase.open(layout)
            Issue.record("a directory was opened as the state file")
        } catch {
            #expect(error.message.contains(layout.database.path))
            #expect(!error.message.contains("\n"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.state.path).filter { $0.contains("damaged") } == [])
        // The directory is free again for the next attempt.
        try FileManager.default.removeItem(at: layout.database)
        await ImageDatabase.close(try await ImageDatabase.open(layout))
    }

    @Test("a stored file that is missing, or whose time and bytes changed, is not trusted; one only touched is, once hashed")
    func filesChangedOnDisk() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, source, storage, loader) = try await Self.pngStore(in: directory)
        let keys = ["a", "b", "c"].map { CanonicalURL("http://h/\($0).png")! }
        guard let stored = await Self.downloadAll(keys, with: loader) else { return }
        try await storage.publish(keys)
        let path = { (index: Int) in layout.images.appendingPathComponent(stored[index].fileName).path }
        // a: deleted. b: a byte changed, same size. c: its time changed, bytes as they were.
        try FileManager.default.removeItem(atPath: path(0))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(1))))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path(1)))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000)], ofItemAtPath: path(2))

        #expect(await storage.lookup(keys[0]) == nil)
        #expect(await storage.lookup(keys[1]) == nil)
        let touched = await storage.lookup(keys[2])
        #expect(touched?.sha256 == stored[2].sha256 && touched?.fileModified != stored[2].fileModified)

        // Downloaded again, the missing and the changed file are put back under their names.
        let downloadsBefore = source.calls.withLock { $0.count }
        let nextLoader = ImageLoader(storage: storage, source: source)
        for key in keys.prefix(2) {
            guard case .stored(let image, _) = await nextLoader.load(ImageRequest(key: key)) else {
                Issue.record("\(key) was not stored again")
                return
            }
            #expect(image.isStaged)
        }
        #expect(source.calls.withLock { $0.count } == downloadsBefore + 2)
        try await storage.publish(keys)
        #expect(await storage.repairs().last?.hasPrefix("2 image files were missing or changed on disk") == true)
        await ImageDatabase.close(storage)
        for index in 0..<2 {
            #expect(sha256Hex(Array(try Data(contentsOf: URL(fileURLWithPath: path(index))))) == stored[index].sha256)
        }
    }

    /// A source that answers every request at once with `bytes`.
    static func openSource(_ bytes: [UInt8]) async -> CountingSource {
        let source = CountingSource(bytes: bytes)
        await source.latch.open()
        return source
    }

    /// A store in `directory` and a loader whose source answers every key with the same PNG.
    static func pngStore(in directory: TemporaryDirectory) async throws -> (
        layout: MirrorLayout, source: CountingSource, storage: DiskStorage, loader: ImageLoader
    ) {
        let layout = MirrorLayout(root: directory.url)
        let source = await openSource(SampleImage.bundled.first { $0.format == "png" }!.bytes)
        let storage = try await ImageDatabase.open(layout)
        return (layout, source, storage, ImageLoader(storage: storage, source: source))
    }

    /// Loads each of `keys` through `loader`, each expected to be a new download; nil, with
    /// an issue recorded, when one is not.
    static func downloadAll(_ keys: [CanonicalURL], with loader: ImageLoader) async -> [StoredImage]? {
        var stored: [StoredImage] = []
        for key in keys {
            guard case .stored(let image, from: .network) = await loader.load(ImageRequest(key: key)) else {
                Issue.record("no download for \(key)")
                return nil
            }
            stored.append(image)
        }
        return stored
    }

    @Test("a download is renamed once, from its staged name into images/, and re-hashed before a resume trusts it")
    func stagedOnceAndVerified() async throws {
        let png = SampleImage.bundled.first { $0.format == "png" }!.bytes
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        let source = await Self.openSource(png)
        var storage = try await ImageDatabase.open(layout)
        var loader = ImageLoader(storage: storage, source: source)
        let keys = [CanonicalURL("http://h/a.png")!, CanonicalURL("http://h/b.png")!]
        guard let stored = await Self.downloadAll(keys, with: loader) else { return }
        // The downloads wait in staged/ under the names they were written with.
        let staged = try FileManager.default.contentsOfDirectory(atPath: layout.staged.path)
        #expect(Set(staged) == Set(stored.compactMap(\.stagedName)))
        #expect(staged.allSatisfy { $0.hasSuffix(".part") })
        // Their rows are committed in batches; closing the store writes the last one.
        await ImageDatabase.close(storage)
        #expect(Set(try StateDatabase.open(layout, readOnly: true).allImages().compactMap(\.stagedName)) == Set(staged))

        // A power loss after the journal line but before the bytes: same size, other bytes.
        let torn = layout.staged.appendingPathComponent(try #require(stored[1].stagedName))
        try Data(repeating: 0, count: png.count).write(to: torn)
        storage = try await ImageDatabase.open(layout)
        #expect(await storage.lookup(keys[0])?.stagedName == stored[0].stagedName)
        #expect(await storage.lookup(keys[1]) == nil)
        #expect(!FileManager.default.fileExists(atPath: torn.path))

        // The resumed run downloads the torn one again; publishing renames both into images/.
        loader = ImageLoader(storage: storage, source: source)
        guard case .stored(let again, from: .network) = await loader.load(ImageRequest(key: keys[1])) else {
            Issue.record("the torn file was trusted")
            return
        }
        try await storage.publish(keys)
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.staged.path).isEmpty)
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: layout.images.path))
                == [stored[0].fileName, again.fileName])
        for image in [stored[0], again] {
            #expect(sha256Hex(Array(try Data(contentsOf: layout.images.appendingPathComponent(image.fileName)))) == image.sha256)
        }
        await ImageDatabase.close(storage)
    }

    @Test("on a first run a download waits in staged/ under its final name; publishing moves the folder whole")
    func firstRunStagesUnderFinalNames() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, source, storage, loader) = try await Self.pngStore(in: directory)
        await storage.stageUnderFinalNames()
        // Same bytes and the same file name in two folders: the same slug, told apart by the key.
        let keys = [CanonicalURL("http://h/x/photo.png")!, CanonicalURL("http://h/y/photo.png")!]
        guard let stored = await Self.downloadAll(keys, with: loader) else { return }
        // Neither row is written yet (a batch is 64), and still the second name is another.
        #expect(stored.allSatisfy { $0.stagedName == $0.fileName })
        #expect(stored[0].fileName != stored[1].fileName)
        // Nothing outside .catalog-mirror/ before the run publishes: no images/ at all.
        #expect(!FileManager.default.fileExists(atPath: layout.images.path))
        let staged = { Set(try FileManager.default.contentsOfDirectory(atPath: layout.staged.path)) }
        #expect(try staged() == Set(stored.map(\.fileName)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.temporary.path).isEmpty)

        // A run that stops here keeps them: the next one revalidates them where they are.
        await ImageDatabase.close(storage)
        #expect(try StateDatabase.open(layout, readOnly: true).allImages().sorted { $0.key < $1.key } == stored)
        let resumed = try await ImageDatabase.open(layout)
        await resumed.stageUnderFinalNames()
        let nextLoader = ImageLoader(storage: resumed, source: source)
        for (key, image) in zip(keys, stored) {
            #expect(await resumed.lookup(key) == image)
            guard case .stored(_, from: .disk) = await nextLoader.load(ImageRequest(key: key)) else {
                Issue.record("\(key) was not found in staged/")
                return
            }
        }
        #expect(source.conditionalCalls.withLock { $0 } == 2)

        // Publishing renames staged/ to images/ and marks every row published.
        try await resumed.publish(keys)
        let files = { Set(try FileManager.default.contentsOfDirectory(atPath: layout.images.path)) }
        #expect(try files() == Set(stored.map(\.fileName)))
        #expect(try staged().isEmpty)
        for image in stored {
            #expect(sha256Hex(Array(try Data(contentsOf: layout.images.appendingPathComponent(image.fileName)))) == image.sha256)
            #expect(await resumed.lookup(image.key)?.isStaged == false)
        }
        await ImageDatabase.close(resumed)
        #expect(try StateDatabase.open(layout, readOnly: true).allImages().allSatisfy { !$0.isStaged })
    }

    @Test("a first run into an images/ that holds files renames each staged file; a kill after the folder moved is settled")
    func firstRunBesideFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        try FileManager.default.createDirectory(at: layout.images, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: layout.images.appendingPathComponent("notes.txt"))
        let source = await Self.openSource(SampleImage.bundled.first { $0.format == "png" }!.bytes)
        let storage = try await ImageDatabase.open(layout)
        await storage.stageUnderFinalNames()
        let keys = [CanonicalURL("http://h/a.png")!, CanonicalURL("http://h/b.png")!]
        guard let stored = await Self.downloadAll(keys, with: ImageLoader(storage: storage, source: source)) else { return }
        try await storage.publish(keys)
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: layout.images.path))
                == Set(stored.map(\.fileName) + ["notes.txt"]))
        await ImageDatabase.close(storage)
        #expect(try StateDatabase.open(layout, readOnly: true).allImages().allSatisfy { !$0.isStaged })

        // A kill between the folder's rename and the rows' update: rows staged, files in images/.
        let other = try TemporaryDirectory()
        defer { other.cleanup() }
        let killed = MirrorLayout(root: other.url)
        let first = try await ImageDatabase.open(killed)
        await first.stageUnderFinalNames()
        guard let rows = await Self.downloadAll(keys, with: ImageLoader(storage: first, source: source)) else { return }
        await ImageDatabase.close(first)
        try FileManager.default.moveItem(at: killed.staged, to: killed.images)
        let settled = try await ImageDatabase.open(killed)
        for image in rows { #expect(await settled.lookup(image.key)?.isStaged == false) }
        await ImageDatabase.close(settled)
    }

    @Test("on a first run a batch lookup finds every row the run wrote, written yet or not, without asking for the rest")
    func firstRunLookup() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, _, storage, loader) = try await Self.pngStore(in: directory)
        await storage.stageUnderFinalNames()
        await Task { @ImageDatabase in storage.stagedDelay = .seconds(3_600) }.value
        let keys = (0..<70).map { CanonicalURL("http://h/\($0).png")! }
        guard let stored = await Self.downloadAll(keys, with: loader) else { return }
        // The first 64 rows are written, the last 6 wait; the lookup sees both kinds.
        #expect(try StateDatabase.open(layout, readOnly: true).allImages().count == 64)
        let asked = [keys[0], keys[63], keys[69], CanonicalURL("http://h/new.png")!]
        let found = await storage.lookup(asked)
        for (index, expected) in [stored[0], stored[63], stored[69]].enumerated() {
            guard case .stored(let image) = found[index] else {
                Issue.record("\(asked[index]) was not found: \(found[index])")
                continue
            }
            #expect(image == expected)
        }
        guard case .none = found[3] else {
            Issue.record("a key never stored was found: \(found[3])")
            return
        }
        await ImageDatabase.close(storage)
    }

    @Test("finishing a publish keeps the rows and files the manifest names, in whatever order, and nothing else")
    func finishKeepsReferenced() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, _, storage, loader) = try await Self.pngStore(in: directory)
        let keys = (0..<6).map { CanonicalURL("http://h/photo-\($0).png")! }
        var stored: [StoredImage] = []
        for key in keys {
            guard case .stored(let image, _) = await loader.load(ImageRequest(key: key)) else {
                Issue.record("\(key) was not stored")
                return
            }
            stored.append(image)
        }
        try await storage.publish(keys)
        try Data("x".utf8).write(to: layout.images.appendingPathComponent("stray.png"))
        // Out of key order; the third names another file than its row's, so its row goes.
        let items = [4, 0, 2].map { (index: Int) -> Manifest.Item in
            let image = stored[index]
            return Manifest.Item(
                key: image.key.string, path: index == 2 ? "images/other.png" : image.path, sha256: image.sha256,
                bytes: image.byteCount, contentType: image.contentType, firstSeen: Date(), lastChecked: Date())
        }
        let manifest = Manifest(source: "http://h/", generatedAt: Date(), items: items, rejected: [])
        let deleted = await storage.finishPublishing(manifest)
        #expect(Set(deleted) == Set([1, 2, 3, 5].map { stored[$0].fileName } + ["stray.png"]))
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: layout.images.path))
                == [stored[0].fileName, stored[4].fileName])
        await ImageDatabase.close(storage)
        let rows = try StateDatabase.open(layout, readOnly: true).allImages()
        #expect(rows.map(\.key) == [keys[0], keys[4]])
    }

    @Test("staged rows are committed every 64 downloads, and every second, without waiting for the run to end")
    func stagedRowsBatched() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let (layout, source, storage, loader) = try await Self.pngStore(in: directory)
        func committed() throws -> Int {
            try StateDatabase.open(layout, readOnly: true).allImages().filter(\.isStaged).count
        }
        // By count: no time limit, 70 downloads.
        await Task { @ImageDatabase in storage.stagedDelay = .seconds(3_600) }.value
        for index in 0..<70 {
            _ = await loader.load(ImageRequest(key: CanonicalURL("http://h/\(index).png")!))
        }
        // The first 64 are in the database while the store is still open; the last 6 wait.
        #expect(try committed() == 64)
        await ImageDatabase.close(storage)

        // By time, in another store: a download more than the delay after the oldest waiting
        // one commits them both.
        let later = MirrorLayout(root: directory.url.appendingPathComponent("later"))
        let timed = try await ImageDatabase.open(later)
        await Task { @ImageDatabase in timed.stagedDelay = .milliseconds(200) }.value
        let timedLoader = ImageLoader(storage: timed, source: source)
        _ = await timedLoader.load(ImageRequest(key: CanonicalURL("http://h/first.png")!))
        #expect(try StateDatabase.open(later, readOnly: true).allImages().filter(\.isStaged).isEmpty)
        // Sleeps never end early: the next download comes more than the delay after the first.
        try await Task.sleep(for: .milliseconds(300))
        _ = await timedLoader.load(ImageRequest(key: CanonicalURL("http://h/second.png")!))
        #expect(try StateDatabase.open(later, readOnly: true).allImages().filter(\.isStaged).count == 2)
        await ImageDatabase.close(timed)
    }
}
