import CLibXML

/// Parses RSS, Atom and sitemaps incrementally with libxml2's SAX2 push parser: bytes go in as
/// they arrive and each item comes out when it closes, so a feed of any length is read with
/// memory bounded by one item, and its keys can be fetched while the rest is still arriving.
///
/// Network, DTD loading and entity substitution are off. A document that declares entities is
/// read with them left unexpanded (the declarations are dropped, so a reference expands to
/// nothing and nothing is fetched) and a warning; a document that is not well-formed is read
/// as far as libxml2's recover mode goes, with a warning. Only a document that is not a feed at
/// all (another root element, no root element) throws.
final class FeedStreamParser {
    /// Text kept per element (a description longer than this is cut).
    static let maxTextPerElement = 64 * 1024
    /// Elements kept per item (an item larger than this keeps its first ones).
    static let maxNodesPerItem = 2_000

    private(set) var kind: FeedScanner.Kind?
    private(set) var sitemaps: [String] = []
    /// What was odd about the document, one line each, naming it (entity declarations,
    /// recovered ill-formedness, an unknown charset). Filled in as parsing goes; complete after
    /// `finish()`.
    var warnings: [String] {
        var lines = otherWarnings
        if !entities.isEmpty {
            let names = entities.prefix(5).joined(separator: ", ") + (entities.count > 5 ? ", ..." : "")
            lines.append("\(noun) \(url) declares XML entities (\(names)); read with them left unexpanded")
        }
        if let firstError {
            let more = errorCount > 1 ? "; \(errorCount) errors in all" : ""
            lines.append("\(noun) \(url) is not well-formed XML (\(firstError)\(more)); read as far as libxml2 recovers")
        }
        return lines
    }

    private var ready: [ImageReference] = []
    private var failure: String?
    private var depth = 0
    /// The open elements of the current item, outermost first; empty outside items.
    private var stack: [FeedNode] = []
    /// The depth of the current item's element.
    private var itemDepth = 0
    private var nodesInItem = 0
    /// `xml:base` in effect: the depth of the element that set it, and the resolved base.
    private var bases: [(depth: Int, url: CanonicalURL?)] = []
    /// The next photo number: photos are numbered across the whole document.
    private var nextPhoto = 0
    /// True for a root `<feed>` with no namespace (an Atom feed that forgot it).
    private var bareAtom = false
    private var entities: [String] = []
    private var firstError: String?
    private var errorCount = 0
    private var otherWarnings: [String] = []
    /// Bytes held until there are enough to choose the encoding.
    private var pending: [UInt8] = []
    private var context: xmlParserCtxtPtr?
    /// Strings of the names and namespace URIs seen so far.
    private var names = XMLNameCache()
    private let url: String
    private let documentURL: CanonicalURL?
    private let charset: String?

    /// Bytes the parser holds for the item under way (a bound, for tests).
    var retainedTextBytes: Int { stack.reduce(0) { $0 + Self.textBytes($1) } }

    private var noun: String { kind == .sitemap ? "the sitemap" : "the feed" }

    /// A parser for the document fetched from `url`; `charset` is the `charset` parameter of
    /// its HTTP `Content-Type` (default nil: the BOM, then the XML declaration, then UTF-8).
    init(url: String, charset: String? = nil) {
        self.url = url
        self.documentURL = CanonicalURL(url)
        self.charset = charset
    }

    deinit {
        if let context {
            xmlFreeDoc(context.pointee.myDoc)
            xmlFreeParserCtxt(context)
        }
    }

    /// Feeds the next bytes; returns the references of the items completed by them. Throws
    /// only when the document turned out not to be a feed.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(MarkupError) -> [ImageReference] {
        if context == nil {
            pending += bytes
            guard pending.count >= FeedEncoding.sniffLength else { return [] }
            start()
            pending.withUnsafeBytes { push($0) }
            pending = []
        } else {
            push(bytes)
        }
        if let failure { throw MarkupError(message: failure) }
        return takeReady()
    }

    /// Ends the document; returns the last items (an item left open by a truncated document
    /// included). Throws when the document was empty or not a feed.
    func finish() throws(MarkupError) -> [ImageReference] {
        if context == nil {
            guard !pending.isEmpty else { throw MarkupError(message: "empty document") }
            start()
            pending.withUnsafeBytes { push($0) }
            pending = []
        }
        if failure == nil, let context { xmlParseChunk(context, nil, 0, 1) }
        if let failure { throw MarkupError(message: failure) }
        guard kind != nil else {
            throw MarkupError(message: firstError.map { "not XML (\($0))" } ?? "no root element")
        }
        // A truncated document leaves its last item open: read what it holds.
        while let node = stack.popLast() {
            if let parent = stack.last {
                parent.children.append(node)
            } else {
                finishItem(node)
            }
        }
        return takeReady()
    }

    private func start() {
        LibXML.ensureInitialized()
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        handler.startElementNs = { context, localName, prefix, uri, _, _, count, _, attributes in
            FeedStreamParser.from(context)?.open(localName, prefix, uri, count, attributes)
        }
        handler.endElementNs = { context, _, _, _ in FeedStreamParser.from(context)?.close() }
        handler.characters = { context, text, length in FeedStreamParser.from(context)?.append(text, length) }
        handler.cdataBlock = { context, text, length in FeedStreamParser.from(context)?.append(text, length) }
        // Declarations are noted and dropped: with no entity stored, no reference expands.
        handler.entityDecl = { context, name, _, _, _, _ in FeedStreamParser.from(context)?.noteEntity(name) }
        handler.serror = { context, error in FeedStreamParser.from(context)?.noteError(error) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        // No first chunk: libxml2 detects the encoding from the first bytes pushed, unless one is forced.
        guard let created = xmlCreatePushParserCtxt(&handler, me, nil, 0, url) else {
            failure = "out of memory"
            return
        }
        context = created
        var options = LibXML.xmlOptions | Int32(bitPattern: XML_PARSE_RECOVER.rawValue)
        let choice = FeedEncoding.choose(prefix: pending, charset: charset) { otherWarnings.append("\(noun) \(url) \($0)") }
        if case .force(let name) = choice {
            options |= Int32(bitPattern: XML_PARSE_IGNORE_ENC.rawValue)
            xmlCtxtResetPush(created, nil, 0, url, name)
        }
        xmlCtxtUseOptions(created, options)
    }

    private func push(_ bytes: UnsafeRawBufferPointer) {
        guard let context, failure == nil, !bytes.isEmpty else { return }
        // Chunks beyond Int32 are split (a socket never hands over that much, a caller might).
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + Int(Int32.max / 2), bytes.count)
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
            slice.withMemoryRebound(to: CChar.self) { _ = xmlParseChunk(context, $0.baseAddress, Int32($0.count), 0) }
            offset = end
        }
    }

    private func takeReady() -> [ImageReference] {
        defer { ready = [] }
        return ready
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> FeedStreamParser? {
        context.map { Unmanaged<FeedStreamParser>.fromOpaque($0).takeUnretainedValue() }
    }

    private static func textBytes(_ node: FeedNode) -> Int {
        node.text.utf8.count + node.children.reduce(0) { $0 + textBytes($1) }
    }

    private func stop(_ message: String) {
        if failure == nil { failure = message }
        if let context { xmlStopParser(context) }
    }

    private func noteEntity(_ name: UnsafePointer<xmlChar>?) {
        guard entities.count < 100 else { return }
        entities.append(name.map { String(cString: $0) } ?? "?")
    }

    private func noteError(_ error: xmlErrorPtr?) {
        guard let error = error?.pointee, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        // A reference to an entity whose declaration was dropped is the entity warning's business.
        if !entities.isEmpty, error.code == Int32(XML_ERR_UNDECLARED_ENTITY.rawValue) { return }
        errorCount += 1
        guard firstError == nil else { return }
        let text = error.message.map { String(cString: $0).collapsingWhitespace } ?? "error \(error.code)"
        firstError = error.line > 0 ? "line \(error.line): \(text)" : text
    }

    // MARK: SAX events

    private func open(
        _ localName: UnsafePointer<xmlChar>?, _ prefix: UnsafePointer<xmlChar>?, _ uri: UnsafePointer<xmlChar>?,
        _ count: Int32, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        depth += 1
        let name = localName.map { names.string($0) } ?? ""
        var namespace: String?
        var lists = FeedNamespaces.none
        if let uri {
            let known = names.namespace(uri)
            namespace = known.uri
            lists = known.lists
        } else if let prefix {
            // An undeclared prefix (`media:content` with no xmlns:media): read it as feed readers do.
            namespace = FeedScanner.wellKnownPrefixes[String(cString: prefix)]
            lists = FeedNamespaces(of: namespace)
        }
        var values: [(name: String, value: String)] = []
        var xmlBase: String?
        if let attributes, count > 0 {
            values.reserveCapacity(Int(count))
            // libxml2 passes five pointers per attribute: local name, prefix, URI, value start, value end.
            for index in 0..<Int(count) {
                let base = index * 5
                guard let attributeName = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4]
                else { continue }
                let value = String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
                let key = names.string(attributeName)
                if key == "base", let attributeURI = attributes[base + 2],
                    names.string(attributeURI) == "http://www.w3.org/XML/1998/namespace"
                {
                    xmlBase = value
                } else if let same = values.firstIndex(where: { $0.name == key }) {
                    values[same].value = value
                } else {
                    values.append((key, value))
                }
            }
        }
        if let xmlBase {
            let outer = bases.last?.url ?? documentURL
            bases.append((depth, CanonicalURL(xmlBase.trimmingSpaces, relativeTo: outer) ?? outer))
        }
        if depth == 1 {
            recognizeRoot(name, namespace)
            return
        }
        if stack.isEmpty {
            guard isItem(name, lists) else { return }
            itemDepth = depth
        }
        nodesInItem += 1
        guard nodesInItem <= Self.maxNodesPerItem else { return }
        stack.append(
            FeedNode(name: name, namespace: namespace, lists: lists, attributes: values, base: bases.last?.url ?? documentURL))
    }

    private func recognizeRoot(_ name: String, _ namespace: String?) {
        switch (name.lowercased(), namespace) {
        case ("rss", _), ("rdf", _): kind = .rss
        case ("feed", nil):
            kind = .atom
            bareAtom = true
        case ("feed", let namespace) where FeedScanner.atomNamespaces.contains(namespace): kind = .atom
        case ("urlset", let namespace) where FeedScanner.sitemapNamespaces.contains(namespace),
            ("sitemapindex", let namespace) where FeedScanner.sitemapNamespaces.contains(namespace):
            kind = .sitemap
        default: stop("root element <\(name)> is not RSS, Atom or a sitemap")
        }
    }

    private func append(_ text: UnsafePointer<xmlChar>?, _ length: Int32) {
        guard let text, let node = stack.last, node.text.utf8.count < Self.maxTextPerElement else { return }
        node.text += String(decoding: UnsafeBufferPointer(start: text, count: Int(length)), as: UTF8.self)
    }

    private func close() {
        defer {
            if let last = bases.last, last.depth == depth { bases.removeLast() }
            depth -= 1
        }
        // Only elements that were kept are popped (an oversized item skips the rest).
        guard !stack.isEmpty, depth == itemDepth + stack.count - 1 else { return }
        let node = stack.removeLast()
        if let parent = stack.last {
            parent.children.append(node)
            return
        }
        finishItem(node)
    }

    private func finishItem(_ node: FeedNode) {
        nodesInItem = 0
        switch kind {
        case .rss, .atom:
            ready += FeedItemReader(item: node, isAtom: kind == .atom).references(numberingFrom: &nextPhoto)
        case .sitemap where node.name == "sitemap":
            if let location = node.child("loc", in: .sitemap)?.text.nonEmpty {
                sitemaps.append(location)
            }
        case .sitemap: ready += FeedScanner.sitemapURL(node, numberingFrom: &nextPhoto)
        case nil: break
        }
    }

    private func isItem(_ name: String, _ lists: FeedNamespaces) -> Bool {
        switch kind {
        case .rss: name == "item"
        case .atom: name == "entry" && (bareAtom || lists.contains(.atom))
        case .sitemap: (name == "url" || name == "sitemap") && lists.contains(.sitemap)
        case nil: false
        }
    }
}
