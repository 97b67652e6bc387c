import Foundation
import MirrorTestSupport
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorOperate
@testable import SampleGallery

/// Faults as an operator meets them, each run with the built binary as cron runs it: the mirror
/// damaged by hand or by the disk between two syncs, or the disk failing during one. Each test
/// ends with a mirror that `verify` accepts and a next sync that exits 0 with every image there.
@Suite("Faults an operator meets", .serialized)
struct FaultTests {
    /// Twelve images that all mirror (exit 0), four to a page.
    static func catalog() -> GalleryCatalog {
        let entries = SampleImage.bundled.prefix(12).enumerated().map { index, image in
            GalleryCatalog.Entry(id: index + 1, name: image.name, price: image.price, bytes: image.bytes)
        }
        return GalleryCatalog(title: "Fault Gallery", entries: entries, perPage: 4)
    }

    /// A mirror after one good sync of `catalog()` into `output` (under `directory`, or a
    /// directory of the test's own), with the server still running for `body`.
    func afterFirstSync(
        into output: URL? = nil, _ body: @Sendable (GalleryServer, URL, URL, URL) async throws -> Void
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let server = GalleryServer(catalog: Self.catalog())
        let mirror = output ?? directory.url.appendingPathComponent("m")
        try await server.run { url in
            let first = try await Self.sync(url.absoluteString, mirror, in: directory.url)
            try #require(first.status == 0, "first sync: \(first.stderr)")
            try await body(server, url, mirror, directory.url)
        }
    }

    /// `catalog-mirror sync [URL] --out OUTPUT --report OUTPUT.report.json`, standard error a pipe.
    static func sync(
        _ url: String? = nil, _ output: URL, in directory: URL, environment: [String: String] = [:], via wrapper: [String] = []
    ) async throws -> Binary.Result {
        let arguments = ["sync"] + (url.map { [$0] } ?? []) + ["--out", output.path, "--report", report(directory).path]
        guard !wrapper.isEmpty else { return try await Binary.run(arguments, in: directory, environment: environment) }
        let binary = try #require(Binary.url, "build the catalog-mirror executable first (swift build)")
        return try await Command.run(wrapper + [binary.path] + arguments, in: directory, environment: environment)
    }

    /// Where `sync` writes its report: the test's own directory, never the mirror's disk (which
    /// some tests fill or make read-only).
    static func report(_ directory: URL) -> URL { directory.appendingPathComponent("report.json") }

    static func lastReport(_ directory: URL) throws -> RunReport {
        try JSONCoding.decode(RunReport.self, from: Data(contentsOf: report(directory)))
    }

    /// `catalog-mirror verify`'s exit status for `output`.
    static func verify(_ output: URL, in directory: URL) async throws -> Int32 {
        try await Binary.run(["verify", "--out", output.path], in: directory).status
    }

    /// Every image of the manifest is in place with its bytes, and the pages reference nothing missing.
    static func expectWhole(_ output: URL, images count: Int, in directory: URL) async throws {
        #expect(try await verify(output, in: directory) == 0)
        let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
        #expect(manifest.items.count == count)
        #expect(try servedProblems(output) == [])
    }

    /// One line that says the disk is full, in the words of the system or of SQLite.
    static func saysDiskFull(_ stderr: String) -> Bool {
        stderr.split(separator: "\n").count == 1
            && (stderr.contains("No space left on device") || stderr.contains("disk is full"))
    }

    /// The files a web server serves (everything outside `.catalog-mirror/`), with their hashes.
    static func served(_ output: URL) throws -> [String: String] {
        try treeFingerprint(output).filter { !$0.key.hasPrefix(".catalog-mirror") }
    }

    // MARK: - The mirror damaged between two syncs

    @Test("image files deleted, truncated or changed by hand are downloaded again by the next sync, under their names")
    func imagesDamagedByHand() async throws {
        try await afterFirstSync { _, _, output, directory in
            let before = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            let paths = before.items.map { output.appendingPathComponent($0.path).path }
            // Two deleted, one truncated, one with a byte changed in place (same size).
            try FileManager.default.removeItem(atPath: paths[0])
            try FileManager.default.removeItem(atPath: paths[1])
            try Data(try Data(contentsOf: URL(fileURLWithPath: paths[2])).prefix(100)).write(to: URL(fileURLWithPath: paths[2]))
            var changed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: paths[3])))
            changed[changed.count / 2] ^= 0xFF
            try Data(changed).write(to: URL(fileURLWithPath: paths[3]))
            #expect(try await Self.verify(output, in: directory) == 1)

            let repair = try await Self.sync(nil, output, in: directory)
            #expect(repair.status == 0, "\(repair.stderr)")
            #expect(repair.stderr.contains("4 image files were missing or changed on disk and were downloaded again"))
            let report = try Self.lastReport(directory)
            #expect(report.downloaded == 4 && report.unchanged == 12 && report.added == 0 && report.removed == 0)
            try await Self.expectWhole(output, images: 12, in: directory)
            // Every image keeps its file name.
            #expect(
                try Manifest.read(from: output.appendingPathComponent("manifest.json")).items.map(\.path)
                    == before.items.map(\.path))

            let after = try await Self.sync(nil, output, in: directory)
            #expect(after.status == 0 && !after.stderr.contains("warning"), "\(after.stderr)")
            #expect(try Self.lastReport(directory).downloaded == 0)
        }
    }

    @Test("a damaged state.sqlite is moved aside and rebuilt from manifest.json; a file that no longer matches is fetched again")
    func damagedIndex() async throws {
        try await afterFirstSync { _, _, output, directory in
            let state = output.appendingPathComponent(".catalog-mirror/state.sqlite")
            try Data(repeating: 0x5A, count: 4096).write(to: state)
            // A file changed too: the rebuild hashes every file and keeps no row for this one.
            let manifest = try Manifest.read(from: output.appendingPathComponent("manifest.json"))
            let damaged = output.appendingPathComponent(manifest.items[5].path)
            var bytes = [UInt8](try Data(contentsOf: damaged))
            bytes[bytes.count / 2] ^= 0xFF
            try Data(bytes).write(to: damaged)

            let repair = try await Self.sync(nil, output, in: directory)
            #expect(repair.status == 0, "\(repair.stderr)")
            #expect(repair.stderr.contains("state.sqlite was damaged"))
            #expect(repair.stderr.contains("rebuilt from manifest.json (11 images verified"))
            let aside = try FileManager.default.contentsOfDirectory(atPath: output.appendingPathComponent(".catalog-mirror").path)
                .filter { $0.hasPrefix("state.sqlite.damaged-") }
            #expect(aside.count >= 1)
            let report = try Self.lastReport(directory)
            #expect(report.downloaded == 1 && report.unchanged == 12)
            try await Self.expectWhole(output, images: 12, in: directory)

            let after = try await Self.sync(nil, output, in: directory)
            #expect(after.status == 0 && !after.stderr.contains("warning"), "\(after.stderr)")
            #expect(try Self.lastReport(directory).downloaded == 0)
        }
    }

    @Test("a damaged manifest.json is rewritten from the index: first sightings kept, nothing downloaded again")
    func damagedManifest() async throws {
        try await afterFirstSync { _, _, output, directory in
            let path = output.appendingPathComponent("manifest.json")
            let before = try Manifest.read(from: path)
            try Data("{\"schema\": \"catalog-mirror/manifest@1\", \"items\": [{\"key\": ".utf8).write(to: path)
            #expect(try await Self.verify(output, in: directory) == 2)

            let repair = try await Self.sync(nil, output, in: directory)
            #expect(repair.status == 0, "\(repair.stderr)")
            #expect(repair.stderr.contains("manifest.json is damaged"))
            #expect(repair.stderr.contains("the last run was read from the index instead (12 images)"))
            let report = try Self.lastReport(directory)
            #expect(report.downloaded == 0 && report.unchanged == 12 && report.added == 0)
            let after = try Manifest.read(from: path)
            #expect(after.items.map(\.path) == before.items.map(\.path))
            #expect(after.items.map(\.firstSeen) == before.items.map(\.firstSeen))
            #expect(after.items.map(\.title) == before.items.map(\.title))
            try await Self.expectWhole(output, images: 12, in: directory)
            let copies = try FileManager.default.contentsOfDirectory(
                atPath: output.appendingPathComponent(".catalog-mirror").path)
            #expect(copies.contains { $0.hasPrefix("manifest.json.damaged-") })
        }
    }

    @Test("a damaged settings.json stops the cron form with one line and changes nothing; saved again, syncs go on")
    func damagedSettings() async throws {
        try await afterFirstSync { _, url, output, directory in
            let settings = output.appendingPathComponent(".catalog-mirror/settings.json")
            try Data("{\"source\": ".utf8).write(to: settings)
            let served = try Self.served(output)

            let refused = try await Self.sync(nil, output, in: directory)
            #expect(refused.status == 2)
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines.first?.contains("settings.json") == true, "\(refused.stderr)")
            #expect(try Self.served(output) == served)
            #expect(try await Self.verify(output, in: directory) == 0)

            // What the README says to do: remove the file and give the URL (and options) again.
            try FileManager.default.removeItem(at: settings)
            let again = try await Self.sync(url.absoluteString, output, in: directory)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try Self.lastReport(directory).downloaded == 0)
            let cron = try await Self.sync(nil, output, in: directory)
            #expect(cron.status == 0, "\(cron.stderr)")
            try await Self.expectWhole(output, images: 12, in: directory)
        }
    }

    @Test("the clock a day behind, then right, then a day ahead: nothing is downloaded again", arguments: ["-1d", "+1d"])
    func clockSkew(offset: String) async throws {
        try ExternalTool.require(.faketime)
        try await afterFirstSync { _, _, output, directory in
            let skewed = try await Self.sync(
                nil, output, in: directory, environment: ["FAKETIME_DONT_FAKE_MONOTONIC": "1"], via: ["faketime", "-f", offset])
            #expect(skewed.status == 0, "\(skewed.stderr)")
            #expect(try Self.lastReport(directory).downloaded == 0)
            let right = try await Self.sync(nil, output, in: directory)
            #expect(right.status == 0, "\(right.stderr)")
            #expect(try Self.lastReport(directory).downloaded == 0)
            try await Self.expectWhole(output, images: 12, in: directory)
        }
    }

    // MARK: - The disk failing during a sync

    @Test("a read-only mirror: one line, the mirror as it was; writable again, the next sync goes on")
    func readOnlyMirror() async throws {
        let mount = try Mounted()
        try mount.tmpfs(size: "64m")
        defer { mount.unmount() }
        let output = mount.point.appendingPathComponent("m")
        try await afterFirstSync(into: output) { server, _, output, directory in
            server.update(mutate)
            let served = try Self.served(output)
            try mount.remount("ro")
            let refused = try await Self.sync(nil, output, in: directory)
            #expect(refused.status != 0 && refused.status != 130)
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("Read-only file system"), "\(refused.stderr)")
            #expect(try Self.served(output) == served)
            #expect(try await Self.verify(output, in: directory) == 0)

            try mount.remount("rw")
            let again = try await Self.sync(nil, output, in: directory)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try Self.lastReport(directory).added == 1)
            try await Self.expectWhole(output, images: 12, in: directory)
        }
    }
}

/// Runs a program (not the binary) as `Binary.run` runs the binary.
enum Command {
    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) async throws -> Binary.Result {
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        let run = try await ExternalTool.run("/usr/bin/env", arguments, in: directory, environment: merged)
        return Binary.Result(status: run.status, stdout: run.stdout, stderr: run.stderr)
    }

    /// Runs `arguments` and waits; true when it exited 0.
    @discardableResult
    static func succeeds(_ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// A size-limited tmpfs of the test's own, for a disk that fills up or turns read-only. Needs
/// root (CI runs as root); elsewhere the test is skipped with a note (`ExternalTool.skip`).
final class Mounted: Sendable {
    let point: URL
    private let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
        point = directory.url.appendingPathComponent("mnt")
        try FileManager.default.createDirectory(at: point, withIntermediateDirectories: true)
    }

    /// Mounts a tmpfs of `size` (`mount -t tmpfs -o size=...`); skips the test when this machine
    /// does not let it mount one (and fails it under CI).
    func tmpfs(size: String) throws {
        guard Command.succeeds(["mount", "-t", "tmpfs", "-o", "size=\(size),mode=0755", "tmpfs", point.path]) else {
            directory.cleanup()
            try ExternalTool.skip(because: "needs root, to mount a tmpfs (run it as root, as .ci/run does)")
        }
    }

    /// `mount -o remount,<options>`.
    func remount(_ options: String) throws {
        try #require(Command.succeeds(["mount", "-o", "remount,\(options)", point.path]), "remount \(options) failed")
    }

    /// Writes a file that takes all the free space but about `bytes` (all of it, when something
    /// else writes at the same time); returns it.
    func fill(leaving bytes: Int) throws -> URL {
        var info = statvfs()
        try #require(statvfs(point.path, &info) == 0)
        let free = Int(info.f_bavail) * Int(info.f_bsize)
        let filler = point.appendingPathComponent("filler")
        try #require(FileManager.default.createFile(atPath: filler.path, contents: nil))
        let handle = try FileHandle(forWritingTo: filler)
        defer { try? handle.close() }
        let chunk = Data(count: 1 << 20)
        var left = max(0, free - bytes)
        while left > 0 {
            let piece = min(left, chunk.count)
            do {
                try handle.write(contentsOf: chunk.prefix(piece))
            } catch let error as CocoaError where error.code == .fileWriteOutOfSpace {
                break
            }
            left -= piece
        }
        return filler
    }

    func unmount() {
        Command.succeeds(["umount", "-l", point.path])
        directory.cleanup()
    }
}
