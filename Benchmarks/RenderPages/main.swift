// The render benchmark: the generated site's pages rendered from a manifest, nothing else
// (no crawl, no download, no file written unless asked), through `SiteRendering`, the code a
// publish renders with.
//
//     render-pages synthetic N | manifest FILE  [--per-page 60] [--reps 1] [--template DIR]
//                  [--out DIR] [--save-manifest FILE] [--fingerprints]
//
// `synthetic N` makes a deterministic manifest of N photos: nested albums with covers, titles
// and captions holding `<>&"'`, metadata, sizes, and a smaller rendition of every third photo.
// Prints the pages' count and bytes, a SHA-256 of all of them, and each repetition's render
// time; `--out` writes the pages (byte-for-byte comparison of two builds). `--fingerprints`
// works out each page's `PageFingerprints` input beside it, as a first publish does, and
// prints a SHA-256 of them all.
import CatalogMirror
import Crypto
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("render-pages: \(message)\n".utf8))
    exit(2)
}

/// N photos over 12 albums (three nested two deep), titled, captioned and sized in turns,
/// decoded from the JSON of a manifest (the manifest's types are made by reading one).
func synthetic(_ count: Int) throws -> Manifest {
    let base = "http://127.0.0.1/gallery/"
    var albums: [[String: Any]] = [["url": base, "title": "Gallery <Tom & \"Jerry\"> — page 1"]]
    var albumURLs: [String] = [base]
    for index in 0..<12 {
        let url = index % 4 == 3 ? base + "trips/trip-\(index)/" : base + "album-\(index)/"
        albumURLs.append(url)
        var album: [String: Any] = ["url": url]
        if index % 5 != 4 { album["title"] = "Album \(index) <\(index % 3 == 0 ? "&" : "'")> \"x\"" }
        albums.append(album)
    }
    albums.append(["url": base + "trips/", "title": "Trips & 'outings'"])
    let date = "2026-09-21T12:26:40Z"
    var items: [[String: Any]] = []
    for number in 0..<count {
        let album = albumURLs[number % albumURLs.count]
        let name = String(format: "photo-%06d", number)
        let key = album + name + (number % 2 == 0 ? ".jpg" : ".png")
        var metadata: [String: String] = [:]
        if number % 3 == 0 { metadata["description"] = "Caption \(number): <b>bold</b> & 'quoted' \"text\"" }
        if number % 4 == 1 { metadata["price"] = "\(number % 90).50 €" }
        if number % 6 == 2 { metadata["camera"] = "Nikon <D\(number % 10)> & co" }
        if number % 5 == 0 { metadata["alt"] = "Alt text of \(number) > less" }
        var item: [String: Any] = [
            "key": key, "path": "images/\(name)-\(String(number * 2_654_435_761 % 0xFFFF_FFFF, radix: 16)).jpg",
            "sha256": String(repeating: "a", count: 64), "bytes": 6_000 + number * 37 % 220_000,
            "contentType": number % 2 == 0 ? "image/jpeg" : "image/png", "album": album, "firstSeen": date,
            "lastChecked": date,
        ]
        switch number % 4 {
        case 0: item["title"] = "Photo \(number) <\(number % 10)> & \"friends\" 'ok'"
        case 2: item["title"] = name
        case 3: item["title"] = "Straße \(number) — café"
        default: break
        }
        if !metadata.isEmpty { item["metadata"] = metadata }
        let (width, height) = (640 + (number % 7) * 160, 480 + (number % 5) * 120)
        if number % 11 != 10 {
            item["width"] = width
            item["height"] = height
        }
        items.append(item)
        if number % 3 == 0 {
            var thumb = item
            thumb["key"] = album + name + "-thumb.jpg"
            thumb["path"] = "images/\(name)-thumb.jpg"
            thumb["bytes"] = (6_000 + number * 37 % 220_000) / 10
            thumb["title"] = nil
            thumb["metadata"] = nil
            thumb["variantOf"] = key
            if number % 11 != 10 {
                thumb["width"] = width / 4
                thumb["height"] = height / 4
            }
            items.append(thumb)
        }
    }
    for index in 1..<albums.count where index % 2 == 1 && !items.isEmpty {
        albums[index]["cover"] = items[(index * 7) % items.count]["key"]
    }
    items.sort { Array(($0["key"] as? String ?? "").utf8).lexicographicallyPrecedes(Array(($1["key"] as? String ?? "").utf8)) }
    let json: [String: Any] = [
        "schema": Manifest.schemaName, "source": base, "title": "Gallery <Tom & \"Jerry\"> — page 1", "generatedAt": date,
        "items": items, "rejected": [] as [Any], "albums": albums,
    ]
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(Manifest.self, from: JSONSerialization.data(withJSONObject: json))
}

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let at = arguments.firstIndex(of: name) else { return nil }
    guard at + 1 < arguments.count else { fail("\(name) needs a value") }
    let value = arguments[at + 1]
    arguments.removeSubrange(at...at + 1)
    return value
}
let perPage = Int(option("--per-page") ?? "60") ?? 60
let reps = max(1, Int(option("--reps") ?? "1") ?? 1)
let out = option("--out")
let saveManifest = option("--save-manifest")
let templateDirectory = option("--template")
let fingerprints = arguments.contains("--fingerprints")
arguments.removeAll { $0 == "--fingerprints" }
guard arguments.count == 2 else {
    fail("usage: render-pages synthetic N | manifest FILE [--per-page 60] [--reps 1] [--template DIR] [--out DIR]")
}
let manifest: Manifest
switch arguments[0] {
case "synthetic":
    guard let count = Int(arguments[1]), count >= 0 else { fail("not a count: \(arguments[1])") }
    do {
        manifest = try synthetic(count)
    } catch {
        fail("cannot make the manifest: \(error)")
    }
case "manifest":
    do {
        manifest = try Manifest.read(from: URL(fileURLWithPath: arguments[1]))
    } catch {
        fail("cannot read \(arguments[1]): \(error)")
    }
default:
    fail("synthetic N or manifest FILE, not \(arguments[0])")
}
if let saveManifest {
    do {
        try manifest.encoded().write(to: URL(fileURLWithPath: saveManifest))
    } catch {
        fail("cannot write \(saveManifest): \(error)")
    }
}
let template: SiteTemplate
do {
    template = try templateDirectory.map { try SiteTemplate.load(from: URL(fileURLWithPath: $0)) } ?? SiteTemplate.embedded()
} catch {
    fail("\(error)")
}

var pages: [(fileName: String, html: String, input: String?)] = []
var times: [Double] = []
for _ in 0..<reps {
    let clock = ContinuousClock()
    let start = clock.now
    pages = await SiteRendering.pages(of: manifest, template: template, itemsPerPage: perPage, fingerprints: fingerprints)
    let elapsed = clock.now - start
    times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}
var hasher = SHA256()
var bytes = 0
for page in pages {
    hasher.update(data: Array(page.fileName.utf8) + [0])
    hasher.update(data: Array(page.html.utf8))
    bytes += page.html.utf8.count
}
var inputs = SHA256()
for page in pages { inputs.update(data: Array((page.input ?? "-").utf8) + [0]) }
func hex(_ digest: SHA256.Digest) -> String { digest.map { String(format: "%02x", $0) }.joined() }
print("\(pages.count) pages, \(bytes) bytes, sha256 \(hex(hasher.finalize()))")
if fingerprints { print("fingerprints sha256 \(hex(inputs.finalize()))") }
let sorted = times.sorted()
print(
    "render s: \(times.map { String(format: "%.4f", $0) }.joined(separator: " ")); median \(String(format: "%.4f", sorted[sorted.count / 2]))"
)
if let out {
    for page in pages {
        let url = URL(fileURLWithPath: out).appendingPathComponent(page.fileName)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(page.html.utf8).write(to: url)
        } catch {
            fail("cannot write \(url.path): \(error)")
        }
    }
}
