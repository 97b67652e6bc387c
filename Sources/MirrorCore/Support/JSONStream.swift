import Foundation

/// Writes a value as `JSONCoding` encodes it, byte for byte, without holding its long lists
/// whole: the encoder writes the skeleton (the value with those lists empty), and each list's
/// elements are written into the empty list's place by hand, a buffer at a time.
///
/// Written by hand because `JSONEncoder` has no streaming form: it builds a tree of boxed values
/// for every element and the whole output in memory before it hands back a byte, which for the
/// manifest's items and the report's changes is the largest allocation of a large sync.
/// The manifest (`Manifest.write(into:)`) and the report (`RunReport.write(into:)`) both write
/// through it.
package enum JSONStream {
    /// One list of the skeleton to fill.
    package struct List<Elements: Collection> {
        /// The member's name, as the skeleton writes it (unescaped).
        package var member: String
        /// How many spaces the list's closing bracket is indented: 2 for a member of the top
        /// object, 4 for one of an object inside it. It tells this list from an empty list of
        /// the same name deeper in the value.
        package var indent: Int
        /// The list's elements, in order.
        package var elements: Elements

        /// A list named `member` whose closing bracket is indented `indent` spaces.
        package init(_ member: String, indent: Int, elements: Elements) {
            self.member = member
            self.indent = indent
            self.elements = elements
        }

        /// The list empty, as the encoder writes it: `"name" : [`, an empty line, the bracket.
        var placeholder: Data { Data("\"\(member)\" : [\n\n\(String(repeating: " ", count: indent))]".utf8) }
    }

    /// How much written JSON is held before it goes to the sink.
    static let flushSize = 128 * 1024

    /// Hands `sink` the skeleton with each non-empty list of `lists` filled in, piece by piece.
    ///
    /// - Parameters:
    ///   - skeleton: The value as `JSONCoding` encodes it, with every list of `lists` empty.
    ///   - lists: The lists to fill, in the order they stand in the skeleton (its keys are sorted).
    ///   - element: Appends one element as the encoder writes it at its depth (its own
    ///     indentation included, no separator).
    ///   - whole: The value encoded whole: written instead when a list's place is not found in
    ///     the skeleton (never expected; a list is then never dropped).
    ///   - sink: Receives the output; what it throws ends the write.
    package static func write<Elements: Collection>(
        skeleton: Data,
        filling lists: [List<Elements>],
        element: (Elements.Element, inout [UInt8]) -> Void,
        whole: () throws -> Data,
        into sink: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        func emit(_ bytes: some DataProtocol) throws {
            for region in bytes.regions { try region.withUnsafeBytes { try sink($0) } }
        }
        // Every place is found before anything is written, so a missing one costs nothing.
        var places: [(slot: Range<Data.Index>, list: List<Elements>)] = []
        var searchFrom = skeleton.startIndex
        for list in lists where !list.elements.isEmpty {
            guard let slot = skeleton[searchFrom...].firstRange(of: list.placeholder) else {
                try emit(whole())
                return
            }
            places.append((slot, list))
            searchFrom = slot.upperBound
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(places.isEmpty ? 0 : flushSize + flushSize / 2)
        var written = skeleton.startIndex
        for (slot, list) in places {
            try emit(skeleton[written..<slot.lowerBound])
            buffer.append(contentsOf: "\"\(list.member)\" : [\n".utf8)
            for (index, value) in list.elements.enumerated() {
                if index > 0 { buffer.append(contentsOf: [0x2C, 0x0A]) }
                element(value, &buffer)
                if buffer.count >= flushSize {
                    try buffer.withUnsafeBytes { try sink($0) }
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            buffer.append(0x0A)
            buffer.append(contentsOf: repeatElement(0x20, count: list.indent))
            buffer.append(0x5D)
            try buffer.withUnsafeBytes { try sink($0) }
            buffer.removeAll(keepingCapacity: true)
            written = slot.upperBound
        }
        try emit(skeleton[written...])
    }
}
