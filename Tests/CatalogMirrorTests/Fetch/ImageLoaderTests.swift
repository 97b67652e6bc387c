import Foundation
import Synchronization
import Testing

@testable import CatalogMirror
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

    func download(_ request: ImageRequest, into directory: URL) async -> Result<Download, FetchFailure> {
        calls.withLock { $0.append(request.key.string) }
        startedContinuation.yield(request.key.string)
        await latch.wait()
        if let validators = request.validators, validators.etag == "\"e\"" {
            conditionalCalls.withLock { $0 += 1 }
            return .success(.notModified(validators))
        }
        let url = directory.appendingPathComponent(UUID().uuidString + ".part")
        guard FileManager.default.createFile(atPath: url.path, contents: Data(bytes)) else {
            return .failure(FetchFailure(.networkError, "cannot write"))
        }
        return .success(
            .file(
                DownloadedFile(
                    temporaryURL: url, sha256: sha256Hex(bytes), byteCount: Int64(bytes.count), format: .png, etag: "\"e\"",
                    lastModified: nil)))
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

    @Test("a published file is a disk hit on the next run; clear() empties both caches")
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
        _ = await loader.load(ImageRequest(key: key))
        #expect(await loader.cachedCount == 1)
        await loader.clear()
        #expect(await loader.cachedCount == 0)
        try await storage.clear()
        #expect(await storage.lookup(key) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: layout.images.path).isEmpty)
        await ImageDatabase.close(storage)
    }

    @Test("the memory cache is bounded")
    func bounded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let storage = try await ImageDatabase.open(MirrorLayout(root: directory.url))
        let source = CountingSource(bytes: png)
        await source.latch.open()
        let loader = ImageLoader(storage: storage, source: source, capacity: 3)
        for index in 0..<10 { _ = await loader.load(ImageRequest(key: CanonicalURL("http://h/\(index).png")!)) }
        #expect(await loader.cachedCount == 3)
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
