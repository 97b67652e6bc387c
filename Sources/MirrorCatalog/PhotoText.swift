import Foundation
import MirrorCore
import MirrorMarkup

/// The text helpers a photo's label is made with, shared by the publish plan (which writes a
/// title made from the file's name into the manifest) and the site (`PhotoView`, which shows
/// it): the name of a file from its key, that name as words, case-blind comparison, and which
/// metadata names hold a caption.
package enum PhotoText {
    /// A photo with no title is labelled by its file name, without the image extension.
    package static func fileTitle(_ key: String) -> String {
        let path = firstRun(of: key[...], without: "?") ?? key[...]
        let name = PercentEncoding.decode(String(lastRun(of: path, without: "/") ?? "image"))
        guard HTMLScanner.hasImageExtension(name), let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// The title made from the name of the file at `key`: its name, as words when it is one
    /// (`autumn-maple` reads `Autumn maple`).
    package static func nameTitle(_ key: String) -> String {
        // A rendition's size or word is no part of the photo's name (`aqua-x2000.jpg`: Aqua).
        let path = key.prefix { $0 != "?" && $0 != "#" }
        let last = path.split(separator: "/").last ?? ""
        let key = RenditionFamily.stemOriginals(name: last).first.map { String(path.dropLast(last.count)) + $0 } ?? key
        let name = fileTitle(key)
        return name.contains(" ") ? name : words(ofFileName: name)
    }

    /// Metadata names whose value is the photo's caption, not a field, the first found first.
    /// `alt` comes last: the text the source gave the image where it showed it, a caption only
    /// when it says more than the title.
    package static let captionNames = ["description", "caption", "summary", "comment", "content", "alt"]

    /// The first run of `text` without `separator`, as `text.split(separator:).first` gives
    /// it, found without splitting the rest; nil when there is none.
    package static func firstRun(of text: Substring, without separator: Character) -> Substring? {
        let rest = text.drop { $0 == separator }
        guard !rest.isEmpty else { return nil }
        return rest[..<(rest.firstIndex(of: separator) ?? rest.endIndex)]
    }

    /// The last run of `text` without `separator`, as `text.split(separator:).last` gives it.
    package static func lastRun(of text: Substring, without separator: Character) -> Substring? {
        var end = text.endIndex
        while end > text.startIndex, text[text.index(before: end)] == separator { end = text.index(before: end) }
        guard end > text.startIndex else { return nil }
        let head = text[..<end]
        return head[(head.lastIndex(of: separator).map { head.index(after: $0) } ?? head.startIndex)...]
    }

    /// Whether `a` and `b` differ at most in case, as `caseInsensitiveCompare` says: for printable ASCII
    /// text (most titles and values) compared here letter by letter, without Foundation's
    /// bridging of both strings, which this runs too often to afford.
    package static func sameIgnoringCase(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        let fast = a.withUTF8 { a in
            b.withUTF8 { b -> Bool? in
                guard a.allSatisfy({ (0x20..<0x7F).contains($0) }), b.allSatisfy({ (0x20..<0x7F).contains($0) }) else {
                    return nil
                }
                guard a.count == b.count else { return false }
                func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
                return zip(a, b).allSatisfy { lower($0) == lower($1) }
            }
        }
        return fast ?? (a.caseInsensitiveCompare(b) == .orderedSame)
    }

    /// `name` with its `-` and `_` as spaces and its first letter upper-cased, when that leaves
    /// some words; else `name`.
    ///
    /// A name whose words are joined by `_` (a wiki's `Ladybird_on_forget-me-nots`) keeps its
    /// hyphens: they are inside words there.
    package static func words(ofFileName name: String) -> String {
        let separators: Set<Character> = name.contains("_") ? ["_"] : ["-", "_"]
        let words = name.split(whereSeparator: { separators.contains($0) }).joined(separator: " ")
        guard let first = words.first, words.contains(where: \.isLetter) else { return name }
        return first.uppercased() + words.dropFirst()
    }
}
