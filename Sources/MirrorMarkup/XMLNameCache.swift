import CLibXML

/// The Swift strings of the names and namespace URIs libxml2's SAX2 parser hands over, made once
/// per distinct name rather than at every element: a namespace URI is too long for a small
/// string, so each element of a Media RSS feed allocated one, and names were measured and
/// validated again for every element of a feed.
///
/// libxml2 passes names and URIs from its parser dictionary, so one pointer stands for one name
/// for the parser's life; a slot still compares the bytes before it answers, so a pointer that
/// was not interned can only cost a miss, never a wrong name.
struct XMLNameCache {
    private struct Entry {
        var pointer: UnsafePointer<xmlChar>?
        /// The name's bytes with the terminating NUL, to compare with libxml2's.
        var bytes: [xmlChar]
        var string: String
        var lists: FeedNamespaces
    }

    private static let slots = 256
    private var entries = [Entry](repeating: Entry(pointer: nil, bytes: [0], string: "", lists: []), count: slots)

    /// The string of the NUL-terminated `pointer`.
    mutating func string(_ pointer: UnsafePointer<xmlChar>) -> String {
        entries[slot(of: pointer, namespace: false)].string
    }

    /// The namespace URI at `pointer`, with the namespace lists it is in.
    mutating func namespace(_ pointer: UnsafePointer<xmlChar>) -> (uri: String, lists: FeedNamespaces) {
        let slot = slot(of: pointer, namespace: true)
        return (entries[slot].string, entries[slot].lists)
    }

    /// The slot holding `pointer`'s name, filled in first when it holds another. Fields are
    /// read in place: copying an entry out retained and released its two buffers each time.
    private mutating func slot(of pointer: UnsafePointer<xmlChar>, namespace: Bool) -> Int {
        // Names and URIs share the table; a URI's slot is kept apart by the low bit.
        let slot = (Int(bitPattern: UInt(bitPattern: pointer) >> 3) &* 2 + (namespace ? 1 : 0)) & (Self.slots - 1)
        if entries[slot].pointer == pointer,
            entries[slot].bytes.withUnsafeBufferPointer({ xmlStrEqual($0.baseAddress, pointer) == 1 })
        {
            return slot
        }
        let string = String(cString: pointer)
        entries[slot] = Entry(
            pointer: pointer, bytes: Array(UnsafeBufferPointer(start: pointer, count: Int(xmlStrlen(pointer)) + 1)),
            string: string,
            lists: namespace ? FeedNamespaces(of: string) : [])
        return slot
    }
}
