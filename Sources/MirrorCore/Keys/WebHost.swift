/// The URL Standard's host parser for special schemes (section 3.5), returning the serialized
/// host: a lower-case ASCII domain, a dotted-decimal IPv4 address (from any of the number forms
/// browsers accept: `0x7f.1`, `127.1`, `2130706433`, `0177.0.0.1`), or a bracketed, compressed
/// IPv6 address.
///
/// Written by hand because no Swift package implements the WHATWG host parser, and Foundation's
/// `URL` and `inet_pton` reject the short and octal/hex IPv4 forms pages use.
enum WebHost {
    /// The serialized host of `input` (the raw bytes between `//` and the port or path), or nil
    /// when it is not a valid host.
    static func parse(_ input: ArraySlice<UInt8>) -> String? {
        if input.first == UInt8(ascii: "[") {
            guard input.count >= 2, input.last == UInt8(ascii: "]"),
                let address = parseIPv6(input.dropFirst().dropLast())
            else { return nil }
            return "[" + serializeIPv6(address) + "]"
        }
        guard !input.isEmpty else { return nil }
        let domain = String(decoding: PercentEncoding.decodedBytes(input), as: UTF8.self)
        guard let ascii = DomainToASCII.convert(domain) else { return nil }
        let bytes = Array(ascii.utf8)
        guard !bytes.contains(where: isForbiddenDomainByte) else { return nil }
        if endsInANumber(bytes) {
            return parseIPv4(bytes).map(serializeIPv4)
        }
        return ascii
    }

    /// Forbidden domain code points: the forbidden host code points, C0 controls, `%` and DEL.
    static func isForbiddenDomainByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00...0x20, 0x7F, UInt8(ascii: "#"), UInt8(ascii: "%"), UInt8(ascii: "/"), UInt8(ascii: ":"),
            UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "?"), UInt8(ascii: "@"), UInt8(ascii: "["),
            UInt8(ascii: "\\"), UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "|"):
            true
        default: false
        }
    }

    // MARK: IPv4

    /// The "ends in a number" checker: the last label (ignoring one trailing dot) is all digits
    /// or parses as an IPv4 number (`0x` hex included).
    static func endsInANumber(_ bytes: [UInt8]) -> Bool {
        var parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true {
            if parts.count == 1 { return false }
            parts.removeLast()
        }
        guard let last = parts.last else { return false }
        if !last.isEmpty && last.allSatisfy(isDigit) { return true }
        return parseIPv4Number(last) != nil
    }

    /// The IPv4 parser: one to four dot-separated numbers in decimal, octal (`0` prefix) or hex
    /// (`0x` prefix); the last fills the remaining bytes.
    static func parseIPv4(_ bytes: [UInt8]) -> UInt32? {
        var parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true, parts.count > 1 { parts.removeLast() }
        guard parts.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard let number = parseIPv4Number(part) else { return nil }
            numbers.append(number)
        }
        guard let last = numbers.last else { return nil }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }) else { return nil }
        guard last < UInt64(1) << (8 * (5 - UInt64(numbers.count))) else { return nil }
        var address = last
        for (counter, number) in numbers.dropLast().enumerated() {
            address += number << (8 * (3 - UInt64(counter)))
        }
        return UInt32(truncatingIfNeeded: address)
    }

    /// One IPv4 number; values past 2^40 saturate (every such value is out of range anyway).
    static func parseIPv4Number(_ input: ArraySlice<UInt8>) -> UInt64? {
        guard !input.isEmpty else { return nil }
        var digits = input
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"),
            digits[digits.startIndex + 1] | 0x20 == UInt8(ascii: "x")
        {
            digits = digits.dropFirst(2)
            radix = 16
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            digits = digits.dropFirst()
            radix = 8
        }
        var value: UInt64 = 0
        for byte in digits {
            guard let digit = PercentEncoding.hexValue(byte).map(UInt64.init), digit < radix else { return nil }
            value = min(value * radix + digit, UInt64(1) << 40)
        }
        return value
    }

    static func serializeIPv4(_ address: UInt32) -> String {
        "\(address >> 24).\(address >> 16 & 0xFF).\(address >> 8 & 0xFF).\(address & 0xFF)"
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    // MARK: IPv6

    /// The IPv6 parser of the URL Standard: up to eight hex pieces, one `::`, and an optional
    /// dotted IPv4 tail in the last 32 bits.
    static func parseIPv6(_ input: ArraySlice<UInt8>) -> [UInt16]? {
        let input = Array(input)
        var address = [UInt16](repeating: 0, count: 8)
        var pieceIndex = 0
        var compress: Int?
        var pointer = 0
        func at(_ index: Int) -> UInt8? { index < input.count ? input[index] : nil }
        if at(0) == UInt8(ascii: ":") {
            guard at(1) == UInt8(ascii: ":") else { return nil }
            pointer += 2
            pieceIndex += 1
            compress = pieceIndex
        }
        while let c = at(pointer) {
            guard pieceIndex < 8 else { return nil }
            if c == UInt8(ascii: ":") {
                guard compress == nil else { return nil }
                pointer += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, let byte = at(pointer), let digit = PercentEncoding.hexValue(byte) {
                value = value << 4 | UInt16(digit)
                pointer += 1
                length += 1
            }
            if at(pointer) == UInt8(ascii: ".") {
                guard length > 0, pieceIndex <= 6 else { return nil }
                pointer -= length
                var numbersSeen = 0
                while let current = at(pointer) {
                    var piece: Int?
                    if numbersSeen > 0 {
                        guard current == UInt8(ascii: "."), numbersSeen < 4 else { return nil }
                        pointer += 1
                    }
                    guard let first = at(pointer), isDigit(first) else { return nil }
                    while let byte = at(pointer), isDigit(byte) {
                        let number = Int(byte - UInt8(ascii: "0"))
                        if let existing = piece {
                            guard existing != 0 else { return nil }
                            piece = existing * 10 + number
                        } else {
                            piece = number
                        }
                        guard let value = piece, value <= 255 else { return nil }
                        pointer += 1
                    }
                    address[pieceIndex] = address[pieceIndex] << 8 | UInt16(piece ?? 0)
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                guard numbersSeen == 4 else { return nil }
                break
            } else if at(pointer) == UInt8(ascii: ":") {
                pointer += 1
                guard at(pointer) != nil else { return nil }
            } else if at(pointer) != nil {
                return nil
            }
            address[pieceIndex] = value
            pieceIndex += 1
        }
        if let compress {
            var swaps = pieceIndex - compress
            pieceIndex = 7
            while pieceIndex != 0 && swaps > 0 {
                address.swapAt(pieceIndex, compress + swaps - 1)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            return nil
        }
        return address
    }

    /// The IPv6 serializer: lower-case hex, the first longest run of two or more zero pieces as `::`.
    static func serializeIPv6(_ address: [UInt16]) -> String {
        var compress: Int?
        var longest = 1
        var index = 0
        while index < 8 {
            guard address[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8 && address[end] == 0 { end += 1 }
            if end - index > longest {
                longest = end - index
                compress = index
            }
            index = end
        }
        var output = ""
        var ignoreZero = false
        for pieceIndex in 0..<8 {
            if ignoreZero && address[pieceIndex] == 0 { continue }
            ignoreZero = false
            if compress == pieceIndex {
                output += pieceIndex == 0 ? "::" : ":"
                ignoreZero = true
                continue
            }
            output += String(address[pieceIndex], radix: 16)
            if pieceIndex != 7 { output += ":" }
        }
        return output
    }
}
