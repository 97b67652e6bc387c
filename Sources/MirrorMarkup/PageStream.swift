import CLibXML

/// One element of an HTML page as `PageReading` sees it: its name, its attributes, and (only
/// while it is read whole, see `PageStream`) what it holds.
///
/// Built from libxml2's SAX events, so a page never becomes a libxml2 tree: that tree (a node
/// for each element, attribute and run of text) was most of a page's peak memory, where a
/// feed, read as a stream, holds one item at a time (`Benchmarks/results/page-memory.md`).
final class PageElement {
    /// A child: an element, or a run of text (character data or a script's source) as UTF-8
    /// bytes, as libxml2 hands it over in pieces (joined into one run, decoded when asked for).
    enum Content {
        case element(PageElement)
        case text([UInt8])
    }

    /// The element's name, lower-cased (libxml2's HTML parser lower-cases element names).
    let name: String
    /// The attributes as (name, value) pairs in document order; names lower-cased, as libxml2's
    /// HTML parser reads them; a value-less attribute has the value "".
    let attributes: [(name: String, value: String)]
    /// The enclosing element. Unowned: an element is reached only through its open ancestors
    /// (`PageStream`'s stack) or its buffered root, which hold its parent.
    unowned let parent: PageElement?
    /// The element's number in document order: its identity (a photo is numbered once per
    /// `<img>`), which an address would not be once elements are freed as the page is read.
    let serial: Int
    /// What the element holds, in document order. Filled only for an element read whole (a
    /// streamed element keeps nothing: its children are read and let go as they close).
    fileprivate(set) var contents: [Content] = []
    /// Set when text inside this element was not kept (past `PageReading.maxScriptBytes` in
    /// one kept element): its text is a prefix of what the page holds.
    fileprivate(set) var isTextCut = false

    init(name: String, attributes: [(name: String, value: String)], parent: PageElement?, serial: Int) {
        self.name = name
        self.attributes = attributes
        self.parent = parent
        self.serial = serial
    }

    /// The value of attribute `name` (lower-case ASCII; matched in any ASCII case), or nil.
    func attribute(_ name: String) -> String? {
        for attribute in attributes where Self.equalsIgnoringASCIICase(attribute.name, name) { return attribute.value }
        return nil
    }

    /// Whether some attribute's name starts with `prefix` (lower-case ASCII) in any case.
    func hasAttribute(prefixedBy prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        return attributes.contains { attribute in
            var index = 0
            for byte in attribute.name.utf8 {
                guard index < count else { break }
                let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                guard lower == prefix.utf8Start[index] else { return false }
                index += 1
            }
            return index == count
        }
    }

    private static func equalsIgnoringASCIICase(_ name: String, _ wanted: String) -> Bool {
        guard name.utf8.count == wanted.utf8.count else { return false }
        return zip(name.utf8, wanted.utf8).allSatisfy { byte, other in
            let lower = byte | 0x20
            return byte == other || (lower == other | 0x20 && lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z"))
        }
    }

    /// The element children, in document order.
    var elementChildren: [PageElement] {
        contents.compactMap { content in
            if case .element(let element) = content { return element }
            return nil
        }
    }

    /// The first element named `name` below this one, depth-first.
    func firstDescendant(named name: String) -> PageElement? {
        var result: PageElement?
        walk { element in
            guard result == nil else { return false }
            if element !== self, element.name == name {
                result = element
                return false
            }
            return true
        }
        return result
    }

    /// The text of this element and its descendants exactly as written (a script's source).
    var rawText: String {
        var out: [UInt8] = []
        walkText { out += $0 }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text of this element and its descendants, white space collapsed.
    var text: String { rawText.collapsingWhitespace }

    /// Visits this element and every element below it in document order; `visit` returns false
    /// to skip an element's subtree. Iterative, so a deeply nested page cannot exhaust the stack.
    func walk(_ visit: (PageElement) -> Bool) {
        var pending: [PageElement] = [self]
        while let element = pending.popLast() {
            guard visit(element) else { continue }
            for content in element.contents.reversed() {
                if case .element(let child) = content { pending.append(child) }
            }
        }
    }

    /// Calls `body` with each run of text below this element, in document order.
    private func walkText(_ body: ([UInt8]) -> Void) {
        var pending: [Content] = contents.reversed()
        while let content = pending.popLast() {
            switch content {
            case .text(let text): body(text)
            case .element(let element): pending.append(contentsOf: element.contents.reversed())
            }
        }
    }
}

/// Reads an HTML page with libxml2's recovering HTML parser and SAX callbacks, in one pass and
/// without a tree: each element is handed to `PageReading` as it opens, and let go when it
/// closes, so memory is the reader's references and the open elements, not the page.
///
/// `PageReading` looks past an element's attributes only for a few elements
/// (`PageReading.readsSubtree`): a link's image and text, a `<figure>`'s caption, a
/// `<picture>`'s sources, a caption's text, a title or a script. Such an element is kept whole
/// (with what it holds) until it closes, then read in document order as a tree; everything
/// else is read as it opens. The order in which elements are read is document order either way,
/// so the references come out exactly as a walk of the whole tree gave them. The text of an
/// element read as it opens goes to the reader as it comes, while the reader asks for it (the
/// text nearest an image: `PageReading.text(_:in:)`), and is kept nowhere.
final class PageStream {
    /// The reading under way. One stored struct, so that an event is one access to the stream.
    ///
    /// Safety (`@exclusivity(unchecked)`): only libxml2's callbacks reach `state`, one at a time
    /// on the thread running `read`, and nothing an event does calls back into the parser or
    /// the stream, so no two accesses to it overlap.
    @exclusivity(unchecked) private var state = State()

    private init() {}

    /// What a reading gives: the scan, and how many elements it held at most at once.
    struct Reading {
        var scan: PageScan
        /// The most elements alive at one time (open ones and those kept with an element read
        /// whole): the reading's memory, beside the references, is proportional to it.
        var peakElements: Int
    }

    /// The scan of `bytes` (a page fetched from `url`; `encoding` the HTTP header's charset if
    /// libxml2 knows it, else nil: the page's own `<meta charset>`, then UTF-8).
    /// - Throws: ``MarkupError`` when libxml2 cannot set up a parser.
    static func read(_ bytes: [UInt8], url: String, encoding: String?, isFragment: Bool = false) throws(MarkupError) -> PageScan {
        try read(bytes, url: url, encoding: encoding, keepingWholePage: false, isFragment: isFragment).scan
    }

    /// `read`, with its peak, and the inline script text it keeps at most (`scriptBudget`,
    /// smaller in tests). With `keepingWholePage` the page is kept whole and read as one
    /// tree once it ends, as a page was read before it was streamed: the streamed reading must
    /// give the same scan (a test compares them on real galleries' pages).
    static func read(
        _ bytes: [UInt8], url: String, encoding: String?, keepingWholePage: Bool,
        scriptBudget: Int = PageReading.maxScriptBytes, isFragment: Bool = false
    ) throws(MarkupError) -> Reading {
        // libxml2 refuses a zero-length buffer; an empty page holds nothing.
        guard !bytes.isEmpty else { return Reading(scan: PageScan(), peakElements: 0) }
        LibXML.ensureInitialized()
        let stream = PageStream()
        stream.state.keepsEverything = keepingWholePage
        stream.state.reader.scriptBudget = scriptBudget
        stream.state.reader.readsOwnPage = !isFragment
        let parsed: Bool = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                guard let context = htmlCreateMemoryParserCtxt(chars.baseAddress, Int32(clamping: chars.count)) else {
                    return false
                }
                defer { htmlFreeParserCtxt(context) }
                stream.run(context, encoding: encoding)
                return true
            }
        }
        guard parsed else { throw MarkupError(.resources, "out of memory reading \(url)") }
        return Reading(scan: stream.state.reader.finish(), peakElements: stream.state.peakElements)
    }

    /// Parses with the context libxml2 made: the same steps as `htmlCtxtReadMemory` (options,
    /// then a known charset forced over the page's own), with this stream's callbacks in place
    /// of the tree builder's.
    private func run(_ context: htmlParserCtxtPtr, encoding: String?) {
        guard let handler = context.pointee.sax else { return }
        var events = htmlSAXHandler()
        events.initialized = 1  // a SAX1 handler, as libxml2's own HTML handler is
        events.startElement = { user, name, attributes in PageStream.from(user)?.state.open(name, attributes) }
        events.endElement = { user, _ in PageStream.from(user)?.state.close() }
        events.characters = { user, text, length in PageStream.from(user)?.state.append(text, length) }
        // Script and style text comes as CDATA; blanks the parser deems ignorable are text too
        // (the tree builder drops some of them, joining the words around them).
        events.cdataBlock = events.characters
        events.ignorableWhitespace = events.characters
        handler.pointee = events
        context.pointee.userData = Unmanaged.passUnretained(self).toOpaque()
        htmlCtxtUseOptions(context, LibXML.htmlOptions)
        context.pointee.html = 1
        if let encoding, let converter = xmlFindCharEncodingHandler(encoding) {
            _ = xmlSwitchToEncoding(context, converter)
            // As `htmlCtxtReadMemory` does: a declared encoding keeps `<meta charset>` from switching.
            if let input = context.pointee.input {
                if let previous = input.pointee.encoding { cm_xmlFree(UnsafeMutableRawPointer(mutating: previous)) }
                input.pointee.encoding = UnsafePointer(xmlCharStrdup(encoding))
            }
        }
        _ = htmlParseDocument(context)
        context.pointee.userData = nil
    }

    /// The stream a callback is for: `userData` is set to it before `htmlParseDocument` and
    /// cleared after, and libxml2 calls back only within that call.
    private static func from(_ user: UnsafeMutableRawPointer?) -> PageStream? {
        user.map { Unmanaged<PageStream>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The open elements and the reading they feed.
    struct State {
        var reader = PageReading()
        /// The open elements, outermost first.
        private var open: [PageElement] = []
        /// The index in `open` of the element being kept whole, if one is.
        private var kept: Int?
        /// The index in `open` of an element whose subtree the reader skips, if one is.
        private var skipped: Int?
        private var serial = 0
        /// Text kept for the element kept whole; past the reader's script budget nothing more
        /// is kept (the reader reads no more script than that a page, and no label needs that
        /// much), so the text kept is always a prefix.
        private var keptText = 0
        /// Elements kept with the element read whole.
        private var keptElements = 0
        /// Every element is kept until the page ends (`read(keepingWholePage:)`).
        var keepsEverything = false
        private(set) var peakElements = 0

        mutating func open(_ name: UnsafePointer<xmlChar>?, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
            let element = PageElement(
                name: name.map { String(cString: $0) } ?? "", attributes: Self.attributes(attributes), parent: open.last,
                serial: serial)
            serial += 1
            if kept != nil {
                open.last?.contents.append(.element(element))
                keptElements += 1
            } else if skipped == nil {
                if keepsEverything || PageReading.readsSubtree(element) {
                    kept = open.count
                    keptText = 0
                    keptElements = 0
                } else if !reader.visit(element) {
                    skipped = open.count
                }
                reader.endOfSubtree()
            }
            open.append(element)
            peakElements = max(peakElements, open.count + keptElements)
        }

        mutating func close() {
            guard let element = open.popLast() else { return }
            if kept == open.count {
                kept = nil
                if keepsEverything {
                    Self.readWhole(element, into: &reader)
                } else {
                    element.walk { reader.visit($0) }
                }
                reader.endOfSubtree()
            } else if skipped == open.count {
                skipped = nil
            }
        }

        mutating func append(_ text: UnsafePointer<xmlChar>?, _ length: Int32) {
            guard let text, length > 0, let element = open.last else { return }
            guard kept != nil else {
                // Text of an element read as it opens: the reader takes it only to find the
                // text nearest an image (`PageReading.text(_:in:)`), and keeps none otherwise.
                if skipped == nil, reader.wantsText {
                    reader.text(UnsafeBufferPointer(start: text, count: Int(length)), in: element)
                }
                return
            }
            guard keptText + Int(length) <= reader.scriptBudget else {
                element.isTextCut = true
                keptText = reader.scriptBudget + 1
                return
            }
            keptText += Int(length)
            let piece = UnsafeBufferPointer(start: text, count: Int(length))
            // Appended in place (taken out of the array first, so the run is not copied): a
            // script comes in pieces of a kilobyte, and joining copies made a large one quadratic.
            if case .text(var run)? = element.contents.last {
                element.contents.removeLast()
                run.append(contentsOf: piece)
                element.contents.append(.text(run))
            } else {
                element.contents.append(.text(Array(piece)))
            }
        }

        /// Reads a page kept whole as the stream reads it: each element visited in document
        /// order, and the text of an element the stream would have read as it opened (outside
        /// every element `PageReading.readsSubtree` keeps) handed to the reader where the stream
        /// hands it over. Iterative, as `PageElement.walk`.
        private static func readWhole(_ root: PageElement, into reader: inout PageReading) {
            enum Step {
                case element(PageElement, insideKept: Bool)
                case text([UInt8], in: PageElement)
            }
            var pending: [Step] = [.element(root, insideKept: false)]
            while let step = pending.popLast() {
                switch step {
                case .text(let bytes, let element):
                    if reader.wantsText { bytes.withUnsafeBufferPointer { reader.text($0, in: element) } }
                case .element(let element, let insideKept):
                    guard reader.visit(element) else { continue }
                    let keeps = insideKept || PageReading.readsSubtree(element)
                    for content in element.contents.reversed() {
                        switch content {
                        case .element(let child): pending.append(.element(child, insideKept: keeps))
                        case .text(let bytes): if !keeps { pending.append(.text(bytes, in: element)) }
                        }
                    }
                }
            }
        }

        /// The NULL-terminated name/value array of a SAX1 start tag as pairs.
        private static func attributes(_ list: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) -> [(name: String, value: String)]
        {
            guard let list else { return [] }
            var result: [(name: String, value: String)] = []
            var index = 0
            while let name = list[index] {
                result.append((String(cString: name), list[index + 1].map { String(cString: $0) } ?? ""))
                index += 2
            }
            return result
        }
    }
}
