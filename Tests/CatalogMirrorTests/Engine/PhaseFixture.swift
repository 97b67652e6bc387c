import Foundation
import MirrorTestSupport
import Testing

@testable import CatalogMirror
@testable import MirrorCatalog
@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorPublish
@testable import MirrorStore
@testable import SampleGallery

/// A mirror in a temporary directory, and what the plan, publish and report phases take:
/// images staged in a real store (`ImageDatabase.withStore`) as a checked download is staged,
/// and the catalog entries a collection would make of them.
struct PhaseFixture {
    let directory: TemporaryDirectory
    var configuration: MirrorConfiguration
    let template: SiteTemplate

    var layout: MirrorLayout { MirrorLayout(root: directory.url) }

    init() throws {
        directory = try TemporaryDirectory()
        configuration = MirrorConfiguration(source: CanonicalURL("http://gallery.test/")!, output: directory.url)
        template = try SiteTemplate.embedded()
    }

    func cleanup() { directory.cleanup() }

    static func key(_ name: String) -> CanonicalURL { CanonicalURL("http://gallery.test/\(name).png")! }

    /// A PNG whose bytes differ by `variant`.
    static func png(_ variant: UInt8 = 0) -> [UInt8] {
        SampleImage.bundled.first { $0.format == "png" }!.bytes + [variant]
    }

    /// The accepted entry of `name` with `outcome`, as a collection leaves it.
    static func entry(_ name: String, _ outcome: CatalogEntry.Outcome?) -> CatalogEntry {
        let entry = CatalogEntry(key: key(name), reference: ImageReference(url: key(name).string), verdict: .accepted)
        entry.outcome = outcome
        return entry
    }

    /// Stages `bytes` as the download of `name` into `storage`, and returns its entry.
    static func stage(_ name: String, _ bytes: [UInt8], in storage: DiskStorage) async throws -> CatalogEntry {
        let path = storage.downloadDirectory + "/\(UUID().uuidString).part"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = DownloadedFile(
            temporaryPath: path, sha256: sha256Hex(bytes), byteCount: Int64(bytes.count), format: .png)
        let stored = try await storage.stage(file, for: ImageRequest(key: key(name)), at: Date())
        return entry(name, .stored(staged: stored.isStaged))
    }

    /// Runs `body` with the mirror's store open (read-only for a dry run), as a run does.
    func withStore<T>(_ body: (DiskStorage) async throws -> T) async throws -> T {
        try await ImageDatabase.withStore(layout, readOnly: configuration.dryRun) { storage in
            do {
                return Result<T, any Error>.success(try await body(storage))
            } catch {
                return .failure(error)
            }
        }.get()
    }

    /// The plan phase over `entries` (in key order, as a collection leaves them).
    func plan(_ entries: [CatalogEntry], summary: CrawlSummary = CrawlSummary(), storage: DiskStorage)
        async throws(MirrorError) -> PlannedRun
    {
        let collected = Collector.Collected(catalog: CatalogEntry.sortedByKey(entries), summary: summary, groups: nil)
        return try await PlanPhase(configuration: configuration).plan(collected, storage: storage)
    }

    /// The publish phase of `planned`, after the flush of what `storage` staged.
    func publish(_ planned: PlannedRun, storage: DiskStorage) async throws(MirrorError) -> PublishedRun {
        try await PublishPhase(configuration: configuration, storage: storage, template: template)
            .publish(planned, after: storage.flushDownloads(downloaded: planned.plan.staged.count))
    }

    /// `publish(_:storage:)`'s published run, or the error that stopped it.
    func publishing(_ planned: PlannedRun, storage: DiskStorage) async -> Result<PublishedRun, MirrorError> {
        do {
            return .success(try await publish(planned, storage: storage))
        } catch {
            return .failure(error)
        }
    }

    /// A first run that publishes `names`, each staged with bytes `png(variant)`.
    func publishFirstRun(_ names: [String], variant: UInt8 = 0) async throws {
        try await withStore { storage in
            await storage.stageUnderFinalNamesOnFirstRun()
            var entries: [CatalogEntry] = []
            for name in names { entries.append(try await Self.stage(name, Self.png(variant), in: storage)) }
            _ = try await publish(try await plan(entries, storage: storage), storage: storage)
        }
    }

    /// The keys `manifest.json` lists, and the file of each.
    func manifestItems() throws -> [String: String] {
        let manifest = try Manifest.read(from: layout.manifest)
        return Dictionary(uniqueKeysWithValues: manifest.items.map { ($0.key, $0.path) })
    }

    /// Every file under the mirror (`.catalog-mirror/` included) with its size and content's
    /// modification time: what "nothing changed" compares.
    func snapshot() -> [String: String] {
        var files: [String: String] = [:]
        let root = layout.root.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return files }
        while let path = walker.nextObject() as? String {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: root + "/" + path) else { continue }
            let size = (attributes[.size] as? Int) ?? -1
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            files[path] = "\(size) \(modified)"
        }
        return files
    }
}
