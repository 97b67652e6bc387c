import ArgumentParser
import Foundation

/// A size given on the command line: bytes, or with a K, M or G suffix (powers of 1024).
/// Encodes as its number of bytes (`MirrorSettings.maxSize`).
struct ByteCount: ExpressibleByArgument, Equatable, Encodable {
    let bytes: Int64

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        let multipliers: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = Substring(text)
        var multiplier: Int64 = 1
        if digits.hasSuffix("B") && digits.count > 1 && multipliers[digits[digits.index(digits.endIndex, offsetBy: -2)]] != nil {
            digits = digits.dropLast()
        }
        if let last = digits.last, let factor = multipliers[last] {
            multiplier = factor
            digits = digits.dropLast()
        }
        guard let value = Int64(digits), value > 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        bytes = product
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(bytes)
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
