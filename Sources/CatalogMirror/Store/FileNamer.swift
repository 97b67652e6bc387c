import Crypto
import Foundation

/// Safe, stable file names for `images/`: `<slug>-<hash>.<ext>`.
///
/// The slug comes from the catalog title (or the key's last path segment) reduced to ASCII
/// letters, digits and single hyphens, at most 48 characters; the hash comes from the key and
/// the content, so a name never changes while the key's bytes stay the same, and never holds
/// `/`, `..`, NUL or anything a shell or web server treats specially.
public enum FileNamer {
    /// Longest slug kept.
    public static let maxSlugLength = 48

    /// The name for `key` holding bytes with digest `sha256` in `format`, with `hashLength` hex
    /// digits of hash (default 10; more when a shorter one collides).
    public static func fileName(
        key: CanonicalURL, title: String?, sha256: String, format: ImageFormat, hashLength: Int = 10
    ) -> String {
        let digest = SHA256.hash(data: Array((key.string + "\n" + sha256).utf8)).hexString
        return slug(title: title, key: key) + "-" + String(digest.prefix(hashLength)) + "." + format.fileExtension
    }

    /// The readable part of a name.
    public static func slug(title: String?, key: CanonicalURL) -> String {
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
        return out.isEmpty ? nil : String(decoding: out, as: UTF8.self)
    }
}
