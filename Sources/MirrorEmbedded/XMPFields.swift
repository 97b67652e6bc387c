import MirrorCore
import MirrorMarkup

/// The fields of `EmbeddedMetadata` an XMP packet gives (`XMPPacket`, which reads it), in the
/// forms XMP writes them: ISO 8601 dates, rationals as `56/10`, positions as `48,51.504N`.
enum XMPFields {
    /// The metadata the packet `bytes` give; a packet that is not well-formed XML gives an empty
    /// value with a `problem`.
    static func read(_ bytes: ArraySlice<UInt8>) -> EmbeddedMetadata {
        var metadata = EmbeddedMetadata()
        guard let properties = XMPPacket.read(bytes) else {
            metadata.problem = "its XMP packet is not well-formed XML"
            return metadata
        }
        metadata.title = EmbeddedMetadata.cleaned(properties.title)
        metadata.caption = EmbeddedMetadata.cleaned(properties.description)
        var keywords: [String] = []
        for subject in properties.subjects.prefix(EmbeddedMetadata.mostKeywords * 2) {
            if let keyword = EmbeddedMetadata.cleaned(subject), !keywords.contains(keyword) { keywords.append(keyword) }
        }
        metadata.keywords = keywords.isEmpty ? nil : Array(keywords.prefix(EmbeddedMetadata.mostKeywords))
        let creators = properties.creators.prefix(20).compactMap(EmbeddedMetadata.cleaned)
        metadata.creator = creators.isEmpty ? nil : EmbeddedMetadata.cleaned(creators.joined(separator: ", "))
        metadata.copyright = EmbeddedMetadata.cleaned(properties.rights)
        metadata.taken =
            [properties.dateTimeOriginal, properties.dateCreated, properties.createDate].lazy
            .compactMap { $0.flatMap(date) }.first
        metadata.camera = EXIFBlock.camera(make: properties.make, model: properties.model)
        metadata.lens = EmbeddedMetadata.cleaned(properties.lensModel)
        let exposure = EmbeddedMetadata.Exposure(
            focalLength: properties.focalLength.flatMap(rational).flatMap { EXIFBlock.rounded($0, places: 1) },
            aperture: properties.fNumber.flatMap(rational).flatMap { EXIFBlock.rounded($0, places: 1) },
            exposureTime: properties.exposureTime.flatMap(rational).flatMap(EXIFBlock.exposureTime),
            iso: properties.iso.flatMap { Int($0.trimmingSpaces) }.flatMap { $0 > 0 && $0 < 10_000_000 ? $0 : nil })
        metadata.exposure = exposure.isEmpty ? nil : exposure
        if let latitude = properties.latitude.flatMap({ coordinate($0, positive: "N", negative: "S") }),
            let longitude = properties.longitude.flatMap({ coordinate($0, positive: "E", negative: "W") }),
            latitude != 0 || longitude != 0
        {
            metadata.location = EmbeddedMetadata.Location(latitude: latitude, longitude: longitude)
        }
        return metadata
    }

    /// An XMP date (`YYYY-MM-DD`, then optionally `Thh:mm`, `:ss`, a fraction, and `Z` or
    /// `±hh:mm`) as `EmbeddedMetadata.taken` writes dates: seconds, no fraction, the offset kept.
    static func date(_ text: String) -> String? {
        let text = text.trimmingSpaces
        let bytes = Array(text.utf8)
        guard bytes.count >= 10 else { return nil }
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                guard (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        let dash = UInt8(ascii: "-")
        let colon = UInt8(ascii: ":")
        guard let year = digits(0..<4), bytes[4] == dash, let month = digits(5..<7), bytes[7] == dash,
            let day = digits(8..<10), (1800...2999).contains(year), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var iso = String(text.prefix(10))
        guard bytes.count >= 16, bytes[10] == UInt8(ascii: "T"), let hour = digits(11..<13), bytes[13] == colon,
            let minute = digits(14..<16), hour < 24, minute < 60
        else { return iso }
        var second = 0
        var index = 16
        if index < bytes.count, bytes[index] == colon {
            guard let value = digits(17..<19), value <= 60 else { return iso }
            second = value
            index = 19
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            }
        }
        iso += "T" + text.dropFirst(11).prefix(5) + ":" + (second < 10 ? "0" : "") + String(second)
        if index < bytes.count, let offset = EXIFBlock.isoOffset(String(decoding: bytes[index...], as: UTF8.self)) {
            iso += offset
        }
        return iso
    }

    /// `56/10` or `5.6` as a number; nil for a zero denominator or not a number.
    static func rational(_ text: String) -> Double? {
        let parts = text.trimmingSpaces.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return Double(parts[0]).flatMap { $0.isFinite ? $0 : nil }
        case 2:
            guard let numerator = Double(parts[0]), let denominator = Double(parts[1]), denominator != 0 else { return nil }
            let value = numerator / denominator
            return value.isFinite ? value : nil
        default: return nil
        }
    }

    /// XMP's GPS coordinate (`DDD,MM,SSk` or `DDD,MM.mmk`, `k` the direction) in decimal
    /// degrees, negative for `negative`'s direction.
    static func coordinate(_ text: String, positive: Character, negative: Character) -> Double? {
        var text = Substring(text.trimmingSpaces.uppercased())
        guard let direction = text.last, direction == positive || direction == negative else { return nil }
        text = text.dropLast()
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) }
        guard (2...3).contains(numbers.count), numbers.count == text.count(where: { $0 == "," }) + 1,
            numbers.allSatisfy({ $0.isFinite && $0 >= 0 })
        else { return nil }
        var degrees = numbers[0] + numbers[1] / 60
        if numbers.count == 3 { degrees += numbers[2] / 3600 }
        return direction == negative ? -degrees : degrees
    }
}
