import CLibXML

/// An element of the item being parsed, as plain Swift (attributes, text, children).
struct FeedNode {
    var name: String
    var namespace: String?
    var attributes: [String: String]
    var text = ""
    var children: [FeedNode] = []

    func attribute(_ name: String) -> String? { attributes[name] }
    var elementChildren: [FeedNode] { children }
    var namespaceURI: String? { namespace }
}

/// Parses RSS, Atom and sitemaps incrementally with libxml2's SAX2 push parser: bytes go in as
/// they arrive and each item comes out when it closes, so a feed of any length is read with
/// memory bounded by one item, and its keys can be fetched while the rest is still arriving.
///
/// Network, DTD loading and entity substitution are off; a document that declares an entity
/// is stopped at the declaration.
final class FeedStreamParser {
    /// Text kept per element (a description longer than this is cut).
    static let maxTextPerElement = 64 * 1024
    /// Elements kept per item (an item larger than this keeps its first ones).
    static let maxNodesPerItem = 2_000

    private(set) var kind: FeedScanner.Kind?
    private(set) var sitemaps: [String] = []
    private var ready: [ImageReference] = []
    private var failure: String?
    private var depth = 0
    /// The open elements of the current item, outermost first; empty outside items.
    private var stack: [FeedNode] = []
    /// The depth of the current item's element.
    private var itemDepth = 0
    private var nodesInItem = 0
    private var context: xmlParserCtxtPtr?
    private let url: String

    /// Bytes the parser holds for the item under way (a bound, for tests).
    var retainedTextBytes: Int { stack.reduce(0) { $0 + Self.textBytes($1) } }

    init(url: String) {
        self.url = url
    }

    deinit {
        if let context {
            xmlFreeDoc(context.pointee.myDoc)
            xmlFreeParserCtxt(context)
        }
    }

    /// Feeds the next bytes; returns the items completed by them.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(MarkupError) -> [ImageReference] {
        if context == nil {
            try start(with: bytes)
        } else if !bytes.isEmpty {
            let code = bytes.withMemoryRebound(to: CChar.self) { chars in
                xmlParseChunk(context, chars.baseAddress, Int32(clamping: chars.count), 0)
            }
            try check(code)
        }
        return takeReady()
    }

    /// Ends the document; returns the last items. Throws when it was not a complete feed.
    func finish() throws(MarkupError) -> [ImageReference] {
        guard let context else { throw MarkupError(message: "empty document") }
        try check(xmlParseChunk(context, nil, 0, 1))
        guard kind != nil else { throw MarkupError(message: "no root element") }
        return takeReady()
    }

    private func start(with bytes: UnsafeRawBufferPointer) throws(MarkupError) {
        LibXML.ensureInitialized()
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        handler.startElementNs = { context, localName, _, uri, _, _, count, _, attributes in
            FeedStreamParser.from(context)?.open(localName, uri, count, attributes)
        }
        handler.endElementNs = { context, _, _, _ in FeedStreamParser.from(context)?.close() }
        handler.characters = { context, text, length in FeedStreamParser.from(context)?.append(text, length) }
        handler.cdataBlock = { context, text, length in FeedStreamParser.from(context)?.append(text, length) }
        handler.entityDecl = { context, _, _, _, _, _ in FeedStreamParser.from(context)?.refuseEntities() }
        let me = Unmanaged.passUnretained(self).toOpaque()
        // The first chunk goes to the constructor so libxml2 can detect the encoding from it.
        let created = bytes.withMemoryRebound(to: CChar.self) { chars in
            xmlCreatePushParserCtxt(&handler, me, chars.baseAddress, Int32(clamping: min(chars.count, 4)), url)
        }
        guard let created else { throw MarkupError(message: "out of memory") }
        context = created
        xmlCtxtUseOptions(created, LibXML.xmlOptions)
        if bytes.count > 4 {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[4...])
            let code = rest.withMemoryRebound(to: CChar.self) { chars in
                xmlParseChunk(created, chars.baseAddress, Int32(clamping: chars.count), 0)
            }
            try check(code)
        }
    }

    private func check(_ code: Int32) throws(MarkupError) {
        if let failure { throw MarkupError(message: failure) }
        guard code != 0, let context else { return }
        let error = context.pointee.lastError
        let text = error.message.map { String(cString: $0).collapsingWhitespace } ?? "not well-formed XML"
        throw MarkupError(message: error.line > 0 ? "line \(error.line): \(text)" : text)
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

    private func refuseEntities() {
        stop("the document declares XML entities; refused (entity expansion is unsafe)")
    }

    // MARK: SAX events

    private func open(
        _ localName: UnsafePointer<xmlChar>?, _ uri: UnsafePointer<xmlChar>?, _ count: Int32,
        _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        depth += 1
        let name = localName.map { String(cString: $0) } ?? ""
        let namespace = uri.map { String(cString: $0) }
        if depth == 1 {
            switch (name.lowercased(), namespace) {
            case ("rss", _), ("rdf", _): kind = .rss
            case ("feed", FeedScanner.atom): kind = .atom
            case ("urlset", FeedScanner.sitemap), ("sitemapindex", FeedScanner.sitemap): kind = .sitemap
            default: stop("root element <\(name)> is not RSS, Atom or a sitemap")
            }
            return
        }
        if stack.isEmpty {
            guard isItem(name, namespace) else { return }
            itemDepth = depth
        }
        nodesInItem += 1
        guard nodesInItem <= Self.maxNodesPerItem else { return }
        var values: [String: String] = [:]
        if let attributes {
            // libxml2 passes five pointers per attribute: local name, prefix, URI, value start, value end.
            for index in 0..<Int(count) {
                let base = index * 5
                guard let attributeName = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4]
                else { continue }
                let value = String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
                values[String(cString: attributeName)] = value
            }
        }
        stack.append(FeedNode(name: name, namespace: namespace, attributes: values))
    }

    private func append(_ text: UnsafePointer<xmlChar>?, _ length: Int32) {
        guard let text, !stack.isEmpty, stack[stack.count - 1].text.utf8.count < Self.maxTextPerElement else { return }
        stack[stack.count - 1].text += String(decoding: UnsafeBufferPointer(start: text, count: Int(length)), as: UTF8.self)
    }

    private func close() {
        defer { depth -= 1 }
        // Only elements that were kept are popped (an oversized item skips the rest).
        guard !stack.isEmpty, depth == itemDepth + stack.count - 1 else { return }
        let node = stack.removeLast()
        if let parent = stack.indices.last {
            stack[parent].children.append(node)
            return
        }
        nodesInItem = 0
        switch kind {
        case .rss: ready += FeedScanner.rssItem(node)
        case .atom: ready += FeedScanner.atomEntry(node)
        case .sitemap where node.name == "sitemap":
            if let location = node.children.first(where: { $0.name == "loc" })?.text.nonEmpty { sitemaps.append(location) }
        case .sitemap: ready += FeedScanner.sitemapURL(node)
        case nil: break
        }
    }

    private func isItem(_ name: String, _ namespace: String?) -> Bool {
        switch kind {
        case .rss: name == "item"
        case .atom: name == "entry" && namespace == FeedScanner.atom
        case .sitemap: (name == "url" || name == "sitemap") && namespace == FeedScanner.sitemap
        case nil: false
        }
    }
}
