import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorOperate

@Suite("The run report (--report)")
struct RunReportTests {
    /// A table of `count` items whose texts have every awkward character JSON escapes.
    static func table(_ count: Int) -> ItemTable {
        let awkward = String(decoding: (0..<0x20).map { UInt8($0) } + Array("\"\\/\u{7F}é😀".utf8), as: UTF8.self)
        var table = ItemTable()
        for index in 0..<count {
            let title: String? = index % 3 == 0 ? nil : (index == 7 ? awkward : "Title \(index) \"q\" / é")
            let album: String? = index % 2 == 0 ? "http://h/album/\(index / 10)/" : nil
            let item = Manifest.Item(
                key: "http://h/img/\(String(format: "%05d", index)).png", path: "images/\(index)-0123456789.png",
                sha256: String(repeating: "a", count: 64), bytes: Int64(index), contentType: "image/png", title: title,
                album: album, firstSeen: Date(timeIntervalSince1970: 0), lastChecked: Date(timeIntervalSince1970: 0))
            table.append(item)
        }
        return table
    }

    static func report(changes: RunChanges?) -> RunReport {
        var report = RunReport(
            source: "http://h/", output: "/srv/m", startedAt: Date(timeIntervalSince1970: 1_800_000_000),
            finishedAt: Date(timeIntervalSince1970: 1_800_000_010), durationSeconds: 10, exitStatus: 0, pages: 1, feeds: 0,
            keys: 3, published: 3, downloaded: 3, memoryHits: 0, diskHits: 0, bytesDownloaded: 30, rejected: [:], failed: [:],
            warnings: [], error: nil)
        report.changes = changes
        return report
    }

    @Test("changes are written an entry at a time, byte for byte as one JSONEncoder pass", arguments: [0, 1, 2, 700, 3000])
    func streamed(count: Int) throws {
        let items = Self.table(count)
        let added = (0..<count).filter { $0 % 4 != 1 }.map { ItemTable.Change(key: items.key(at: $0), item: Int32($0)) }
        let replaced = (0..<count).filter { $0 % 4 == 1 }.map { ItemTable.Change(key: items.key(at: $0), item: Int32($0)) }
        let removed = (0..<min(count, 5)).map { RunChanges.Entry(key: "http://h/gone/\($0)", path: "images/gone-\($0).png") }
        let changes = RunChanges(items: items, added: added, replaced: replaced, removed: removed)
        let report = Self.report(changes: changes)
        var pieces = 0
        var streamed = Data()
        try report.write { bytes in
            pieces += 1
            streamed.append(contentsOf: bytes)
        }
        #expect(streamed == (try JSONCoding.encode(report)))
        let decoded = try RunReport.decode(streamed)
        #expect(decoded == report)
        #expect(decoded.changes?.count(.added) == added.count && decoded.changes?.keys(.replaced) == replaced.map(\.key))
        if count >= 3000 { #expect(pieces > 4, "written in pieces, not whole") }
        // Each entry has the item's path, title and album.
        if count > 2 {
            let entry = try #require(decoded.changes?.entry(.added, at: 1))
            #expect(
                entry
                    == RunChanges.Entry(
                        key: items.key(at: 2), path: items.path(at: 2), title: items.title(at: 2), album: items.album(at: 2)))
        }
    }

    @Test("a report without changes (a stopped run) is written as the encoder writes it")
    func noChanges() throws {
        let report = Self.report(changes: nil)
        #expect(try report.encoded() == (try JSONCoding.encode(report)))
        #expect(!String(decoding: try report.encoded(), as: UTF8.self).contains("changes"))
        let dry = Self.report(
            changes: RunChanges(items: ItemTable(), added: [.init(key: "http://h/new.png", item: -1)], replaced: [], removed: []))
        #expect(try RunReport.decode(dry.encoded()).changes?.entry(.added, at: 0) == RunChanges.Entry(key: "http://h/new.png"))
    }

    @Test("the summary counts photos and files apart: \"20 photos in 104 files\"")
    func summaryCountsPhotos() throws {
        var report = Self.report(changes: nil)
        report.published = 104
        report.photos = 20
        #expect(report.summaryLine.hasPrefix("catalog-mirror: 20 photos in 104 files, 0 added, "), "\(report.summaryLine)")
        #expect(!report.summaryLine.contains("images published"))
        report.published = 1
        report.photos = 1
        #expect(report.summaryLine.hasPrefix("catalog-mirror: 1 photo in 1 file, "), "\(report.summaryLine)")
        // A report written before photos were counted reads back, and says files.
        var old = try JSONSerialization.jsonObject(with: report.encoded()) as? [String: Any] ?? [:]
        old["photos"] = nil
        let decoded = try RunReport.decode(JSONSerialization.data(withJSONObject: old))
        #expect(decoded.photos == nil)
        #expect(decoded.summaryLine.hasPrefix("catalog-mirror: 1 file published, "), "\(decoded.summaryLine)")
        // What the pixels said of the proposed renditions, in the summary and the report.
        report.renditionPairs = .init(matched: 53, differed: 2, unknown: 1)
        #expect(report.summaryLine.contains(", renditions: 53 matched, 2 did not, "), "\(report.summaryLine)")
        #expect(try RunReport.decode(report.encoded()).renditionPairs == report.renditionPairs)
    }

    @Test("onto /dev/null the report is written into the device, elsewhere replaced atomically")
    func writeTo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let report = Self.report(changes: RunChanges(added: [.init(key: "http://h/a.png", path: "images/a.png")]))
        try report.write(to: URL(fileURLWithPath: "/dev/null"))
        let null = try FileManager.default.attributesOfItem(atPath: "/dev/null")
        #expect(null[.type] as? FileAttributeType == .typeCharacterSpecial)
        let file = directory.url.appendingPathComponent("report.json")
        try report.write(to: file)
        #expect(try RunReport.decode(Data(contentsOf: file)) == report)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["report.json"])
    }

    @Test("removed items are read back from the last manifest: path, title and album")
    func removedEntries() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let items = Self.table(10)
        let manifest = Manifest(source: "http://h/", generatedAt: Date(timeIntervalSince1970: 0), table: items, rejected: [])
        let url = directory.url.appendingPathComponent("manifest.json")
        try manifest.encoded().write(to: url)
        let keys = [items.key(at: 2), items.key(at: 7), "http://h/not-there.png"]
        let entries = RunChanges.removedEntries(keys, manifest: url)
        #expect(entries.map(\.key) == keys)
        #expect(entries[0] == .init(key: keys[0], path: items.path(at: 2), title: items.title(at: 2), album: items.album(at: 2)))
        #expect(entries[1].title == items.title(at: 7) && entries[1].path == items.path(at: 7))
        #expect(entries[2] == .init(key: "http://h/not-there.png"))
        // Without a manifest to read, each key is listed alone.
        #expect(RunChanges.removedEntries(keys, manifest: nil) == keys.map { .init(key: $0) })
    }

    @Test("the peak memory is this process's own high-water mark, read from /proc's VmHWM line")
    func peakMemory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        func peak(_ status: String) throws -> Int? {
            let file = directory.url.appendingPathComponent("status")
            try Data(status.utf8).write(to: file)
            return ProcessMemory.peakResidentBytes(statusFile: file.path)
        }
        #expect(try peak("Name:\tcatalog-mirror\nVmPeak:\t  900000 kB\nVmHWM:\t   60424 kB\nVmRSS:\t 512 kB\n") == 60424 * 1024)
        #expect(try peak("Name:\tx\nVmRSS:\t 512 kB\n") == nil)
        #expect(try peak("VmHWM:\t   60424 MB\n") == nil)
        #expect(ProcessMemory.peakResidentBytes(statusFile: directory.url.appendingPathComponent("none").path) == nil)
        // This process: at least what it has resident now, which on Linux is more than a megabyte.
        let own = try #require(ProcessMemory.peakResidentBytes())
        #expect(own > 1 << 20)
        // And it reaches the report.
        var report = Self.report(changes: nil)
        report.peakMemoryBytes = own
        let decoded = try RunReport.decode(report.encoded())
        #expect(decoded.peakMemoryBytes == own)
    }
}
