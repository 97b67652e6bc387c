import Crypto
import Foundation
import MirrorCore
import MirrorStore

/// `assets/search-index.js`: every photo of the site in one classic script, so the search box
/// of every page works from `file://` (no `fetch`, no module) and with no server at all.
///
/// The script assigns one global, `catalogMirrorSearch`: `{"v": 1, "perPage": N, "albums":
/// [[title, fileBase, photoCount], ...], "photos": [...]}`, where `photos` is flat, seven values
/// a photo, album by album in the order of their pages: the anchor name of its view (`0` when
/// it is the tile's file name without the extension), the tile's file in `images/`, the tile's
/// width and height (`0` when unknown), the photo's label, the rest of its words (caption,
/// metadata, and what its file says: keywords, camera, lens, creator, the year it was taken;
/// never its position), and when it was taken (ISO 8601, `""` when unknown; the album's sort
/// by date reads it). A photo's page follows from its place in its album and `perPage`, so the index
/// holds no link. Arrays, not an object a photo: no member name is repeated for every photo,
/// so the script stays small and quick to parse.
///
/// Written a piece at a time while hashed, and put in place (by the publisher's `commit`) only
/// when its bytes differ from the file already there, so a re-sync that changes nothing leaves
/// it alone.
enum SearchIndex {
    /// The file, relative to the mirror's root.
    static let fileName = "assets/search-index.js"
    /// The format's version (`v`): 2 added the date taken, a seventh value a photo.
    static let version = 2

    /// Writes the index of `site` (pages of `itemsPerPage` photos) under a temporary name, unless
    /// the file already holds it.
    /// - Returns: the file waiting to be put in place (nil: the one there holds these bytes),
    ///   and the SHA-256 of its bytes.
    static func prepare(site: SitePlan, itemsPerPage: Int, layout: MirrorLayout) throws(PublishError) -> (
        file: AtomicFile.Prepared?, sha256: String
    ) {
        let destination = layout.root.appendingPathComponent(fileName)
        var hasher = SHA256()
        var length: Int64 = 0
        let prepared = try AtomicFile.prepare(for: destination, temporaryDirectory: layout.temporary, flush: false) {
            writer in
            try render(site, itemsPerPage: itemsPerPage) { bytes in
                hasher.update(bufferPointer: bytes)
                length += Int64(bytes.count)
                try writer.write(bytes)
            }
        }
        let sha256 = hasher.finalize().hexString
        if FileSystem.size(atPath: destination.path) == length, FileSystem.sha256(atPath: destination.path) == sha256 {
            prepared.discard()
            return (nil, sha256)
        }
        return (prepared, sha256)
    }

    /// The script, handed to `sink` 128 KB at a time.
    static func render(
        _ site: SitePlan, itemsPerPage: Int, into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var out: [UInt8] = []
        out.reserveCapacity(128 * 1024 + 4096)
        func flush(force: Bool = false) throws {
            guard force || out.count >= 128 * 1024 else { return }
            try out.withUnsafeBytes { try sink($0) }
            out.removeAll(keepingCapacity: true)
        }
        func text(_ value: String) { appendQuoted(value, to: &out) }
        func number(_ value: Int) { out.append(contentsOf: String(value).utf8) }
        out.append(contentsOf: "/* catalog-mirror search index: every photo of this mirror, for the search box. */\n".utf8)
        out.append(
            contentsOf: "window.catalogMirrorSearch = {\"v\":\(version),\"perPage\":\(max(1, itemsPerPage)),\"albums\":[".utf8)
        let albums = site.albums.indices.filter { !site.albums[$0].photos.isEmpty }
        for (position, index) in albums.enumerated() {
            let album = site.albums[index]
            if position > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            text(album.title)
            out.append(UInt8(ascii: ","))
            text(album.fileBase)
            out.append(UInt8(ascii: ","))
            number(album.photos.count)
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: "],\n\"photos\":[".utf8)
        var first = true
        for index in albums {
            let albumTitle = site.albums[index].title
            for photo in site.albums[index].photos {
                out.append(contentsOf: first ? "\n".utf8 : ",\n".utf8)
                first = false
                let tile = PhotoView.tile(of: photo)
                let tilePath = tile.path
                let tileFile =
                    tilePath.hasPrefix(StoredImage.directory) ? String(tilePath.dropFirst(StoredImage.directory.count)) : tilePath
                let anchor = PhotoView.anchorName(ofPath: photo.original.path)
                if anchor == PhotoView.anchorName(ofPath: tilePath) { out.append(UInt8(ascii: "0")) } else { text(anchor) }
                out.append(UInt8(ascii: ","))
                text(tileFile)
                out.append(UInt8(ascii: ","))
                number(tile.dimensions?.width ?? 0)
                out.append(UInt8(ascii: ","))
                number(tile.dimensions?.height ?? 0)
                out.append(UInt8(ascii: ","))
                text(PhotoView.title(of: photo))
                out.append(UInt8(ascii: ","))
                let details = PhotoView.details(of: photo, albumTitle: albumTitle)
                let embedded = PhotoView.embedded(of: photo)
                let fileWords =
                    (embedded?.keywords ?? [])
                    + [embedded?.camera, embedded?.lens, embedded?.creator, embedded?.year].compactMap { $0 }
                text(([details.caption].compactMap { $0 } + details.fields.map(\.value) + fileWords).joined(separator: " "))
                out.append(UInt8(ascii: ","))
                text(embedded?.taken ?? "")
                try flush()
            }
        }
        out.append(contentsOf: "\n]};\n".utf8)
        try flush(force: true)
    }

    /// `text` as a JavaScript string literal (JSON's, plus `<` as `\u003c` so no `</script>`
    /// can appear, and U+2028/U+2029 escaped as older engines need).
    static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(0x22)
        var text = text
        text.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case 0x22: out.append(contentsOf: [0x5C, 0x22])
                case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                case 0x3C: out.append(contentsOf: Array("\\u003c".utf8))
                case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
                case 0x00..<0x20: out.append(contentsOf: Array(String(format: "\\u%04x", Int(byte)).utf8))
                case 0xE2
                where index + 2 < bytes.count && bytes[index + 1] == 0x80
                    && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                    out.append(contentsOf: Array((bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8))
                    index += 2
                default: out.append(byte)
                }
                index += 1
            }
        }
        out.append(0x22)
    }
}
