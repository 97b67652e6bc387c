import Crypto
import Foundation
import MirrorCore

/// Safe, stable file names for `images/`: `<slug>-<hash>.<ext>`.
///
/// The slug comes from the catalog title (or the key's last path segment) reduced to ASCII
/// letters, digits and single hyphens, at most 48 characters; the hash comes from the key and
/// the content, so a name never changes while the key's bytes stay the same, and never holds
/// `/`, `..`, NUL or anything a shell or web server treats specially.
package enum FileNamer {
    /// Longest slug kept.
    package static let maxSlugLength = 48

    /// The name for `key` holding bytes with digest `sha256` in `format`, with `hashLength` hex
    /// digits of hash (default 10; more when a shorter one collides).
    package static func fileName(
        key: CanonicalURL, title: String?, sha256: String, format: ImageFormat, hashLength: Int = 10
    ) -> String {
        // Built in one buffer: joining strings and a hex string of the whole digest allocated
        // again and again for each download (`Benchmarks/results/per-item-cpu.md`).
        let digits = max(0, min(hashLength, 2 * SHA256.byteCount))
        var name: [UInt8] = []
        name.reserveCapacity(maxSlugLength + digits + 8)
        if let title, title.utf8.allSatisfy({ $0 < 0x80 }) { appendSlugASCII(title.utf8, to: &name) }
        // A title that is not ASCII, or leaves nothing: the general path (the key's last segment).
        if name.isEmpty { name.append(contentsOf: slug(title: title, key: key).utf8) }
        var hasher = SHA256()
        var keyText = key.string
        keyText.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        var newline = UInt8(ascii: "\n")
        withUnsafeBytes(of: &newline) { hasher.update(bufferPointer: $0) }
        var contentText = sha256
        contentText.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        name.append(UInt8(ascii: "-"))
        hasher.finalize().withUnsafeBytes { digest in
            for index in 0..<digits {
                let byte = digest[index / 2]
                let nibble = index % 2 == 0 ? byte >> 4 : byte & 0x0F
                name.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
            }
        }
        name.append(UInt8(ascii: "."))
        name.append(contentsOf: format.fileExtension.utf8)
        return String(decoding: name, as: UTF8.self)
    }

    /// The readable part of a name.
    package static func slug(title: String?, key: CanonicalURL) -> String {
        if let title, let fromTitle = slugify(title) { return fromTitle }
        let lastSegment = PercentEncoding.decode(String(key.path.split(separator: "/").last ?? ""))
        let withoutExtension = lastSegment.split(separator: ".").dropLast().joined(separator: ".")
        return slugify(withoutExtension.isEmpty ? lastSegment : withoutExtension) ?? "image"
    }

    /// Lower-case ASCII letters and digits, other runs folded into one hyphen; accents dropped
    /// from their letters (é → e). nil when nothing usable remains.
    static func slugify(_ text: String) -> String? {
        text.utf8.allSatisfy { $0 < 0x80 } ? slugifyASCII(text.utf8) : slugifyUnicode(text)
    }

    /// `slugify` through the Unicode tables: any text.
    static func slugifyUnicode(_ text: String) -> String? {
        var out = ""
        var pendingHyphen = false
        for scalar in text.decomposedStringWithCompatibilityMapping.unicodeScalars {
            if scalar.properties.generalCategory == .nonspacingMark { continue }
            if scalar.isASCII, let char = Character(scalar).lowercased().first, char.isLetter || char.isNumber {
                if pendingHyphen && !out.isEmpty { out.append("-") }
                pendingHyphen = false
                out.append(char)
                if out.count >= maxSlugLength { break }
            } else {
                pendingHyphen = true
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? nil : out
    }

    /// `slugify` of ASCII text, byte by byte: the same result (compatibility decomposition leaves
    /// ASCII as it is, and it has no marks) without the Unicode tables, which were most of the
    /// cost of naming a download.
    static func slugifyASCII(_ text: String.UTF8View) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(min(text.count, maxSlugLength))
        appendSlugASCII(text, to: &out)
        return out.isEmpty ? nil : String(decoding: out, as: UTF8.self)
    }

    /// `slugifyASCII` appended to `out`, which starts empty (nothing appended: no slug).
    private static func appendSlugASCII(_ text: String.UTF8View, to out: inout [UInt8]) {
        var pendingHyphen = false
        for byte in text {
            let lower = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
            if (0x61...0x7A).contains(lower) || (0x30...0x39).contains(lower) {
                if pendingHyphen && !out.isEmpty { out.append(0x2D) }
                pendingHyphen = false
                out.append(lower)
                if out.count >= maxSlugLength { break }
            } else {
                pendingHyphen = true
            }
        }
        while out.last == 0x2D { out.removeLast() }
    }
}
