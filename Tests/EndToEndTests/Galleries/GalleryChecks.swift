import Foundation
import MirrorTestSupport

/// The parts of a mirror's `manifest.json` that the gallery checks read.
struct MirrorManifest: Decodable {
    struct Item: Decodable {
        var key: String
        var path: String
        var bytes: Int
        var title: String?
        var album: String?
        var variantOf: String?
        var metadata: [String: String]?
    }

    struct Album: Decodable {
        var url: String
        var title: String?
    }

    struct Rejection: Decodable {
        var key: String
        var reason: String
    }

    var items: [Item]
    var albums: [Album]?
    var rejected: [Rejection] = []

    private enum CodingKeys: String, CodingKey {
        case items, albums, rejected
    }

    init(mirror: URL) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(contentsOf: mirror.appendingPathComponent("manifest.json")))
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        items = try container.decode([Item].self, forKey: .items)
        albums = try container.decodeIfPresent([Album].self, forKey: .albums)
        rejected = try container.decodeIfPresent([Rejection].self, forKey: .rejected) ?? []
    }
}

/// Compares a mirror with a gallery's ground truth; each problem is one line naming the photo,
/// the URL and what is missing, so a failing run says what the crawl does not do yet.
struct GalleryChecks {
    let truth: GalleryTruth
    /// The gallery's root URL, ending in "/".
    let base: String
    let manifest: MirrorManifest

    func key(_ path: String) -> String { base + path }

    /// Photos whose largest rendition is published, and the problems with the items and albums.
    func itemProblems() -> (photosFound: Int, problems: [String]) {
        let items = Dictionary(manifest.items.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var problems: [String] = []
        var found = 0
        var allowed = Set(truth.extras.map(key))
        for photo in truth.photos {
            let largest = key(photo.largest)
            allowed.formUnion((photo.renditions + photo.optional).map(key))
            let published = (photo.renditions + photo.optional).filter { items[key($0)] != nil }
            guard let item = items[largest] else {
                problems.append(
                    "\(photo.id): its largest rendition \(largest) is not published"
                        + (published.isEmpty ? " (no rendition of it is)" : " (published: \(published.joined(separator: ", ")))"))
                continue
            }
            found += 1
            if let variantOf = item.variantOf {
                problems.append("\(photo.id): the largest \(largest) has variantOf \(variantOf)")
            }
            if item.album != key(photo.album) {
                problems.append("\(photo.id): album is \(item.album ?? "missing"), expected \(key(photo.album))")
            }
            if let title = photo.title, item.title != title {
                problems.append("\(photo.id): title is \(item.title.map { "\"\($0)\"" } ?? "missing"), expected \"\(title)\"")
            }
            for rendition in photo.renditions.dropLast() + photo.optional where rendition != photo.largest {
                guard let smaller = items[key(rendition)] else {
                    if photo.renditions.contains(rendition) {
                        problems.append("\(photo.id): rendition \(key(rendition)) is not published (--variants all)")
                    }
                    continue
                }
                if smaller.variantOf != largest {
                    problems.append(
                        "\(photo.id): \(key(rendition)) has variantOf \(smaller.variantOf ?? "missing"), expected \(largest)")
                }
            }
        }
        let decorations = Set(truth.decorations.map(key))
        for item in manifest.items where !allowed.contains(item.key) {
            problems.append(
                decorations.contains(item.key)
                    ? "published \(item.key), a decoration of the site (icon, arrow, spinner), not a photo"
                    : "published \(item.key), which is no photo of the source")
        }
        // Catalog text as a person reads it: not a generator's "Full size" link to the original
        // (sigal's galleria theme puts one in every description, run together with the text).
        for item in manifest.items {
            for (field, value) in item.metadata ?? [:] where value.hasPrefix("Full size") {
                problems.append("\(item.key): \(field) is \"\(value)\", which starts with a link's text")
            }
        }
        return (found, problems)
    }

    /// The top-level `albums` against the pages the photos first appear on, in crawl order.
    func albumProblems() -> [String] {
        let expected = truth.albums.map { (key($0.path), $0.title) }
        // A page whose published images are all extras (lazygal's album collages on the start
        // page) is an album too, as the manifest's albums are defined, but not one the truth lists.
        let extras = Set(truth.extras.map(key))
        let onlyExtras = Set(manifest.albums?.map(\.url) ?? []).filter { url in
            manifest.items.filter { $0.album == url }.allSatisfy { extras.contains($0.key) }
        }
        let actual = (manifest.albums ?? []).filter { !onlyExtras.contains($0.url) }.map { ($0.url, $0.title ?? "") }
        var problems: [String] = []
        if actual.map(\.0) != expected.map(\.0) {
            problems.append(
                "albums are [\(actual.map(\.0).joined(separator: ", "))], expected [\(expected.map(\.0).joined(separator: ", "))]"
            )
        }
        for (url, title) in expected {
            guard let album = actual.first(where: { $0.0 == url }) else { continue }
            if !album.1.contains(title) {
                problems.append("album \(url) is titled \"\(album.1)\", expected it to contain \"\(title)\"")
            }
        }
        return problems
    }

    /// The generated site, read as a visitor would from `index.html` following links to its pages:
    /// each photo shows once, as its smallest published rendition linking to its largest.
    func siteProblems(mirror: URL) throws -> [String] {
        let byPath = Dictionary(manifest.items.map { ($0.path, $0.key) }, uniquingKeysWith: { first, _ in first })
        var photoOfKey: [String: GalleryTruth.Photo] = [:]
        for photo in truth.photos { for rendition in photo.renditions + photo.optional { photoOfKey[key(rendition)] = photo } }
        var shown: [String: [(page: String, image: String, link: String)]] = [:]
        var queue = ["index.html"]
        var seen = Set(queue)
        var problems: [String] = []
        var siteTitle: String?
        while !queue.isEmpty {
            let page = queue.removeFirst()
            let url = mirror.appendingPathComponent(page)
            guard let html = try? String(contentsOf: url, encoding: .utf8) else {
                problems.append("the generated page \(page) is linked but missing")
                continue
            }
            if page == "index.html" { siteTitle = html.firstMatch(of: /<title>([^<]*)<\/title>/).map { String($0.1) } }
            let directory = (page as NSString).deletingLastPathComponent
            // `standardizingPath` keeps ".." in relative paths, so dot segments are resolved here.
            func resolve(_ reference: String) -> String {
                let joined = directory.isEmpty ? reference : directory + "/" + reference
                var segments: [Substring] = []
                for segment in joined.split(separator: "/", omittingEmptySubsequences: true) {
                    switch segment {
                    case ".": continue
                    case "..": if !segments.isEmpty { segments.removeLast() }
                    default: segments.append(segment)
                    }
                }
                return segments.joined(separator: "/")
            }
            for match in html.matches(of: /<a\b[^>]*\bhref="([^"#?]+\.html)"/) where !match.1.contains(":") {
                let target = resolve(String(match.1))
                if seen.insert(target).inserted { queue.append(target) }
            }
            for match in html.matches(of: /<a\b[^>]*\bhref="([^"]+)"[^>]*>\s*<img\b[^>]*\bsrc="([^"]+)"/) {
                let link = resolve(String(match.1))
                let image = resolve(String(match.2))
                // An album's cover in the index of albums links to the album, not to a photo.
                if link.hasSuffix(".html") { continue }
                guard let imageKey = byPath[image], let photo = photoOfKey[imageKey] else { continue }
                shown[photo.id, default: []].append((page, image, link))
            }
        }
        if let siteTitle, !siteTitle.contains(truth.siteTitle) {
            problems.append("the generated index.html is titled \"\(siteTitle)\", expected it to contain \"\(truth.siteTitle)\"")
        }
        let items = Dictionary(manifest.items.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for photo in truth.photos where items[key(photo.largest)] != nil {
            let places = shown[photo.id] ?? []
            guard places.count == 1, let place = places.first else {
                problems.append(
                    "\(photo.id) is shown \(places.count) times in the generated site"
                        + (places.isEmpty ? "" : " (\(places.map { "\($0.page): \($0.image)" }.joined(separator: ", ")))"))
                continue
            }
            let smallest = photo.renditions.first { items[key($0)] != nil }.flatMap { items[key($0)]?.path }
            if place.image != smallest {
                problems.append("\(photo.id) is shown as \(place.image), expected its smallest rendition \(smallest ?? "?")")
            }
            if place.link != items[key(photo.largest)]?.path {
                problems.append(
                    "\(photo.id) links to \(place.link), expected its largest rendition \(items[key(photo.largest)]?.path ?? "?")"
                )
            }
        }
        return problems
    }
}

/// SHA-256 of every file under `root` outside `.catalog-mirror/`, by relative path; for
/// `manifest.json`, of its content without the times a sync records by definition (`generatedAt`,
/// each item's `lastChecked`).
func publishedFiles(_ root: URL) throws -> [String: String] {
    var result: [String: String] = [:]
    let enumerator = FileManager.default.enumerator(atPath: root.path)
    while let path = enumerator?.nextObject() as? String {
        if path == ".catalog-mirror" || path.hasPrefix(".catalog-mirror/") { continue }
        let url = root.appendingPathComponent(path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            var data = try Data(contentsOf: url)
            if path == "manifest.json", var manifest = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
                manifest["generatedAt"] = nil
                if let items = manifest["items"] as? [[String: Any]] {
                    manifest["items"] = items.map { item in item.filter { $0.key != "lastChecked" } }
                }
                data = try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys])
            }
            result[path] = sha256Hex(Array(data))
        }
    }
    return result
}
