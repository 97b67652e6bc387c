import Foundation

/// What a gallery server shows: its images and how each one behaves. Tests build catalogs with
/// misbehaving entries; `GalleryCatalog.sample` is the bundled demo gallery.
public struct GalleryCatalog: Sendable {
    /// How the image endpoint answers for an entry.
    enum Behavior: Sendable, Equatable {
        /// 200 with the image bytes as `application/octet-stream` (as the EmojiArt server does).
        case image
        /// 200 with a JSON error body instead of an image.
        case jsonError
        /// 404.
        case notFound
    }

    struct Entry: Sendable {
        var id: Int
        var name: String
        var price: String
        var bytes: [UInt8] {
            didSet { modified = modified.addingTimeInterval(60) }
        }
        var behavior: Behavior
        /// When the bytes last changed (the `Last-Modified` header); moves on when `bytes` change.
        var modified: Date

        init(id: Int, name: String, price: String, bytes: [UInt8], behavior: Behavior = .image) {
            self.id = id
            self.name = name
            self.price = price
            self.bytes = bytes
            self.behavior = behavior
            self.modified = Date(timeIntervalSince1970: 1_790_000_000 + Double(id) * 3600)
        }

        /// A strong entity tag derived from the bytes.
        var etag: String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            return "\"" + String(hash, radix: 16) + "-\(bytes.count)\""
        }
    }

    var title: String
    var entries: [Entry]
    /// Images per HTML page.
    var perPage: Int
    /// Paths robots.txt disallows for every user agent.
    var disallowed: [String]
    /// When true, every page, feed and listing answers 500 (an outage).
    var outage = false
    /// How long the image endpoint waits before answering (to slow a sync down in tests).
    var imageDelay: Duration = .zero

    init(title: String, entries: [Entry], perPage: Int = 12, disallowed: [String] = ["/gallery/private/"]) {
        self.title = title
        self.entries = entries
        self.perPage = perPage
        self.disallowed = disallowed
    }

    /// The bundled sample: 32 images, plus one entry that answers 200 with a JSON error body.
    public static var sample: GalleryCatalog {
        var entries = SampleImage.bundled.enumerated().map { index, image in
            Entry(id: index + 1, name: image.name, price: image.price, bytes: image.bytes)
        }
        entries.append(Entry(id: entries.count + 1, name: "Broken Frame", price: "9.99", bytes: [], behavior: .jsonError))
        return GalleryCatalog(title: "EmojiArt Sample Gallery", entries: entries)
    }

    func entry(id: Int) -> Entry? { entries.first { $0.id == id } }

    var pageCount: Int { max(1, (entries.count + perPage - 1) / perPage) }
}
