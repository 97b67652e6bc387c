import Foundation

/// RFC 3339 UTC timestamps with second precision, e.g. `2026-11-21T12:00:00Z`.
///
/// Formatted and parsed by hand on `gmtime_r`/`timegm`: a manifest has two dates per item, and
/// creating ICU-backed formatters for them cost more than everything else a no-op sync does
/// with a date.
package enum Timestamp {
    /// `date` as `YYYY-MM-DDTHH:MM:SSZ`, fractional seconds dropped.
    package static func string(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var out = ""
        out.reserveCapacity(20)
        func append(_ value: Int32, width: Int) {
            let digits = String(value)
            if digits.count < width { out += String(repeating: "0", count: width - digits.count) }
            out += digits
        }
        append(parts.tm_year + 1900, width: 4)
        out += "-"
        append(parts.tm_mon + 1, width: 2)
        out += "-"
        append(parts.tm_mday, width: 2)
        out += "T"
        append(parts.tm_hour, width: 2)
        out += ":"
        append(parts.tm_min, width: 2)
        out += ":"
        append(parts.tm_sec, width: 2)
        out += "Z"
        return out
    }

    /// `date` as `YYYYMMDDTHHMMSSZ`: the form that goes into a file name (no `:`).
    package static func compact(_ date: Date) -> String {
        string(date).filter { $0 != "-" && $0 != ":" }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS`, an optional fraction, and `Z` or `±HH:MM`; nil otherwise.
    package static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int32? {
            var value: Int32 = 0
            for index in start..<start + count {
                guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int32(bytes[index] - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(8, 2), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"), let minute = number(14, 2),
            bytes[16] == UInt8(ascii: ":"), let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, let hours = number(index + 1, 2), bytes[index + 3] == UInt8(ascii: ":"),
                let minutes = number(index + 4, 2), hours < 24, minutes < 60
            else { return nil }
            offset = Int(hours) * 3600 + Int(minutes) * 60
            if bytes[index] == UInt8(ascii: "-") { offset = -offset }
        default:
            return nil
        }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    /// `date` with its fractional seconds dropped, so what is written reads back equal.
    package static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
