// Reading `manifest.json`: the time to read a manifest of N items that the tool's own writer
// wrote, by `Manifest.read(from:)` (the field list's reader on `JSONCursor`) and, for
// comparison, by `JSONDecoder` over the whole file (how it was read before issue 47).
//
//     swift build -c release --product manifest-read
//     .build/release/manifest-read [N (10000)] [--reps 5] [--keep FILE] [--only-read]
//
// Prints each reader's best and median time over the repetitions; both readers' results are
// compared, and a difference ends the run with status 1.
import Foundation
import MirrorCore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("manifest-read: \(message)\n".utf8))
    exit(1)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var reps = 5
var keep: String?
if let flag = arguments.firstIndex(of: "--reps"), flag + 1 < arguments.count, let value = Int(arguments[flag + 1]) {
    reps = value
    arguments.removeSubrange(flag...flag + 1)
}
if let flag = arguments.firstIndex(of: "--keep"), flag + 1 < arguments.count {
    keep = arguments[flag + 1]
    arguments.removeSubrange(flag...flag + 1)
}
/// `--only-read`: time `Manifest.read` alone (for a profiler).
let onlyRead = arguments.contains("--only-read")
arguments.removeAll { $0 == "--only-read" }
let count = arguments.first.flatMap(Int.init) ?? 10_000

/// N items as a sync of a gallery writes them: every required field, an album, a title from
/// the page, a size, validators, and camera data on every other photo.
let items = (0..<count).map { number -> Manifest.Item in
    let name = String(format: "photo-%06d", number)
    var item = Manifest.Item(
        key: "http://127.0.0.1/gallery/album-\(number % 12)/\(name).jpg", path: "images/\(name)-0123456789abcdef.jpg",
        sha256: String(repeating: String(number % 16, radix: 16), count: 64), bytes: Int64(6_000 + number * 37 % 220_000),
        contentType: "image/jpeg", firstSeen: Date(timeIntervalSince1970: 1_790_000_000),
        lastChecked: Date(timeIntervalSince1970: 1_795_000_000))
    item.title = "Photo \(number) \"quoted\" & <b>"
    item.titleFrom = .page
    item.album = "http://127.0.0.1/gallery/album-\(number % 12)/"
    item.etag = "\"\(String(number, radix: 16))-5f3e\""
    item.lastModified = "Tue, 21 Nov 2026 12:00:00 GMT"
    (item.width, item.height) = (1600, 1200)
    if number % 3 == 0 { item.metadata = ["caption": "Caption \(number): a line of text", "price": "\(number % 90).50 €"] }
    if number % 2 == 0 {
        item.camera = "Canon EOS 350D"
        item.taken = "2008-01-22T03:28:22+01:00"
        item.exposure = EmbeddedMetadata.Exposure(focalLength: 50, aperture: 1.8, exposureTime: "1/80", iso: 400)
        item.keywords = ["sea", "summer"]
    }
    return item
}
let manifest = Manifest(
    source: "http://127.0.0.1/gallery/", title: "Gallery", generatedAt: Date(timeIntervalSince1970: 1_795_000_000),
    items: items, rejected: [.init(key: "http://127.0.0.1/arrow.png", reason: "decoration")],
    albums: (0..<12).map { .init(url: "http://127.0.0.1/gallery/album-\($0)/", title: "Album \($0)") })
let url =
    keep.map { URL(fileURLWithPath: $0) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("manifest-read-\(getpid()).json")
do {
    try manifest.encoded().write(to: url)
} catch {
    fail("cannot write \(url.path): \(error)")
}
defer { if keep == nil { try? FileManager.default.removeItem(at: url) } }
let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0

@MainActor func time(_ name: String, _ reader: () throws -> Manifest) {
    var times: [Double] = []
    for _ in 0..<reps {
        let start = DispatchTime.now().uptimeNanoseconds
        let read: Manifest
        do { read = try reader() } catch { fail("\(name): \(error)") }
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        guard read == manifest else { fail("\(name) read another manifest") }
    }
    times.sort()
    print(String(format: "%-34@ best %8.1f ms   median %8.1f ms", name as NSString, times[0], times[times.count / 2]))
}

print("\(count) items, \(size) bytes, \(reps) repetitions")
if !onlyRead {
    time("JSONDecoder, the whole file") {
        try JSONCoding.decode(Manifest.self, from: Data(contentsOf: url))
    }
}
time("Manifest.read(from:)") { try Manifest.read(from: url) }
