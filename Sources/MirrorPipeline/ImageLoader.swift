import Foundation
import MirrorCore
import MirrorFetch
import MirrorStore

/// Loads images for the mirror: memory cache → disk (the store) → download.
///
/// Concurrent requests for one key share one load: the entry is recorded as under way before
/// the first suspension point (or earlier, by `reserve(_:)`, before the caller spawns the task
/// that loads it), so a second caller finds it and waits for the first caller's outcome; the
/// server never sees duplicate requests. The load runs in the first caller's task (the
/// collector's child task), not in a task of its own: one task per image, not two. The memory
/// holds outcomes (small records, never image bytes) and is bounded: the oldest completed
/// entries are evicted first.
///
/// A memory hit is a request answered here without the disk or the network: a `load` or `join`
/// of a key whose load is under way (it waits for that load's outcome), or whose outcome is
/// still held. In a sync, the validator chain decides that a repeated sighting of a key is a
/// `.duplicate`, and the collector `join`s the key's load with it: that is where the run's
/// memory hits come from. A join never starts a load: a key whose outcome was evicted, or that
/// nobody reserved or loaded, answers nil and counts nothing.
package actor ImageLoader {
    /// How a load ended.
    package enum Outcome: Sendable, Equatable {
        /// The image is in the store (published, or staged for this run's publish step).
        case stored(StoredImage, from: Provenance)
        /// The key could not be mirrored, for this reason.
        case failed(FetchFailure)
        /// The store itself failed (disk full, permissions): the run must stop.
        case storeFailed(String)
        /// A dry run found the key new or changed (nothing was downloaded).
        case probed
        /// A guessed key answered with an HTML page (`Download.page`): a page, not an image.
        /// Memory keeps only that the key is not an image, never the page's bytes.
        case page(FetchedDocument)
    }

    /// Where a stored outcome came from.
    package enum Provenance: String, Sendable, Equatable {
        /// The stored copy, confirmed current (304, or identical bytes).
        case disk
        /// New bytes downloaded.
        case network
    }

    private enum Entry {
        /// Reserved (`reserve(_:)`): the load that will do the work has not reached the loader
        /// yet; the callers that joined wait here.
        case reserved(waiting: [Waiter])
        /// Loading in the first caller's task; the callers that joined wait here.
        case loading(waiting: [Waiter])
        case completed(Outcome)

        var waiting: [Waiter] {
            switch self {
            case .reserved(let waiting), .loading(let waiting): waiting
            case .completed: []
            }
        }
    }

    /// A joined caller waiting for one key's outcome: its place in a `JoinedLoads`.
    private struct Waiter {
        let join: JoinedLoads
        let index: Int
    }

    /// The outcomes one caller waits for (a `join` of several keys, or one), filled in as their
    /// loads end; the caller resumes when the last one is in. A class confined to the actor: a
    /// caller joining many keys waits on one continuation, not one each.
    private final class JoinedLoads {
        private var outcomes: [Outcome?]
        private var remaining: Int
        private let continuation: CheckedContinuation<[Outcome?], Never>

        init(count: Int, continuation: CheckedContinuation<[Outcome?], Never>) {
            outcomes = Array(repeating: nil, count: count)
            remaining = count
            self.continuation = continuation
            if count == 0 { continuation.resume(returning: []) }
        }

        func fill(_ index: Int, with outcome: Outcome?) {
            outcomes[index] = outcome
            remaining -= 1
            if remaining == 0 { continuation.resume(returning: outcomes) }
        }
    }

    /// Running count of memory hits: `load`s and `join`s of a key that was reserved, loading
    /// or held completed here, each answered with that load's outcome and nothing asked of the
    /// store or the source. Published at most every 50 ms and when the stream ends.
    package nonisolated let memoryHits: AsyncStream<Int>
    /// Running totals of downloads: image bodies received and checked (`Download.file`) that
    /// the store took (staged, or dropped for the stored file it is byte for byte), and their
    /// bytes; 304s, pages, probes, failures and bodies the store could not take are not
    /// downloads. Published at most every 50 ms and when the stream ends.
    package nonisolated let downloads: AsyncStream<DownloadTotals>
    private nonisolated let memoryHitsContinuation: AsyncStream<Int>.Continuation
    private var memoryHitCount = CountStream()
    private nonisolated let downloadsContinuation: AsyncStream<DownloadTotals>.Continuation
    private var downloadTotals = CountStream(DownloadTotals())

    /// How many downloads completed (new bytes checked and stored), and their bytes.
    package struct DownloadTotals: Sendable, Equatable {
        /// Downloads completed.
        package var count = 0
        /// Their bytes.
        package var bytes: Int64 = 0
    }

    private let storage: DiskStorage
    private let source: any ImageSource
    private let capacity: Int
    private let now: @Sendable () -> Date
    /// Loads reserved or under way (coalescing: a second request for a key joins the first) and
    /// the latest outcomes (a memory hit), the completed ones bounded by `capacity`. Not a
    /// record of the keys this run has seen: that is `DuplicateRule`'s, and the collector loads
    /// each key once.
    private var entries: [CanonicalURL: Entry] = [:]
    /// Completed keys, oldest first, for eviction; `evictionHead` skips the consumed prefix.
    private var completionOrder: [CanonicalURL] = []
    private var evictionHead = 0

    /// A loader with an empty memory in front of `storage`, downloading from `source`.
    ///
    /// - Parameters:
    ///   - storage: the mirror's store: stored copies are revalidated, new bytes staged there.
    ///   - source: where images come from (HTTP, or a probe for a dry run).
    ///   - capacity: completed outcomes kept in memory. Default: 512 (the collector loads each key
    ///     once; the memory answers repeated sightings close together, and each entry costs
    ///     memory per key).
    ///   - now: the clock for `firstSeen`/`lastChecked`. Default: the system clock.
    package init(
        storage: DiskStorage, source: any ImageSource, capacity: Int = 512,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.storage = storage
        self.source = source
        self.capacity = max(1, capacity)
        self.now = now
        memoryHits = memoryHitCount.stream
        memoryHitsContinuation = memoryHitCount.continuation
        downloads = downloadTotals.stream
        downloadsContinuation = downloadTotals.continuation
    }

    deinit {
        memoryHitsContinuation.finish()
        downloadsContinuation.finish()
    }

    /// Records `keys` as under way, before the caller spawns the tasks that load them, so that a
    /// `join` of one of them waits for its load whichever task reaches the loader first. A key
    /// already under way or held is left as it is. Every key reserved must then be loaded
    /// (`load` or `revalidate`): its joiners wait for that load.
    package func reserve(_ keys: [CanonicalURL]) {
        for key in keys where entries[key] == nil { entries[key] = .reserved(waiting: []) }
    }

    /// Joins the loads of `keys` without ever starting one, all in one turn of the actor: for
    /// each key, in the order given, the outcome of the load reserved or under way (waited
    /// for), or the outcome still held; nil, counting nothing, when the loader holds nothing
    /// for it (never asked for, or evicted). Each non-nil answer is a memory hit.
    package func join(_ keys: [CanonicalURL]) async -> [Outcome?] {
        for key in keys where entries[key] != nil { countMemoryHit() }
        return await outcomes(of: keys)
    }

    /// `join(_:)` of one key.
    package func join(_ key: CanonicalURL) async -> Outcome? {
        await join([key])[0]
    }

    /// The outcomes of `keys`' loads, each at once when held or absent (nil), else when the
    /// load reserved or under way ends; returns when the last is in.
    private func outcomes(of keys: [CanonicalURL]) async -> [Outcome?] {
        await withCheckedContinuation { continuation in
            // Runs on this actor before any other turn: the entries are the ones the caller saw.
            let join = JoinedLoads(count: keys.count, continuation: continuation)
            for (index, key) in keys.enumerated() {
                let waiter = Waiter(join: join, index: index)
                switch entries[key] {
                case .reserved(let waiting): entries[key] = .reserved(waiting: waiting + [waiter])
                case .loading(let waiting): entries[key] = .loading(waiting: waiting + [waiter])
                case .completed(let outcome): join.fill(index, with: outcome)
                case nil: join.fill(index, with: nil)
                }
            }
        }
    }

    /// Loads `request.key`, joining a load already under way for it, or doing the load
    /// reserved for it (`reserve(_:)`).
    ///
    /// The first caller does the work in its own task; cancelling it ends the load (the joined
    /// callers get the same, cancelled, outcome).
    package func load(_ request: ImageRequest) async -> Outcome {
        switch entries[request.key] {
        case .completed, .loading:
            countMemoryHit()
            if let outcome = await outcomes(of: [request.key])[0] { return outcome }
        case .reserved, nil:
            break
        }
        // Recorded before the first await below: a concurrent caller joins this load.
        entries[request.key] = .loading(waiting: entries[request.key]?.waiting ?? [])
        let (outcome, downloaded) = await Self.resolve(request, storage: storage, source: source, now: now)
        if let downloaded {
            downloadTotals.update {
                $0.count += 1
                $0.bytes += downloaded
            }
        }
        let remembered = Self.remembered(outcome, for: request.key)
        for waiter in entries[request.key]?.waiting ?? [] { waiter.join.fill(waiter.index, with: remembered) }
        entries[request.key] = .completed(remembered)
        completionOrder.append(request.key)
        evictIfNeeded()
        return outcome
    }

    /// What memory keeps of `outcome`: a page's answer without its bytes (the first caller,
    /// who reads the page, has them; a repeat learns only that the key is not an image).
    private static func remembered(_ outcome: Outcome, for key: CanonicalURL) -> Outcome {
        guard case .page = outcome else { return outcome }
        return .failed(FetchFailure(.notAnImage, "\(key) is an HTML page"))
    }

    /// Revalidates `requests` as one batch: keys the store holds with validators (the engine
    /// looked them up with one query: `ImageRequest.stored`), asked of the source together
    /// (`ImageSource.revalidate`), their 304s confirmed with one call to the store. One actor
    /// turn records them all in flight, one records them all done; a key already in memory is
    /// answered from it as `load` would, and a key reserved is revalidated here. Returns each
    /// key's outcome, in no particular order.
    package func revalidate(_ requests: [ImageRequest]) async -> [(key: CanonicalURL, outcome: Outcome)] {
        var fresh: [ImageRequest] = []
        var known: [ImageRequest] = []
        for request in requests {
            switch entries[request.key] {
            case .loading, .completed:
                known.append(request)
            case .reserved, nil:
                // Recorded before the first await below: a concurrent caller joins this load.
                entries[request.key] = .loading(waiting: entries[request.key]?.waiting ?? [])
                fresh.append(request)
            }
        }
        var results: [(key: CanonicalURL, outcome: Outcome)] = []
        results.reserveCapacity(requests.count)
        for (key, outcome, downloaded) in await Self.revalidate(fresh, storage: storage, source: source, now: now) {
            if let downloaded {
                downloadTotals.update {
                    $0.count += 1
                    $0.bytes += downloaded
                }
            }
            let remembered = Self.remembered(outcome, for: key)
            for waiter in entries[key]?.waiting ?? [] { waiter.join.fill(waiter.index, with: remembered) }
            entries[key] = .completed(remembered)
            completionOrder.append(key)
            results.append((key, outcome))
        }
        evictIfNeeded()
        for request in known { results.append((request.key, await load(request))) }
        return results
    }

    /// The outcomes of a revalidation batch, and the bytes downloaded for each key that was a download.
    private static func revalidate(
        _ requests: [ImageRequest], storage: DiskStorage, source: any ImageSource, now: @Sendable () -> Date
    ) async -> [(CanonicalURL, Outcome, Int64?)] {
        guard !requests.isEmpty else { return [] }
        let asked = requests.map { request in
            var request = request
            if case .stored(let stored) = request.stored {
                let validators = Validators(etag: stored.etag, lastModified: stored.lastModified)
                request.validators = validators.isEmpty ? nil : validators
            }
            return request
        }
        let answers = await source.revalidate(asked, into: storage.downloadDirectory)
        let at = Timestamp.truncated(now())
        var results: [(CanonicalURL, Outcome, Int64?)] = []
        results.reserveCapacity(asked.count)
        var unchanged: [(key: CanonicalURL, validators: Validators)] = []
        for (request, answer) in zip(asked, answers) {
            switch answer {
            case .failure(let failure):
                results.append((request.key, failure.isLocalWrite ? .storeFailed(failure.detail) : .failed(failure), nil))
            case .success(.notModified(let validators)):
                unchanged.append((request.key, validators))
            case .success(.probed):
                results.append((request.key, .probed, nil))
            case .success(.page(let page)):
                results.append((request.key, .page(page), nil))
            case .success(.file(let file)):
                do {
                    let stored = try await storage.stage(file, for: request, at: at)
                    let sameBytes = { if case .stored(let old) = request.stored { old.sha256 == stored.sha256 } else { false } }()
                    results.append((request.key, .stored(stored, from: sameBytes ? .disk : .network), file.byteCount))
                } catch {
                    try? FileManager.default.removeItem(atPath: file.temporaryPath)
                    results.append((request.key, .storeFailed(error.message), nil))
                }
            }
        }
        guard !unchanged.isEmpty else { return results }
        switch await storage.confirm(unchanged, at: at) {
        case .success(let confirmed):
            for ((key, _), stored) in zip(unchanged, confirmed) {
                let outcome: Outcome =
                    stored.map { .stored($0, from: .disk) }
                    ?? .failed(FetchFailure(.networkError, "\(key) answered 304 to an unconditional request"))
                results.append((key, outcome, nil))
            }
        case .failure(let error):
            for (key, _) in unchanged { results.append((key, .storeFailed(error.message), nil)) }
        }
        return results
    }

    private func countMemoryHit() {
        memoryHitCount.increment()
    }

    /// The outcome of loading `request`, and the bytes downloaded for it when it was a download.
    private static func resolve(
        _ request: ImageRequest, storage: DiskStorage, source: any ImageSource, now: @Sendable () -> Date
    ) async -> (Outcome, downloaded: Int64?) {
        // A stored copy is revalidated with its validators: a 304 confirms it without a body.
        var request = request
        let stored: StoredImage?
        switch request.stored {
        case .unknown: stored = await storage.lookup(request.key)
        case .none: stored = nil
        case .stored(let image): stored = image
        }
        if let stored {
            let validators = Validators(etag: stored.etag, lastModified: stored.lastModified)
            request.validators = validators.isEmpty ? nil : validators
        }
        switch await source.download(request, into: storage.downloadDirectory) {
        case .failure(let failure):
            return (failure.isLocalWrite ? .storeFailed(failure.detail) : .failed(failure), nil)
        case .success(.notModified(let validators)):
            do {
                guard
                    let confirmed = try await storage.confirm(request.key, validators: validators, at: Timestamp.truncated(now()))
                else {
                    return (.failed(FetchFailure(.networkError, "\(request.key) answered 304 to an unconditional request")), nil)
                }
                return (.stored(confirmed, from: .disk), nil)
            } catch {
                return (.storeFailed(error.message), nil)
            }
        case .success(.probed):
            return (.probed, nil)
        case .success(.page(let page)):
            return (.page(page), nil)
        case .success(.file(let file)):
            do {
                let result = try await storage.stage(file, for: request, at: Timestamp.truncated(now()))
                return (.stored(result, from: result.sha256 == stored?.sha256 ? .disk : .network), file.byteCount)
            } catch {
                try? FileManager.default.removeItem(atPath: file.temporaryPath)
                return (.storeFailed(error.message), nil)
            }
        }
    }

    private func evictIfNeeded() {
        while completionOrder.count - evictionHead > capacity {
            let oldest = completionOrder[evictionHead]
            evictionHead += 1
            if case .completed = entries[oldest] { entries[oldest] = nil }
        }
        if evictionHead > 1024 && evictionHead * 2 > completionOrder.count {
            completionOrder.removeFirst(evictionHead)
            evictionHead = 0
        }
    }

    /// Ends the event streams; the run calls it when no more loads will come.
    package func finishStreams() {
        memoryHitCount.finish()
        downloadTotals.finish()
    }
}
