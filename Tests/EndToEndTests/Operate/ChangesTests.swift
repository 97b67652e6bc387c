import Foundation
import MirrorTestSupport
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorOperate
@testable import SampleGallery

@Suite("Operating it: the report's changes")
struct ChangesTests {
    @Test(
        "changes lists exactly what three syncs of a changing gallery added, replaced and removed, with files, titles and albums")
    func threeSyncs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = GalleryServer(catalog: Fixture.catalog())
        let mirror = directory.url.appendingPathComponent("mirror")
        try await server.run { url in
            let key = { (id: Int) in "http://127.0.0.1:\(url.port!)/gallery/image?\(id)" }
            /// Runs the cron form (the first time with the URL) and returns its report and the manifest.
            func sync(_ arguments: [String]) async throws -> (RunReport, Manifest) {
                let run = try await Binary.run(["sync"] + arguments + ["--report", "report.json"], in: directory.url)
                #expect(run.status == 1, "\(run.stderr)")  // the fixture's two broken entries
                return (
                    try RunReport.decode(Data(contentsOf: directory.url.appendingPathComponent("report.json"))),
                    try Manifest.read(from: mirror.appendingPathComponent("manifest.json"))
                )
            }
            /// The entry the report should give `key` from `manifest`'s item.
            func entry(_ key: String, in manifest: Manifest) throws -> RunChanges.Entry {
                let item = try #require(manifest.items.first { $0.key == key }, "\(key) in the manifest")
                return RunChanges.Entry(key: key, path: item.path, title: item.title, album: item.album)
            }
            /// The report's changes agree with its counts and are in key order.
            func checkCounts(_ report: RunReport) throws {
                let changes = try #require(report.changes)
                #expect(changes.count(.added) == report.added)
                #expect(changes.count(.replaced) == report.replaced)
                #expect(changes.count(.removed) == report.removed)
                for kind in RunChanges.Kind.allCases {
                    let keys = changes.keys(kind)
                    #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
                }
            }

            // First sync: everything is added.
            let (first, firstManifest) = try await sync([url.absoluteString])
            try checkCounts(first)
            let firstChanges = try #require(first.changes)
            #expect(Array(firstChanges.entries(.added)) == (try firstManifest.items.map { try entry($0.key, in: firstManifest) }))
            #expect(firstChanges.count(.added) == 12 && firstChanges.count(.replaced) == 0 && firstChanges.count(.removed) == 0)
            #expect(firstChanges.entries(.added).allSatisfy { $0.title != nil && $0.album != nil })

            // Second: image 3 changes, 5 goes, 15 comes.
            server.update(mutate)
            let (second, secondManifest) = try await sync([])
            try checkCounts(second)
            let secondChanges = try #require(second.changes)
            #expect(Array(secondChanges.entries(.added)) == [try entry(key(15), in: secondManifest)])
            #expect(Array(secondChanges.entries(.replaced)) == [try entry(key(3), in: secondManifest)])
            #expect(Array(secondChanges.entries(.removed)) == [try entry(key(5), in: firstManifest)])
            #expect(secondChanges.entry(.replaced, at: 0).path != (try entry(key(3), in: firstManifest)).path)

            // Third: 7 and 9 change, 15 and 1 go, 16 and 17 come.
            server.update { catalog in
                catalog.entries[catalog.entries.firstIndex { $0.id == 7 }!].bytes = SampleImage.bundled[22].bytes
                catalog.entries[catalog.entries.firstIndex { $0.id == 9 }!].bytes = SampleImage.bundled[23].bytes
                catalog.entries.removeAll { $0.id == 15 || $0.id == 1 }
                catalog.entries.append(.init(id: 16, name: "Sixteen", price: "4.00", bytes: SampleImage.bundled[24].bytes))
                catalog.entries.append(.init(id: 17, name: "Seventeen", price: "5.00", bytes: SampleImage.bundled[25].bytes))
            }
            let (third, thirdManifest) = try await sync([])
            try checkCounts(third)
            let thirdChanges = try #require(third.changes)
            #expect(Array(thirdChanges.entries(.added)) == (try [16, 17].map { try entry(key($0), in: thirdManifest) }))
            #expect(Array(thirdChanges.entries(.replaced)) == (try [7, 9].map { try entry(key($0), in: thirdManifest) }))
            #expect(Array(thirdChanges.entries(.removed)) == (try [1, 15].map { try entry(key($0), in: secondManifest) }))
            #expect(third.unchanged == 8)

            // A dry run's report lists what a real run would do, the same way.
            server.update { $0.entries.removeAll { $0.id == 2 } }
            let dry = try await Binary.run(["sync", "--dry-run", "--report", "dry.json"], in: directory.url)
            #expect(dry.status == 1, "\(dry.stderr)")
            let dryReport = try RunReport.decode(Data(contentsOf: directory.url.appendingPathComponent("dry.json")))
            #expect(Array(try #require(dryReport.changes).entries(.removed)) == [try entry(key(2), in: thirdManifest)])
            #expect(dry.stdout.contains("delete \(key(2))"))
        }
    }
}
