/// Text helpers every stage's readers use: byte-wise searches and white-space trimming that do
/// not go through Foundation.
extension StringProtocol {
    /// Whether `needle` occurs in the text, compared as UTF-8 bytes. Not `contains(_:)`: with
    /// Foundation imported that resolves to NSString's `range(of:)`, which bridges the string on
    /// every call while a page is read.
    /// (Nor `utf8.firstRange(of:)`, whose generic searcher looks up type metadata per call.)
    /// Searched in the text's contiguous bytes where it has them (a native string always
    /// does): the generic walk over `utf8` cost a witness call per byte, on every label of
    /// every image of every page.
    package func includes(_ needle: String) -> Bool {
        var needle = needle
        return needle.withUTF8 { wanted in
            guard let first = wanted.first else { return true }
            func search(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
                guard bytes.count >= wanted.count else { return false }
                var start = 0
                let last = bytes.count - wanted.count
                while start <= last {
                    guard bytes[start] == first else {
                        start += 1
                        continue
                    }
                    var index = 1
                    while index < wanted.count, bytes[start + index] == wanted[index] { index += 1 }
                    if index == wanted.count { return true }
                    start += 1
                }
                return false
            }
            return utf8.withContiguousStorageIfAvailable(search) ?? Array(utf8).withUnsafeBufferPointer(search)
        }
    }

    /// Whether `needle` (lower-case ASCII) occurs in the text in any ASCII case.
    package func includesASCIICaseInsensitive(_ needle: StaticString) -> Bool {
        func search(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            let count = needle.utf8CodeUnitCount
            guard bytes.count >= count else { return false }
            for start in 0...(bytes.count - count) {
                var index = 0
                while index < count {
                    let byte = bytes[start + index]
                    let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                    guard lower == needle.utf8Start[index] else { break }
                    index += 1
                }
                if index == count { return true }
            }
            return false
        }
        return utf8.withContiguousStorageIfAvailable(search) ?? Array(utf8).withUnsafeBufferPointer(search)
    }

    /// Whether `lowercased().hasPrefix(prefix)`, for an ASCII `prefix` in lower case, without
    /// lower-casing: the text's bytes start with the prefix in any ASCII case, and the character
    /// after it is ASCII (else it might combine with the prefix's last character). No other
    /// character lower-cases or is canonically equivalent to a letter or sign of these prefixes.
    package func hasASCIICaseInsensitivePrefix(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        var index = 0
        for byte in utf8 {
            if index == count { return byte < 0x80 }
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            guard lower == prefix.utf8Start[index] else { return false }
            index += 1
        }
        return index == count
    }

    /// The text without leading and trailing white space (Unicode `White_Space`). Works on
    /// scalars: trimming by `Character` reversed the string grapheme by grapheme, on texts
    /// every re-sync trims.
    package var trimmingSpaces: String {
        let text = String(self)
        // Text that starts and ends with a printable ASCII character has nothing to trim.
        if let first = text.utf8.first, let last = text.utf8.last, first > 0x20, first < 0x80, last > 0x20, last < 0x80 {
            return text
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isWhiteSpace }),
            let last = scalars.lastIndex(where: { !$0.isWhiteSpace })
        else { return "" }
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return text }
        return String(Substring(scalars[first...last]))
    }
}

extension Unicode.Scalar {
    /// Unicode `White_Space`, answered without a property lookup for ASCII.
    package var isWhiteSpace: Bool {
        isASCII ? self == " " || (0x09...0x0D).contains(value) : properties.isWhitespace
    }
}
