import Foundation
import Testing

/// Compares one sync of a CMS fixture with the site's truth. Each problem is one line naming the
/// photo, the URL and what is wrong, so a failing run says what the crawl does not do yet.
struct CMSChecks {
    let site: CMSSite
    /// The published items by key.
    let items: [String: MirrorManifest.Item]
    /// The manifest's albums, in crawl order.
    let albums: [MirrorManifest.Album]
    /// The rejected keys and their reasons.
    let rejected: [String: String]
    /// The photo each published key is a file of (see `photo(of:)`), worked out once.
    let owners: [String: CMSTruth.Photo]
    let run: Binary.Result
    /// What the sync was (for messages): "" or "from /path".
    let context: String

    init(site: CMSSite, mirror: URL, run: Binary.Result, context: String = "") {
        self.site = site
        self.run = run
        self.context = context
        let manifest = try? MirrorManifest(mirror: mirror)
        items = Dictionary((manifest?.items ?? []).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        albums = manifest?.albums ?? []
        let data = try? Data(contentsOf: mirror.appendingPathComponent("manifest.json"))
        let list = data.flatMap { try? JSONDecoder().decode(Rejected.self, from: $0) }?.rejected ?? []
        rejected = Dictionary(list.map { ($0.key, $0.reason) }, uniquingKeysWith: { first, _ in first })
        let families = site.truth.photos.compactMap { photo in (try? Regex(photo.family)).map { (photo, $0) } }
        var owners: [String: CMSTruth.Photo] = [:]
        for key in items.keys where key.hasPrefix(site.origin + "/") {
            let path = String(key.dropFirst(site.origin.count))
            let bare = String(path.prefix { $0 != "?" })
            owners[key] =
                site.truth.photos.first { $0.renditions.contains(path) }
                ?? families.first { (try? $0.1.wholeMatch(in: bare)) != nil }?.0
        }
        self.owners = owners
    }

    /// What the run said and rejected, to follow an exit status in a message: its last lines of
    /// standard error and the rejected keys counted by reason.
    var summary: String {
        let lines = run.stderr.split(separator: "\n").suffix(4).joined(separator: " | ")
        var reasons: [String: Int] = [:]
        for reason in rejected.values { reasons[reason, default: 0] += 1 }
        let counted = reasons.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return ": \(lines.suffix(900)); rejected: \(counted.isEmpty ? "none" : counted)"
            + (items.isEmpty ? "; no manifest.json items" : "")
    }

    /// Records each problem as an issue of the running test, prefixed with the site (at most 40).
    func record(_ problems: [String]) {
        let prefix = site.name + (context.isEmpty ? "" : " " + context) + ": "
        for problem in problems.prefix(40) { Issue.record(Comment(rawValue: prefix + problem)) }
        if problems.count > 40 { Issue.record(Comment(rawValue: prefix + "and \(problems.count - 40) more problems")) }
    }

    /// The key of the photo's largest published file: its full-size upload when that is published,
    /// else its original when that is, else nil.
    func largest(_ photo: CMSTruth.Photo) -> String? {
        [photo.fullSize, photo.original].compactMap { $0 }.map(site.url).first { items[$0] != nil }
    }

    /// Every original of `photos` (or the larger file of it an API names) must be published.
    func originalProblems(_ photos: [CMSTruth.Photo]) -> [String] {
        photos.compactMap { photo in
            let key = site.url(photo.original)
            guard largest(photo) == nil else { return nil }
            let why = rejected[key].map { " (rejected \($0))" } ?? " (not seen)"
            let others = published(photo)
            return "\(photo.id): its original \(photo.original) is not published\(why)"
                + (others.isEmpty ? "" : "; published instead: \(others.map(path).joined(separator: ", "))")
        }
    }

    /// No furniture image, and nothing that is no photo's file, is published.
    func furnitureProblems() -> [String] {
        let furniture = Set(site.truth.furniture.map(site.url))
        return items.keys.sorted().compactMap { key in
            if furniture.contains(key) { return "published \(path(key)), furniture of the site (logo, badge, icon), not a photo" }
            if photo(of: key) == nil { return "published \(path(key)), which is no file of any photo of the site" }
            return nil
        }
    }

    /// Each published photo is titled as the truth says (where the site titles it), or as
    /// `titles` says (by photo id) when given.
    func titleProblems(_ photos: [CMSTruth.Photo], titles: [String: String] = [:]) -> [String] {
        photos.compactMap { photo in
            guard let expected = titles[photo.id] ?? photo.title, let key = largest(photo), let item = items[key],
                item.title != expected
            else {
                return nil
            }
            return "\(photo.id): title is \(item.title.map { "\"\($0)\"" } ?? "missing"), expected \"\(expected)\" "
                + "(\(titles[photo.id] == nil ? "its " + (photo.titleFrom ?? "title") : "as this start page shows it"))"
        }
    }

    /// Each photo's album is one of the pages the truth allows (its post or gallery page, a
    /// category), never a photo's own page; no photo page is among the manifest's albums.
    func albumProblems(_ photos: [CMSTruth.Photo]) -> [String] {
        var problems: [String] = photos.compactMap { photo in
            guard let key = largest(photo), let item = items[key] else { return nil }
            let allowed = photo.albums.map(site.url)
            guard let album = item.album, allowed.contains(album) else {
                return "\(photo.id): album is \(item.album.map(path) ?? "missing"), expected \(photo.album)"
            }
            return nil
        }
        let pages = Set(site.truth.photoPages.map(site.url))
        for album in albums where pages.contains(album.url) {
            problems.append("\(path(album.url)), a photo's own page, is an album (\"\(album.title ?? "")\")")
        }
        return problems
    }

    /// Every published smaller file of a photo names the photo's largest published file as
    /// `variantOf`, and that one names none: each photo is kept once.
    func renditionProblems() -> [String] {
        var problems: [String] = []
        for photo in site.truth.photos {
            guard let largest = largest(photo) else { continue }
            if let variantOf = items[largest]?.variantOf {
                problems.append("\(photo.id): its largest file \(path(largest)) has variantOf \(path(variantOf))")
            }
            for key in published(photo) where key != largest && items[key]?.variantOf != largest {
                problems.append(
                    "\(photo.id): \(path(key)) has variantOf \(items[key]?.variantOf.map(path) ?? "missing"), expected \(path(largest))"
                )
            }
        }
        return problems
    }

    /// The published keys that are files of `photo` (its original and every rendition).
    func published(_ photo: CMSTruth.Photo) -> [String] {
        items.keys.sorted().filter { owners[$0]?.id == photo.id }
    }

    /// The photo whose file published `key` is: a URL the site links for it, or a file of the same
    /// name family (WordPress's `-WxH` sizes, MediaWiki's `/thumb/.../Npx-` thumbnails).
    func photo(of key: String) -> CMSTruth.Photo? { owners[key] }

    /// `key` as a path from the site's origin.
    func path(_ key: String) -> String {
        key.hasPrefix(site.origin) ? String(key.dropFirst(site.origin.count)) : key
    }

    private struct Rejected: Decodable {
        struct Entry: Decodable {
            var key: String
            var reason: String
        }
        var rejected: [Entry]
    }
}
