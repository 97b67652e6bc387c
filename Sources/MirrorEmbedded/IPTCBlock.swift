import CIPTCData
import MirrorCore

/// A photo's IPTC-IIM records read with libiptcdata, from the Photoshop block (`Photoshop 3.0`
/// and its `8BIM` resources) of a JPEG's APP13 segment: the title (ObjectName, 2:05), caption
/// (Caption-Abstract, 2:120), keywords (2:25), creator (By-line, 2:80), copyright
/// (CopyrightNotice, 2:116) and the date and time created (2:55, 2:60).
///
/// libiptcdata finds the IPTC resource among the block's resources and parses its datasets;
/// the text of each is decoded here: UTF-8 when record 1:90 says so (ESC % G) or the bytes are
/// valid UTF-8, else Latin-1 (IIM's text before UTF-8, and what exiftool writes by default).
enum IPTCBlock {
    /// The metadata of an APP13 segment's payload `bytes` (from `Photoshop 3.0\0` on). A block
    /// with no IPTC resource gives an empty value; one whose records cannot be parsed an empty
    /// value with a `problem`.
    static func read(_ bytes: ArraySlice<UInt8>) -> EmbeddedMetadata {
        let block = Array(bytes)
        var length: UInt32 = 0
        let offset = block.withUnsafeBufferPointer { buffer in
            iptc_jpeg_ps3_find_iptc(buffer.baseAddress, UInt32(clamping: buffer.count), &length)
        }
        var metadata = EmbeddedMetadata()
        guard offset > 0 else {
            if offset < 0 { metadata.problem = "its Photoshop block could not be read" }
            return metadata
        }
        guard Int(offset) + Int(length) <= block.count, length > 0, let data = iptc_data_new() else {
            metadata.problem = "its IPTC records could not be read"
            return metadata
        }
        defer { iptc_data_unref(data) }
        let loaded = block.withUnsafeBufferPointer { buffer in
            iptc_data_load(data, buffer.baseAddress! + Int(offset), length)
        }
        guard loaded == 0 else {
            metadata.problem = "its IPTC records could not be read"
            return metadata
        }
        var records: [(record: UInt32, tag: UInt32, bytes: [UInt8])] = []
        let count = Int(data.pointee.count)
        for index in 0..<min(count, 4096) {
            guard let dataset = data.pointee.datasets[index]?.pointee else { continue }
            let value = dataset.data.map { Array(UnsafeBufferPointer(start: $0, count: Int(dataset.size))) } ?? []
            records.append((dataset.record.rawValue, dataset.tag.rawValue, value))
        }
        return fields(of: records)
    }

    /// The fields the records give, by record and dataset number.
    static func fields(of records: [(record: UInt32, tag: UInt32, bytes: [UInt8])]) -> EmbeddedMetadata {
        let utf8 = records.contains { $0.record == 1 && $0.tag == 90 && $0.bytes == [0x1B, 0x25, 0x47] }
        func text(_ bytes: [UInt8]) -> String? {
            EmbeddedMetadata.cleaned(utf8 ? String(validating: bytes, as: UTF8.self) : EmbeddedText.decode(bytes))
        }
        func first(_ tag: UInt32) -> String? {
            records.lazy.filter { $0.record == 2 && $0.tag == tag }.compactMap { text($0.bytes) }.first
        }
        var metadata = EmbeddedMetadata()
        metadata.title = first(5)
        metadata.caption = first(120)
        metadata.creator = first(80)
        metadata.copyright = first(116)
        var keywords: [String] = []
        for record in records where record.record == 2 && record.tag == 25 {
            if let keyword = text(record.bytes), !keywords.contains(keyword) { keywords.append(keyword) }
            if keywords.count >= EmbeddedMetadata.mostKeywords { break }
        }
        metadata.keywords = keywords.isEmpty ? nil : keywords
        metadata.taken = takenDate(date: first(55), time: first(60))
        return metadata
    }

    /// `CCYYMMDD` and `HHMMSS±HHMM` as ISO 8601 (the date alone when there is no valid time);
    /// nil without a valid date.
    static func takenDate(date: String?, time: String?) -> String? {
        guard let date, date.utf8.count == 8, date.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let (year, month, day) = (date.prefix(4), date.dropFirst(4).prefix(2), date.suffix(2))
        guard let yearNumber = Int(year), (1800...2999).contains(yearNumber), let monthNumber = Int(month),
            (1...12).contains(monthNumber), let dayNumber = Int(day), (1...31).contains(dayNumber)
        else { return nil }
        var iso = "\(year)-\(month)-\(day)"
        guard let time, time.utf8.count >= 6, time.utf8.prefix(6).allSatisfy({ (0x30...0x39).contains($0) }),
            let hour = Int(time.prefix(2)), hour < 24, let minute = Int(time.dropFirst(2).prefix(2)), minute < 60,
            let second = Int(time.dropFirst(4).prefix(2)), second <= 60
        else { return iso }
        iso += "T" + time.prefix(2) + ":" + time.dropFirst(2).prefix(2) + ":" + time.dropFirst(4).prefix(2)
        let zone = time.dropFirst(6)
        if zone.utf8.count == 5, let offset = EXIFBlock.isoOffset(zone.prefix(3) + ":" + zone.suffix(2)) {
            iso += offset
        }
        return iso
    }
}
