import Foundation

/// Reads a JSON document whose top level is an object a chunk at a time: each element of the
/// array members it is asked about goes to a handler as its own bytes, and the other members'
/// values are returned as bytes. Nothing is decoded here; the caller reads each piece (the
/// manifest's readers with `JSONCursor`).
///
/// Written by hand because Foundation's `JSONDecoder` only takes a whole document, and keeps a
/// map of every value in it while it decodes: reading a large `manifest.json` held the text and
/// that map at once, the peak of a re-sync. None of our
/// dependencies streams JSON. This only finds where values begin and end (strings, escapes,
/// nesting); a piece that is not valid JSON fails when the caller decodes it.
package struct JSONMemberScanner {
    /// The file is not a JSON object, or ends before its end.
    package struct Malformed: Error, CustomStringConvertible {
        package var description: String { "not a whole JSON object" }
    }

    /// Bytes read per chunk.
    static let chunkSize = 1 << 20

    /// Scans the file at `url`. `element(member, bytes)` is called for each element of the
    /// top-level arrays named in `arrays`, in order; the result holds every other top-level
    /// member's value, and an empty value for each named array that was there.
    package static func scan(
        file url: URL, arrays: Set<String>, element: (String, ArraySlice<UInt8>) throws -> Void
    ) throws -> [String: [UInt8]] {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var scanner = JSONMemberScanner(arrays: arrays)
        while let chunk = try handle.read(upToCount: chunkSize), !chunk.isEmpty {
            try chunk.withUnsafeBytes { raw in try scanner.feed(raw.bindMemory(to: UInt8.self), element: element) }
        }
        guard scanner.state == .done else { throw Malformed() }
        return scanner.members
    }

    /// Scans `bytes`, fed `chunkSize` bytes at a time.
    static func scan(
        _ bytes: [UInt8], chunkSize: Int = chunkSize, arrays: Set<String>,
        element: (String, ArraySlice<UInt8>) throws -> Void
    ) throws -> [String: [UInt8]] {
        var scanner = JSONMemberScanner(arrays: arrays)
        try bytes.withUnsafeBufferPointer { all in
            for start in stride(from: 0, to: all.count, by: max(1, chunkSize)) {
                let chunk = UnsafeBufferPointer(rebasing: all[start..<min(start + max(1, chunkSize), all.count)])
                try scanner.feed(chunk, element: element)
            }
        }
        guard scanner.state == .done else { throw Malformed() }
        return scanner.members
    }

    private enum State: Equatable {
        case start, key, colon, value, member, arrayElement, afterMember, done
    }

    private let arrays: Set<String>
    private var state = State.start
    private var members: [String: [UInt8]] = [:]
    /// Nesting inside the top-level object (1 in it, 2 in a member's array or object...).
    private var depth = 0
    private var strings = JSONStrings()
    /// The member being read, and the bytes of its value (or of the current array element).
    private var key: [UInt8] = []
    private var memberName = ""
    private var piece: [UInt8] = []
    /// Whether an element of a split array is being read.
    private var inElement = false

    private init(arrays: Set<String>) { self.arrays = arrays }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private mutating func feed(
        _ bytes: UnsafeBufferPointer<UInt8>, element: (String, ArraySlice<UInt8>) throws -> Void
    ) throws {
        var index = 0
        // Where the bytes being collected into `piece` (or `key`) start in this chunk: at its
        // first byte when a key, value or element goes on from the chunk before.
        let goesOn = (state == .key && strings.isInside) || state == .member || (state == .arrayElement && inElement)
        var collectFrom: Int? = goesOn ? 0 : nil
        func flush(upTo end: Int) {
            guard let start = collectFrom else { return }
            if state == .key { key.append(contentsOf: bytes[start..<end]) } else { piece.append(contentsOf: bytes[start..<end]) }
            collectFrom = nil
        }
        while index < bytes.count {
            if strings.isInside {
                // Most of a manifest's bytes are inside strings: the run up to the next quote or
                // backslash is passed over in one tight loop (collected by `flush` like any
                // other bytes) instead of a turn of the state machine per byte.
                let end = strings.plainRun(in: bytes, from: index)
                if end > index {
                    index = end
                    continue
                }
            }
            if !strings.isInside && (state == .member || state == .arrayElement) {
                // The indentation of a pretty-printed file, passed over in one loop too: a
                // space changes nothing in a value, and is collected with it all the same.
                var end = index
                while end < bytes.count, bytes[end] == 0x20 || bytes[end] == 0x0A { end += 1 }
                if end > index {
                    index = end
                    continue
                }
            }
            let byte = bytes[index]
            if strings.isInside {
                _ = strings.take(byte)
                if !strings.isInside && state == .key {
                    flush(upTo: index)
                    memberName = String(decoding: key, as: UTF8.self)
                    key.removeAll(keepingCapacity: true)
                    state = .colon
                }
                index += 1
                continue
            }
            switch state {
            case .start:
                if byte == UInt8(ascii: "{") {
                    depth = 1
                    state = .key
                } else if !Self.isSpace(byte) {
                    throw Malformed()
                }
            case .key:
                if strings.take(byte) {
                    collectFrom = index + 1
                } else if byte == UInt8(ascii: "}") && members.isEmpty {
                    depth = 0
                    state = .done
                } else if !Self.isSpace(byte) {
                    throw Malformed()
                }
            case .colon:
                if byte == UInt8(ascii: ":") {
                    state = .value
                } else if !Self.isSpace(byte) {
                    throw Malformed()
                }
            case .value:
                if Self.isSpace(byte) { break }
                if byte == UInt8(ascii: "["), arrays.contains(memberName) {
                    depth = 2
                    inElement = false
                    members[memberName] = []
                    state = .arrayElement
                } else {
                    state = .member
                    collectFrom = index
                    continue  // read again as the value's first byte
                }
            case .member, .arrayElement:
                let level = state == .member ? 1 : 2
                if depth == level && !inElement && state == .arrayElement {
                    if Self.isSpace(byte) || byte == UInt8(ascii: ",") { break }
                    if byte == UInt8(ascii: "]") {
                        depth = 1
                        state = .afterMember
                        break
                    }
                    inElement = true
                    collectFrom = index
                    continue  // read again as the element's first byte
                }
                let isClose = byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}")
                if strings.take(byte) {
                    // A string begins.
                } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                    depth += 1
                } else if isClose && depth > level {
                    depth -= 1
                } else if depth == level && (isClose || byte == UInt8(ascii: ",")) {
                    // The end of the value or element: a comma or bracket at its own level,
                    // outside any string.
                    flush(upTo: index)
                    if state == .member {
                        guard byte != UInt8(ascii: "]") else { throw Malformed() }
                        members[memberName] = Array(piece.trimmingSpaces)
                        piece.removeAll(keepingCapacity: true)
                        state = byte == UInt8(ascii: ",") ? .key : .done
                        if state == .done { depth = 0 }
                    } else {
                        guard byte != UInt8(ascii: "}") else { throw Malformed() }
                        try element(memberName, piece.trimmingSpaces)
                        piece.removeAll(keepingCapacity: true)
                        inElement = false
                        if byte == UInt8(ascii: "]") {
                            depth = 1
                            state = .afterMember
                        }
                    }
                }
            case .afterMember:
                if byte == UInt8(ascii: ",") {
                    state = .key
                } else if byte == UInt8(ascii: "}") {
                    depth = 0
                    state = .done
                } else if !Self.isSpace(byte) {
                    throw Malformed()
                }
            case .done:
                if !Self.isSpace(byte) { throw Malformed() }
            }
            index += 1
        }
        flush(upTo: bytes.count)
    }
}

/// Whether a stream of JSON bytes is inside a string literal, a byte at a time (escapes
/// included): what both `JSONMemberScanner` and `JSONValue.nesting` need to tell structure from text.
package struct JSONStrings {
    private(set) var isInside = false
    private var escaped = false

    package init() {}

    /// Where the run of string bytes that cannot change the state ends, from `start`: the
    /// position of the next quote or backslash (or the end), when inside a string and not after
    /// a backslash; `start` otherwise. The bytes before it belong to the string.
    func plainRun(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard isInside, !escaped else { return start }
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
            index += 1
        }
        return index
    }

    /// Takes the next byte; true when it belongs to a string literal, its quotes included.
    package mutating func take(_ byte: UInt8) -> Bool {
        if isInside {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                isInside = false
            }
            return true
        }
        isInside = byte == UInt8(ascii: "\"")
        return isInside
    }
}

extension Array where Element == UInt8 {
    /// The bytes without JSON whitespace at either end.
    fileprivate var trimmingSpaces: ArraySlice<UInt8> {
        var slice = self[...]
        while let first = slice.first, first == 0x20 || first == 0x0A || first == 0x0D || first == 0x09 {
            slice = slice.dropFirst()
        }
        while let last = slice.last, last == 0x20 || last == 0x0A || last == 0x0D || last == 0x09 { slice = slice.dropLast() }
        return slice
    }
}
