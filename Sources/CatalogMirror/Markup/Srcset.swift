/// The `srcset` candidate parser of the HTML standard ("parse a srcset attribute"), reduced to
/// what a mirror needs: the URL of every candidate. Written by hand because a plain split on
/// commas breaks URLs that contain commas (`image,v2.png 2x`), which the standard allows.
enum Srcset {
    static func candidates(_ value: String) -> [String] {
        let chars = Array(value.unicodeScalars)
        var urls: [String] = []
        var index = 0
        func isSpace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
        }
        while index < chars.count {
            // Skip white space and commas before a candidate.
            while index < chars.count, isSpace(chars[index]) || chars[index] == "," { index += 1 }
            guard index < chars.count else { break }
            var url = ""
            while index < chars.count, !isSpace(chars[index]) {
                url.unicodeScalars.append(chars[index])
                index += 1
            }
            if url.hasSuffix(",") {
                // A URL ending in commas ends the candidate with no descriptors.
                while url.hasSuffix(",") { url.removeLast() }
            } else {
                // Skip descriptors up to the next comma outside parentheses.
                var depth = 0
                while index < chars.count {
                    let scalar = chars[index]
                    if scalar == "(" {
                        depth += 1
                    } else if scalar == ")" {
                        depth = max(0, depth - 1)
                    } else if scalar == ",", depth == 0 {
                        index += 1
                        break
                    }
                    index += 1
                }
            }
            if !url.isEmpty { urls.append(url) }
        }
        return urls
    }
}
