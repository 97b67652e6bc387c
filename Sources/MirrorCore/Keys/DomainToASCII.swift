import CIDN2

/// The URL Standard's "domain to ASCII" (with beStrict false): ASCII host names are lower-cased,
/// anything else goes through UTS #46 processing with punycode, e.g. `Bücher.example` →
/// `xn--bcher-kva.example`.
///
/// The UTS #46 mapping and the punycode encoder are libidn2's (the library curl and wget2 use):
/// its mapping and normalization tables follow Unicode, which nothing should copy by hand.
/// Labels are handed to it one at a time, after splitting on the four full stops UTS #46 maps to
/// `.`, so that all-ASCII labels keep the URL Standard's lenient rules (`a--b`, `-x`, `a_b` and
/// labels over 63 bytes stay valid there, while libidn2 applies IDNA2008's hyphen and length
/// checks), and labels that map to ASCII are mapped around their hyphens. Differences left:
/// libidn2 validates by IDNA2008, which refuses the symbols UTS #46 marks valid but not
/// IDNA2008 (`☃`, `⒈`), non-ASCII labels with a hyphen at either end or in positions 3–4
/// (`-ü`) or with ASCII punctuation (`ü{`, `'ß`), and non-ASCII labels over 63 bytes; such
/// hosts give no key. (Measured against Node's URL on 133,000 mutated table inputs: these are
/// the only host differences.)
enum DomainToASCII {
    /// The ASCII form of `domain`, or nil when UTS #46 processing fails or the result is empty.
    static func convert(_ domain: String) -> String? {
        let bytes = Array(domain.utf8)
        if bytes.allSatisfy({ $0 < 0x80 }) && !hasPunycodeLabel(bytes) {
            return bytes.isEmpty ? nil : String(decoding: bytes.map(lowercased), as: UTF8.self)
        }
        var labels: [String] = []
        var label = ""
        for scalar in domain.unicodeScalars {
            // U+002E FULL STOP, U+3002 IDEOGRAPHIC FULL STOP, U+FF0E FULLWIDTH FULL STOP and
            // U+FF61 HALFWIDTH IDEOGRAPHIC FULL STOP all separate labels (UTS #46 section 4).
            if scalar == "." || scalar == "\u{3002}" || scalar == "\u{FF0E}" || scalar == "\u{FF61}" {
                labels.append(label)
                label = ""
            } else {
                label.unicodeScalars.append(scalar)
            }
        }
        labels.append(label)
        var result: [String] = []
        result.reserveCapacity(labels.count)
        for label in labels {
            let utf8 = Array(label.utf8)
            if utf8.allSatisfy({ $0 < 0x80 }) && !isPunycode(utf8[...]) {
                result.append(String(decoding: utf8.map(lowercased), as: UTF8.self))
            } else {
                guard let ascii = idn2(label) ?? mappedToASCIIWithHyphens(label) else { return nil }
                result.append(ascii)
            }
        }
        let joined = result.joined(separator: ".")
        return joined.isEmpty ? nil : joined
    }

    /// One label through libidn2's UTS #46 non-transitional processing.
    private static func idn2(_ label: String) -> String? {
        // A NUL would end the C string early; it is a forbidden host code point anyway.
        guard !label.utf8.contains(0) else { return nil }
        var output: UnsafeMutablePointer<CChar>?
        let status = idn2_to_ascii_8z(label, &output, Int32(IDN2_NONTRANSITIONAL.rawValue))
        defer { idn2_free(output) }
        guard status == Int32(IDN2_OK.rawValue), let output else { return nil }
        return String(cString: output).lowercased()
    }

    /// A label that UTS #46 maps to ASCII with hyphens IDNA2008 refuses (`-Ａ` → `-a`,
    /// `Ａa--b` → `aa--b`): the mapping is per code point and never reaches across `-`, so the
    /// parts between hyphens are mapped one by one. Nil unless every part maps to plain ASCII
    /// (a non-ASCII label with such hyphens is left to libidn2's refusal).
    private static func mappedToASCIIWithHyphens(_ label: String) -> String? {
        guard label.unicodeScalars.contains("-") else { return nil }
        var parts: [String] = []
        for part in label.split(separator: "-", omittingEmptySubsequences: false) {
            if part.isEmpty {
                parts.append("")
                continue
            }
            guard let ascii = idn2(String(part)), !isPunycode(Array(ascii.utf8)[...]) else { return nil }
            parts.append(ascii)
        }
        let joined = parts.joined(separator: "-")
        // A mapped label that reads `xn--` is an A-label after all, and libidn2 checks it.
        return isPunycode(Array(joined.utf8)[...]) ? idn2(joined) : joined
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    private static func hasPunycodeLabel(_ bytes: [UInt8]) -> Bool {
        bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).contains(where: isPunycode)
    }

    /// True when a label starts with `xn--`, in any case.
    private static func isPunycode(_ label: ArraySlice<UInt8>) -> Bool {
        guard label.count >= 4 else { return false }
        let start = label.startIndex
        return lowercased(label[start]) == UInt8(ascii: "x") && lowercased(label[start + 1]) == UInt8(ascii: "n")
            && label[start + 2] == UInt8(ascii: "-") && label[start + 3] == UInt8(ascii: "-")
    }
}
