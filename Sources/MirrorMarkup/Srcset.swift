/// The HTML Standard's "parse a srcset attribute" (section 4.8.4.3.10): the image candidates of
/// a `srcset`, each with the width or density it declares.
///
/// Only ASCII whitespace (tab, LF, FF, CR, space) separates; a no-break space is part of a URL.
/// A URL ending in commas ends its candidate; otherwise descriptors run to the next comma outside
/// parentheses. A candidate with an invalid descriptor (a zero or signed width, a negative
/// density, two densities, a width and a density, an `h` without a `w`, anything unknown) is
/// dropped, as browsers drop it.
///
/// Written by hand because no Swift package parses srcset, and a plain split on commas breaks
/// URLs that contain commas (`image,v2.png 2x`), which the Standard allows.
package enum Srcset {
    /// One image candidate: the URL as written and what its descriptors declare.
    package struct Candidate: Equatable, Sendable {
        /// The URL exactly as written (not resolved).
        package var url: String
        /// The `w` descriptor: the image's width in pixels. Default: nil.
        package var width: Int?
        /// The `x` descriptor: the pixel density; 1 when the candidate has no descriptor at all,
        /// as the Standard defaults it. Default: nil (a width was given instead).
        package var density: Double?
        /// The `h` descriptor (reserved by the Standard for future use, valid only after a `w`).
        package var height: Int?

        /// A candidate for `url` with the given descriptors (all nil by default).
        package init(url: String, width: Int? = nil, density: Double? = nil, height: Int? = nil) {
            self.url = url
            self.width = width
            self.density = density
            self.height = height
        }
    }

    /// The candidates of `value`, in order; invalid ones are left out.
    package static func candidates(_ value: String) -> [Candidate] {
        let input = Array(value.unicodeScalars)
        var position = 0
        var candidates: [Candidate] = []
        while true {
            // Splitting loop: whitespace and commas before a candidate.
            while position < input.count, isSpace(input[position]) || input[position] == "," { position += 1 }
            guard position < input.count else { return candidates }
            var url = String.UnicodeScalarView()
            while position < input.count, !isSpace(input[position]) {
                url.append(input[position])
                position += 1
            }
            var descriptors: [String] = []
            if url.last == "," {
                while url.last == "," { url.removeLast() }
            } else {
                descriptors = tokenizeDescriptors(input, &position)
            }
            if let candidate = candidate(url: String(url), descriptors: descriptors) { candidates.append(candidate) }
        }
    }

    private enum TokenizerState { case inDescriptor, inParens, afterDescriptor }

    /// The descriptor tokenizer: descriptors up to the comma that ends the candidate (consumed).
    private static func tokenizeDescriptors(_ input: [Unicode.Scalar], _ position: inout Int) -> [String] {
        while position < input.count, isSpace(input[position]) { position += 1 }
        var descriptors: [String] = []
        var current = String.UnicodeScalarView()
        var state = TokenizerState.inDescriptor
        func flush() {
            if !current.isEmpty { descriptors.append(String(current)) }
            current = String.UnicodeScalarView()
        }
        while true {
            let c: Unicode.Scalar? = position < input.count ? input[position] : nil
            switch state {
            case .inDescriptor:
                guard let c else {
                    flush()
                    return descriptors
                }
                if isSpace(c) {
                    flush()
                    state = .afterDescriptor
                } else if c == "," {
                    position += 1
                    flush()
                    return descriptors
                } else {
                    if c == "(" { state = .inParens }
                    current.append(c)
                }
            case .inParens:
                guard let c else {
                    // The Standard appends the unfinished descriptor even when it is empty.
                    descriptors.append(String(current))
                    return descriptors
                }
                // Parentheses do not nest: the first ")" closes (so "((a)b)" is one bad token).
                if c == ")" { state = .inDescriptor }
                current.append(c)
            case .afterDescriptor:
                guard let c else { return descriptors }
                if !isSpace(c) {
                    state = .inDescriptor
                    continue  // reconsume
                }
            }
            position += 1
        }
    }

    /// The descriptor parser: the candidate, or nil when a descriptor is invalid.
    private static func candidate(url: String, descriptors: [String]) -> Candidate? {
        var candidate = Candidate(url: url)
        for descriptor in descriptors {
            var scalars = descriptor.unicodeScalars
            guard let last = scalars.popLast() else { return nil }
            let number = String(scalars)
            switch last {
            case "w":
                guard candidate.width == nil, candidate.density == nil, let value = nonNegativeInteger(number), value > 0
                else { return nil }
                candidate.width = value
            case "x":
                guard candidate.width == nil, candidate.density == nil, candidate.height == nil,
                    let value = floatingPointNumber(number), value >= 0
                else { return nil }
                candidate.density = value
            case "h":
                guard candidate.height == nil, candidate.density == nil, let value = nonNegativeInteger(number), value > 0
                else { return nil }
                candidate.height = value
            default:
                return nil
            }
        }
        if candidate.height != nil && candidate.width == nil { return nil }
        if candidate.width == nil && candidate.density == nil { candidate.density = 1 }
        return candidate
    }

    /// A valid non-negative integer: one or more ASCII digits (values past 2^31 saturate).
    static func nonNegativeInteger(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value = 0
        for digit in text.utf8 { value = min(value * 10 + Int(digit - 0x30), Int(Int32.max)) }
        return value
    }

    /// A valid floating-point number (`-`? digits? (`.` digits)? (`e`|`E` (`+`|`-`)? digits)?, with
    /// at least one digit before the exponent), parsed; nil when invalid or out of range.
    static func floatingPointNumber(_ text: String) -> Double? {
        var bytes = Array(text.utf8)[...]
        func digits() -> Int {
            let count = bytes.prefix(while: { $0 >= 0x30 && $0 <= 0x39 }).count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            let fraction = digits()
            guard fraction > 0 else { return nil }
            mantissa += fraction
        }
        guard mantissa > 0 else { return nil }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return nil }
        }
        guard bytes.isEmpty, let value = Double(text), value.isFinite else { return nil }
        // The Standard's set of values has no -0.
        return value == 0 ? 0 : value
    }

    /// ASCII whitespace: tab, LF, FF, CR and space (not the no-break space).
    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
    }
}
