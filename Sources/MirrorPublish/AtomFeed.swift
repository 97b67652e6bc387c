import Crypto
import Foundation
import MirrorCore

/// `feed.atom`: an Atom 1.0 feed of the mirror's newest photos, so a person can subscribe to
/// what a mirror gains, and another catalog-mirror can mirror the mirror through it.
///
/// One entry per photo (its largest rendition), newest `firstSeen` first (then by key), at
/// most `limit`: `id` the key, `title` the photo's label, `updated` its `firstSeen`, an
/// `alternate` link to where the site shows it (`PhotoView`) and an `enclosure` link to the
/// image with its type and length. Links are relative to the feed, which lives at the mirror's
/// root, so the feed works wherever the mirror is served. Equal sites give equal bytes: the
/// feed's `updated` is its newest entry's, not the time of the run.
struct AtomFeed {
    /// The file's name at the mirror's root.
    static let fileName = "feed.atom"
    /// Entries at most.
    static let limit = 100

    /// One photo of the feed and the page that shows its card.
    private struct Entry {
        var photo: SitePlan.Photo
        var page: String
        var firstSeen: Date
        var key: String

        /// Newer first, then by key.
        func precedes(_ other: Entry) -> Bool {
            firstSeen != other.firstSeen ? firstSeen > other.firstSeen : ByteOrder.precedes(key.utf8, other.key.utf8)
        }
    }

    private let site: SitePlan
    private let source: String
    private let generatedAt: Date
    private let entries: [Entry]

    /// The feed of `site`, the plan of the pages published from `manifest`.
    init(site: SitePlan, manifest: Manifest, limit: Int = AtomFeed.limit) {
        self.site = site
        source = manifest.source
        generatedAt = manifest.generatedAt
        // The newest `limit` photos, kept sorted as the site is walked: a sort of every photo
        // would hold one more value per photo of a 100,000-photo site for a feed of 100.
        var newest: [Entry] = []
        newest.reserveCapacity(limit + 1)
        for page in site.pages {
            let photos = site.albums[page.album].photos
            for position in page.photos {
                let photo = photos[position]
                let original = photo.original
                let entry = Entry(photo: photo, page: page.fileName, firstSeen: original.firstSeen, key: original.key)
                if newest.count == limit, let last = newest.last, !entry.precedes(last) { continue }
                var low = 0
                var high = newest.count
                while low < high {
                    let middle = (low + high) / 2
                    if newest[middle].precedes(entry) { low = middle + 1 } else { high = middle }
                }
                newest.insert(entry, at: low)
                if newest.count > limit { newest.removeLast() }
            }
        }
        entries = newest
    }

    /// The feed's keys, in its order.
    var keys: [String] { entries.map(\.key) }

    /// The feed document, UTF-8.
    func render() -> String {
        var out = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="http://www.w3.org/2005/Atom">
              <title>\(Self.escaped(site.siteTitle))</title>
              <subtitle>\(Self.escaped("The newest photos of the offline copy of \(source)"))</subtitle>
              <id>\(Self.feedID(source: source))</id>
              <updated>\(Timestamp.string(entries.first?.firstSeen ?? generatedAt))</updated>
              <link rel="self" type="application/atom+xml" href="\(Self.fileName)"/>
              <link rel="alternate" type="text/html" href="index.html"/>
              <author><name>\(Self.escaped(site.siteTitle))</name></author>
              <generator version="\(Self.escaped(CatalogMirrorVersion.current))">catalog-mirror</generator>

            """
        for entry in entries {
            let original = entry.photo.original
            out += """
                  <entry>
                    <id>\(Self.escaped(entry.key))</id>
                    <title>\(Self.escaped(PhotoView.title(of: entry.photo)))</title>
                    <updated>\(Timestamp.string(entry.firstSeen))</updated>
                    <link rel="alternate" type="text/html" href="\(Self.escaped(PhotoView.href(of: entry.photo, onPage: entry.page)))"/>
                    <link rel="enclosure" type="\(Self.escaped(original.contentType))" length="\(original.bytes)" href="\(Self.escaped(original.path))"/>
                  </entry>

                """
        }
        out += "</feed>\n"
        return out
    }

    /// A permanent id for the feed of the mirror of `source`: a name-based `urn:uuid:` (from
    /// SHA-256 of the source), the same on every run and every machine, and not the id of any
    /// feed the source itself has.
    static func feedID(source: String) -> String {
        var bytes = Array(SHA256.hash(data: Array("catalog-mirror feed.atom of \(source)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80  // version 8: a name-based UUID of our own hashing
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // the RFC 9562 variant
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { range in
            String(
                hex[hex.index(hex.startIndex, offsetBy: range.lowerBound)..<hex.index(hex.startIndex, offsetBy: range.upperBound)]
            )
        }
        return "urn:uuid:" + parts.joined(separator: "-")
    }

    /// Text fit for XML 1.0 content and attribute values: `& < > "` escaped, and the characters
    /// XML 1.0 cannot hold at all (controls but tab, line feed and return; U+FFFE, U+FFFF)
    /// left out.
    static func escaped(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "\t", "\n", "\r": out.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF { continue }
                out.append(scalar)
            }
        }
        return String(out)
    }
}
