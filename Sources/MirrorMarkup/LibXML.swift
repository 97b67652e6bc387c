import CLibXML

/// The one place libxml2 is set up. Every parse goes through `LibXML.ensureInitialized()`.
enum LibXML {
    /// `xmlInitParser()` is not reentrant before its first completion; a `static let` runs it
    /// exactly once, thread-safely, before any parser context exists.
    private static let initialized: Bool = {
        xmlInitParser()
        return true
    }()

    static func ensureInitialized() {
        _ = initialized
    }

    /// Parser options for HTML pages: recover from broken markup, stay silent, no network, and
    /// no cut at libxml2's own limits (`HTML_PARSE_HUGE`): without it a text node stops at 10 MB,
    /// and the inline script of a 100,000-photo gallery (10.6 MB) lost its second half. A page
    /// is bounded before it is parsed (`FetchConfiguration.maxDocumentBytes`), and an HTML page
    /// has no entities to expand, so the flag opens no amplification.
    static let htmlOptions: Int32 = Int32(
        bitPattern: HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
            | HTML_PARSE_NONET.rawValue | HTML_PARSE_COMPACT.rawValue | XML_PARSE_HUGE.rawValue)

    /// Parser options for feeds: no network, no DTD loading, no entity substitution (never
    /// `XML_PARSE_NOENT`, `XML_PARSE_DTDLOAD` or `XML_PARSE_HUGE`), CDATA merged into text.
    static let xmlOptions: Int32 = Int32(
        bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_NOCDATA.rawValue | XML_PARSE_COMPACT.rawValue)
}

/// A libxml2 node seen from Swift; valid only while its document is alive (see `HTMLDocument`).
struct MarkupNode {
    let pointer: xmlNodePtr

    var isElement: Bool { pointer.pointee.type == XML_ELEMENT_NODE }

    /// The element's local name (libxml2's HTML parser already lower-cases HTML names).
    var name: String {
        guard let name = pointer.pointee.name else { return "" }
        return String(cString: name)
    }

    /// The namespace URI of an XML element, if any.
    var namespaceURI: String? {
        guard let ns = pointer.pointee.ns, let href = ns.pointee.href else { return nil }
        return String(cString: href)
    }

    var parent: MarkupNode? {
        guard let parent = pointer.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE else { return nil }
        return MarkupNode(pointer: parent)
    }

    /// The element children, in document order.
    var elementChildren: [MarkupNode] {
        var result: [MarkupNode] = []
        var child = pointer.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { result.append(MarkupNode(pointer: current)) }
            child = current.pointee.next
        }
        return result
    }

    /// The first element named `name` below this one, depth-first.
    func firstDescendant(named name: String) -> MarkupNode? {
        var current = following(within: pointer)
        while let node = current {
            if node.isElement && node.name == name { return node }
            current = node.following(within: pointer)
        }
        return nil
    }

    /// The value of attribute `name` (case-insensitive, as HTML attribute names are), or nil.
    /// Whether the NUL-terminated `bytes` spell `name` up to ASCII case. Byte by byte: this
    /// runs for every attribute of every element, and Foundation's case-insensitive compare
    /// (with a String made first) was most of a page's reading time.
    static func equalsIgnoringASCIICase(_ bytes: UnsafePointer<xmlChar>, _ name: String) -> Bool {
        var index = 0
        for byte in name.utf8 {
            let other = bytes[index]
            guard other != 0 else { return false }
            if other != byte {
                let lower = other | 0x20
                guard lower == byte | 0x20, lower >= UInt8(ascii: "a"), lower <= UInt8(ascii: "z") else { return false }
            }
            index += 1
        }
        return bytes[index] == 0
    }

    func attribute(_ name: String) -> String? {
        var attr = pointer.pointee.properties
        while let current = attr {
            if let attrName = current.pointee.name, Self.equalsIgnoringASCIICase(attrName, name) {
                return Self.value(of: current, in: pointer.pointee.doc)
            }
            attr = current.pointee.next
        }
        return nil
    }

    /// Whether some attribute's name starts with `prefix` (lower-case ASCII) in any case: a test
    /// before `attributes`, which makes a string of every name and value.
    func hasAttribute(prefixedBy prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        var attr = pointer.pointee.properties
        while let current = attr {
            if let name = current.pointee.name {
                var index = 0
                while index < count {
                    let byte = name[index]
                    let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                    guard lower == prefix.utf8Start[index] else { break }
                    index += 1
                }
                if index == count { return true }
            }
            attr = current.pointee.next
        }
        return false
    }

    /// The value of an attribute: its text node's content when it has one text node (nearly
    /// always: read in place, where `xmlNodeListGetString` would copy it into a fresh C string
    /// for each lookup), else the text of its nodes as libxml2 joins them. "" when it has none.
    private static func value(of attribute: xmlAttrPtr, in document: xmlDocPtr?) -> String {
        guard let children = attribute.pointee.children else { return "" }
        if children.pointee.type == XML_TEXT_NODE, children.pointee.next == nil {
            return children.pointee.content.map { String(cString: $0) } ?? ""
        }
        guard let value = xmlNodeListGetString(document, children, 1) else { return "" }
        defer { cm_xmlFree(value) }
        return String(cString: value)
    }

    /// All attributes as (lower-cased name, value) pairs, in document order.
    var attributes: [(name: String, value: String)] {
        var result: [(String, String)] = []
        var attr = pointer.pointee.properties
        while let current = attr {
            if let attrName = current.pointee.name {
                result.append((String(cString: attrName).lowercased(), Self.value(of: current, in: pointer.pointee.doc)))
            }
            attr = current.pointee.next
        }
        return result
    }

    /// The concatenated text of this node and its descendants, whitespace collapsed.
    var text: String {
        guard let content = xmlNodeGetContent(pointer) else { return "" }
        defer { cm_xmlFree(content) }
        return String(cString: content).collapsingWhitespace
    }

    /// The text of this node's descendants as a reader sees it, whitespace collapsed: block
    /// elements and `<br>` separate words (`xmlNodeGetContent` runs "<p>One</p><p>Two</p>"
    /// together as "OneTwo"), scripts and styles are no text, and a link to an image file that
    /// only says "Full size" or "Download" is left out (sigal puts one before each description).
    var readableText: String {
        var out: [UInt8] = []
        func append(_ text: UnsafePointer<xmlChar>) {
            var byte = text
            while byte.pointee != 0 {
                out.append(byte.pointee)
                byte += 1
            }
        }
        var current = pointer.pointee.children
        while let node = current {
            var descend = false
            switch node.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = node.pointee.content { append(content) }
            case XML_ELEMENT_NODE:
                let element = MarkupNode(pointer: node)
                let name = element.name
                if Self.separatingElements.contains(name) { out.append(0x20) }
                if name == "script" || name == "style" || name == "template" {
                    break
                } else if name == "a", let href = element.attribute("href"), HTMLScanner.hasImageExtension(href),
                    PageReading.isStockText(element.text)
                {
                    out.append(0x20)
                } else {
                    descend = node.pointee.children != nil
                }
            default:
                break
            }
            if descend {
                current = node.pointee.children
                continue
            }
            // Next in document order; leaving a block element separates what follows it.
            var climbing = node
            current = nil
            while true {
                if let next = climbing.pointee.next {
                    current = next
                    break
                }
                guard let parent = climbing.pointee.parent, parent != pointer else { break }
                if let name = parent.pointee.name, Self.separatingElements.contains(String(cString: name)) {
                    out.append(0x20)
                }
                climbing = parent
            }
        }
        return String(decoding: out, as: UTF8.self).collapsingWhitespace
    }

    /// Elements that begin and end a run of text: a word never joins across them.
    private static let separatingElements: Set<String> = [
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure", "footer",
        "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table",
        "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    ]

    /// The text of this node and its descendants exactly as written (a script's source, whose
    /// line breaks end its `//` comments).
    var rawText: String {
        guard let content = xmlNodeGetContent(pointer) else { return "" }
        defer { cm_xmlFree(content) }
        return String(cString: content)
    }

    /// The next node in document order (depth-first, pre-order) within `root`, without recursion,
    /// so a deeply nested document cannot exhaust the stack.
    func following(within root: xmlNodePtr, descend: Bool = true) -> MarkupNode? {
        if descend, let child = pointer.pointee.children { return MarkupNode(pointer: child) }
        var current: xmlNodePtr? = pointer
        while let node = current, node != root {
            if let next = node.pointee.next { return MarkupNode(pointer: next) }
            current = node.pointee.parent
        }
        return nil
    }
}

extension String {
    /// Runs of white space (Unicode `White_Space`) become one space; leading and trailing space
    /// is dropped. Works on scalars and copies only when there is white space: splitting by
    /// `Character` broke graphemes at every byte of every text a feed's extraction collapses.
    var collapsingWhitespace: String {
        switch utf8.withContiguousStorageIfAvailable(Self.collapsingASCII) {
        case .unchanged: return self
        case .collapsed(let text): return text
        case .notASCII, nil: break
        }
        guard unicodeScalars.contains(where: \.isWhiteSpace) else { return self }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count)
        var pendingSpace = false
        for scalar in unicodeScalars {
            if scalar.isWhiteSpace {
                pendingSpace = !output.isEmpty
                continue
            }
            if pendingSpace {
                output.append(0x20)
                pendingSpace = false
            }
            UTF8.encode(scalar) { output.append($0) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private enum Collapsed {
        case unchanged, collapsed(String), notASCII
    }

    /// `collapsingWhitespace` for ASCII text, byte by byte.
    private static func collapsingASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Collapsed {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        // Unchanged unless there is white space other than single spaces between words.
        var changes = false
        var previousIsSpace = true
        for byte in bytes {
            guard byte < 0x80 else { return .notASCII }
            let space = isSpace(byte)
            if space && (byte != 0x20 || previousIsSpace) { changes = true }
            previousIsSpace = space
        }
        guard changes || previousIsSpace && !bytes.isEmpty else { return .unchanged }
        return .collapsed(
            String(unsafeUninitializedCapacity: bytes.count) { output in
                var count = 0
                var pendingSpace = false
                for byte in bytes {
                    if isSpace(byte) {
                        pendingSpace = count > 0
                        continue
                    }
                    if pendingSpace {
                        output[count] = 0x20
                        count += 1
                        pendingSpace = false
                    }
                    output[count] = byte
                    count += 1
                }
                return count
            })
    }

    /// nil when the string is empty after collapsing white space.
    var nonEmpty: String? {
        let collapsed = collapsingWhitespace
        return collapsed.isEmpty ? nil : collapsed
    }

    /// The text as the URL Standard's basic URL parser reads it before it parses (leading and
    /// trailing C0 controls and spaces stripped, every tab, LF and CR removed), or nil when
    /// nothing is left: what a browser makes of an `href` or `src` value.
    ///
    /// Not `nonEmpty` for URLs: collapsing white space turns a tab or a line break inside a URL
    /// into a space, which the parser keeps (`a%20b.jpg`, or a host with a space in it and no
    /// key), where browsers remove it; and it trims a no-break space, which browsers keep
    /// (`%C2%A0`).
    var nonEmptyURL: String? {
        // Nearly every URL has no byte at or below the space: no copy.
        if utf8.withContiguousStorageIfAvailable({ $0.allSatisfy { $0 > 0x20 } }) == true { return isEmpty ? nil : self }
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 > 0x20 }), let last = bytes.lastIndex(where: { $0 > 0x20 }) else {
            return nil
        }
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.distance(from: first, to: last) + 1)
        for byte in bytes[first...last] where byte != 0x09 && byte != 0x0A && byte != 0x0D { kept.append(byte) }
        return String(decoding: kept, as: UTF8.self)
    }
}
