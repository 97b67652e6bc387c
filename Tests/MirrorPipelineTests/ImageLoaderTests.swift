import Foundation
import MirrorTestSupport
import Synchronization
import Testing

@testable import MirrorCore
@testable import MirrorFetch
@testable import MirrorPipeline
@testable import MirrorStore
@testable import SampleGallery

/// An image source that counts its calls, signals when one starts, and waits on a latch before
/// answering, so tests decide exactly when downloads finish.
final class CountingSource: ImageSource {
    let calls = Mutex<[String]>([])
    /// Requests that came with validators (conditional ones).
    let conditionalCalls = Mutex(0)
    let started: AsyncStream<String>
    private let startedContinuation: AsyncStream<String>.Continuation
    let latch = Latch()
    let bytes: [UInt8]

    init(bytes: [UInt8]) {
        self.bytes = bytes
        (started, startedContinuation) = AsyncStream.makeStream()
    }

    /// Revalidation batches asked for, by their keys.
    let batches = Mutex<[[String]]>([])

    /// Records the batch, then answers each request as `download` does.
    func revalidate(_ requests: [ImageRequest], into directory: String) async -> [Result<Download, FetchFailure>] {
        batches.withLock { $0.append(requests.map(\.key.string)) }
        var results: [Result<Download, FetchFailure>] = []
        for request in requests { results.append(await download(request, into: directory)) }
        return results
    }

    func download(_ request: ImageRequest, into directory: String) async -> Result<Download, FetchFailure> {
        calls.withLock { $0.append(request.key.string) }
        startedContinuation.yield(request.key.string)
        await latch.wait()
        if let validators = request.validators, validators.etag == "\"e\"" {
            conditionalCalls.withLock { $0 += 1 }
            return .success(.notModified(validators))
        }
        let url = URL(fileURLWithPath: directory).appendingPathComponent(UUID().uuidString + ".part")
        guard FileManager.default.createFile(atPath: url.path, contents: Data(bytes)) else {
            return .failure(FetchFailure(.networkError, "cannot write"))
        }
        return .success(
            .file(
                DownloadedFile(
                    temporaryPath: url.path, sha256: sha256Hex(bytes), byteCount: Int64(bytes.count), format: .png, etag: "\"e\"",
                    lastModified: nil,
                    dimensions: ImageHeader.dimensions(.png, head: bytes, length: Int64(bytes.count)) { _, _ in [] })))
    }
}

@Suite("ImageLoader and the store")
struct ImageLoaderTests {
    let png = SampleImage.bundled.first { $0.format == "png" }!.bytes

    @Test("two callers for one key cause one download")
    func coalesces() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let storage = try await ImageDatabase.open(MirrorLayout(root: directory.url))
        let source = CountingSource(bytes: png)
        let loader = ImageLoader(storage: storage, source: source)
        let request = ImageRequest(key: CanonicalURL("http://h/gallery/image?1")!, title: "One")

        async let first = loader.load(request)
        // Given the first load is inside the source (so its task is recorded) ...
        var startedIterator = source.started.makeAsyncIterator()
        _ = await startedIterator.next()
        // ... when a second caller asks for the same key, it joins (a memory hit) ...
        async let second = loader.load(request)
        var hits = loader.memoryHits.makeAsyncIterator()
        #expect(await hits.next() == 1)
        // ... and only then the download completes: both get the same stored image.
        await source.latch.open()
        let (a, b) = await (first, second)
        #expect(a == b)
        #expect(source.calls.withLock { $0 } == ["http://h/gallery/image?1"])
        guard case .stored(let stored, from: .network) = a else {
            Issue.record("expected a download, got \(a)")
            return
        }
        #expect(stored.isStaged)
        #expect(stored.fileName.hasPrefix("one-"))
        await ImageDatabase.close(storage)
    }

    @Test("a batch lookup answers as a lookup per key: published, staged, confirmed, missing file, no row, repeated")
    func batchLookup() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        let storage = try await ImageDatabase.open(layout)
        let source = CountingSource(bytes: png)
        await source.latch.open()
        let loader = ImageLoader(storage: storage, source: source)
        let keys = ["a", "b", "c", "d"].map { CanonicalURL("http://h/\($0).png")! }
        for key in keys { _ = await loader.load(ImageRequest(key: key, title: key.string)) }
        // a, b and c are published (d stays staged); c's file then disappears; a is confirmed
        // by a 304 whose row is not written yet.
        try await storage.publish(Array(keys.prefix(3)))
        guard let c = await storage.lookup(keys[2]) else {
            Issue.record("c was not stored")
            return
        }
        try FileManager.default.removeItem(at: layout.root.appendingPathComponent(c.path))
        let confirmed = try await storage.confirm(keys[0], validators: Validators(etag: "\"new\"", lastModified: nil), at: Date())
        #expect(confirmed?.etag == "\"new\"")

        let asked = keys + [CanonicalURL("http://h/none.png")!, keys[0]]
        let batch = await storage.lookup(asked)
        #expect(batch.count == asked.count)
        for (key, answer) in zip(asked, batch) {
            let single = await storage.lookup(key)
            switch answer {
            case .stored(let image): #expect(image == single, "\(key)")
            case .none: #expect(single == nil, "\(key)")
            case .unknown: Issue.record("\(key) was not looked up")
            }
        }
        #expect(batch[0] == .stored(confirmed!))
        #expect(batch[2] == .none && batch[4] == .none)
        guard case .stored(let staged) = batch[3] else {
            Issue.record("the staged d was not found")
            return
        }
        #expect(staged.isStaged)
        // A load that comes with the batch's answer does not ask the store again, and
        // revalidates with the stored copy's validators.
        var request = ImageRequest(key: keys[1])
        request.stored = batch[1]
        guard case .stored(_, from: .disk) = await ImageLoader(storage: storage, source: source).load(request) else {
            Issue.record("b was not revalidated")
            return
        }
        #expect(source.conditionalCalls.withLock { $0 } == 1)
        await ImageDatabase.close(storage)
    }

    @Test("a repeat joins the load reserved for its key: it waits for that load's outcome, and the source sees one request")
    func joinReserved() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let storage = try await ImageDatabase.open(MirrorLayout(root: directory.url))
        let source = CountingSource(bytes: png)
        let loader = ImageLoader(storage: storage, source: source)
        let key = CanonicalURL("http://h/a.png")!
        // Given a key reserved, whose load has not reached the loader ...
        await loader.reserve([key])
        // ... a repeat joins it (a memory hit, counted as it joins) ...
        async let joined = loader.join(key)
        var hits = loader.memoryHits.makeAsyncIterator()
        #expect(await hits.next() == 1)
        #expect(source.calls.withLock { $0.isEmpty })
        // ... a second reservation changes nothing, and the load does the work once.
        await loader.reserve([key])
        async let loaded = loader.load(ImageRequest(key: key))
        var started = source.started.makeAsyncIterator()
        #expect(await started.next() == key.string)
        await source.latch.open()
        let (outcome, answer) = await (loaded, joined)
        guard case .stored(_, from: .network) = outcome else {
            Issue.record("expected a download, got \(outcome)")
            return
        }
        #expect(answer == outcome)
        #expect(source.calls.withLock { $0 } == [key.string])
        // The load itself was no hit: the count stays at the one join.
        await loader.finishStreams()
        var last = 1
        while let count = await hits.next() { last = count }
        #expect(last == 1)
        var totals: ImageLoader.DownloadTotals?
        for await value in loader.downloads { totals = value }
        #expect(totals == ImageLoader.DownloadTotals(count: 1, bytes: Int64(png.count)))
        await ImageDatabase.close(storage)
    }

    @Test("a join never loads: a key evicted or never reserved answers nil and counts nothing; a held one is a hit")
    func joinHeldOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let storage = try await ImageDatabase.open(MirrorLayout(root: directory.url))
        let source = CountingSource(bytes: png)
        await source.latch.open()
        let loader = ImageLoader(storage: storage, source: source, capacity: 1)
        let (a, b, c) = (CanonicalURL("http://h/a.png")!, CanonicalURL("http://h/b.png")!, CanonicalURL("http://h/c.png")!)
        _ = await loader.load(ImageRequest(key: a))
        let outcome = await loader.load(ImageRequest(key: b))
        // a was evicted by b (capacity 1); c was never asked for.
        #expect(await loader.join(a) == nil)
        #expect(await loader.join(c) == nil)
        #expect(await loader.join(b) == outcome)
        // A batch's repeats join in one call, each answered in the order given.
        #expect(await loader.join([a, b, c, b]) == [nil, outcome, nil, outcome])
        #expect(source.calls.withLock { $0 } == [a.string, b.string])
        await loader.finishStreams()
        var last: Int?
        for await count in loader.memoryHits { last = count }
        #expect(last == 3)
        var totals: ImageLoader.DownloadTotals?
        for await value in loader.downloads { totals = value }
        #expect(totals == ImageLoader.DownloadTotals(count: 2, bytes: 2 * Int64(png.count)))
        await ImageDatabase.close(storage)
    }

    @Test("a reserved key in a revalidation batch is revalidated there, and its joiner gets that outcome")
    func joinRevalidation() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let storage = try await ImageDatabase.open(MirrorLayout(root: directory.url))
        let source = CountingSource(bytes: png)
        await source.latch.open()
        let key = CanonicalURL("http://h/a.png")!
        _ = await ImageLoader(storage: storage, source: source).load(ImageRequest(key: key))
        try await storage.publish([key])
        var request = ImageRequest(key: key)
        request.stored = await storage.lookup([key])[0]

        let loader = ImageLoader(storage: storage, source: source)
        await loader.reserve([key])
        async let joined = loader.join(key)
        var hits = loader.memoryHits.makeAsyncIterator()
        #expect(await hits.next() == 1)
        let outcomes = await loader.revalidate([request])
        guard case .stored(_, from: .disk)? = outcomes.first?.outcome else {
            Issue.record("expected a 304, got \(outcomes)")
            return
        }
        #expect(await joined == outcomes.first?.outcome)
        #expect(source.batches.withLock { $0 } == [[key.string]])
        #expect(source.calls.withLock { $0.count } == 2)
        await ImageDatabase.close(storage)
    }

    @Test("a published file is a disk hit on the next run, and a repeat a memory hit")
    func diskHits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        let key = CanonicalURL("http://h/a.png")!
        // First run: download, publish, write a manifest.
        var storage = try await ImageDatabase.open(layout)
        let source = CountingSource(bytes: png)
        await source.latch.open()
        var loader = ImageLoader(storage: storage, source: source)
        guard case .stored(let stored, _) = await loader.load(ImageRequest(key: key)) else {
            Issue.record("no download")
            return
        }
        try await storage.publish([key])
        let manifest = Manifest(
            source: "http://h/", generatedAt: Date(),
            items: [
                .init(
                    key: key.string, path: stored.path, sha256: stored.sha256, bytes: stored.byteCount, contentType: "image/png",
                    firstSeen: stored.firstSeen, lastChecked: stored.lastChecked)
            ], rejected: [])
        try manifest.encoded().write(to: layout.manifest)
        await ImageDatabase.close(storage)

        // Second run: the index is rebuilt from disk in setUp(); the stored copy is revalidated
        // with a conditional request, answered 304: no download.
        storage = try await ImageDatabase.open(layout)
        loader = ImageLoader(storage: storage, source: source)
        var diskHits = storage.diskHits.makeAsyncIterator()
        guard case .stored(let again, from: .disk) = await loader.load(ImageRequest(key: key)) else {
            Issue.record("expected a disk hit")
            return
        }
        #expect(await diskHits.next() == 1)
        #expect(again.fileName == stored.fileName)
        #expect(source.calls.withLock { $0.count } == 2)
        #expect(source.conditionalCalls.withLock { $0 } == 1)
        // Asked once more, it is answered from memory: no call of the source, not even a
        // conditional one.
        _ = await loader.load(ImageRequest(key: key))
        #expect(source.calls.withLock { $0.count } == 2)
        await ImageDatabase.close(storage)
    }

    @Test("a revalidation batch: one request of the source, 304s confirmed as disk hits, a changed image staged, a repeat joined")
    func revalidationBatch() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        let storage = try await ImageDatabase.open(layout)
        let source = CountingSource(bytes: png)
        await source.latch.open()
        let keys = (1...4).map { CanonicalURL("http://h/gallery/image?\($0)")! }
        // Given four stored images (the source answers with ETag "e")...
        for key in keys { _ = await ImageLoader(storage: storage, source: source).load(ImageRequest(key: key)) }
        try await storage.publish(keys)
        // ...the fourth of which the next run finds with other validators (so it is downloaded).
        let found = await storage.lookup(keys)
        var requests = zip(keys, found).map { key, lookup in
            var request = ImageRequest(key: key)
            request.stored = lookup
            return request
        }
        guard case .stored(var changed) = requests[3].stored else {
            Issue.record("image 4 is not stored")
            return
        }
        changed.etag = "\"old\""
        requests[3].stored = .stored(changed)

        let loader = ImageLoader(storage: storage, source: source)
        var hits = storage.diskHits.makeAsyncIterator()
        let outcomes = await loader.revalidate(requests)
        #expect(source.batches.withLock { $0 } == [keys.map(\.string)])
        #expect(outcomes.count == 4)
        for (key, outcome) in outcomes {
            guard case .stored(let image, let provenance) = outcome else {
                Issue.record("\(key): \(outcome)")
                continue
            }
            #expect(provenance == .disk && image.key == key)
        }
        // A repeat is answered from memory; the three 304s were counted as disk hits.
        #expect(await loader.load(requests[0]) == outcomes.first { $0.key == keys[0] }?.outcome)
        #expect(source.calls.withLock { $0.count } == 8)
        await ImageDatabase.close(storage)
        var lastHits = 0
        while let count = await hits.next() { lastHits = count }
        #expect(lastHits == 3)
    }

    @Test("the memory cache is bounded")
    func bounded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let storage = try await ImageDatabase.open(MirrorLayout(root: directory.url))
        let source = CountingSource(bytes: png)
        await source.latch.open()
        let loader = ImageLoader(storage: storage, source: source, capacity: 3)
        func key(_ index: Int) -> CanonicalURL { CanonicalURL("http://h/\(index).png")! }
        for index in 0..<10 { _ = await loader.load(ImageRequest(key: key(index))) }
        #expect(source.calls.withLock { $0.count } == 10)
        // The last three outcomes are held: asked again, each is answered from memory, the
        // source not called (a stored key would be asked with its validators);
        for index in 7..<10 { _ = await loader.load(ImageRequest(key: key(index))) }
        #expect(source.calls.withLock { $0.count } == 10)
        // the first was let go: asked again, it goes to the store and the source.
        _ = await loader.load(ImageRequest(key: key(0)))
        #expect(source.calls.withLock { $0.count } == 11)
        await ImageDatabase.close(storage)
    }

    @Test("one store per directory at a time")
    func exclusive() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        let storage = try await ImageDatabase.open(layout)
        await #expect(throws: StoreError.self) { try await ImageDatabase.open(layout) }
        await ImageDatabase.close(storage)
        await ImageDatabase.close(try await ImageDatabase.open(layout))
    }
}

/// A latch that callers wait on until it is opened; proves ordering without timing.
actor Latch {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
