import CLibXML
import MirrorCore

/// Parses RSS, Atom and sitemaps incrementally with libxml2's SAX2 push parser: bytes go in as
/// they arrive and each item comes out when it closes, so a feed of any length is read with
/// memory bounded by one item, and its keys can be fetched while the rest is still arriving.
///
/// Network, DTD loading and entity substitution are off. A document that declares entities is
/// read with them left unexpanded (the declarations are dropped, so a reference expands to
/// nothing and nothing is fetched) and a warning; a document that is not well-formed is read
/// as far as libxml2's recover mode goes, with a warning. Only a document that is not a feed at
/// all (another root element, no root element) throws.
package final class FeedStreamParser {
    /// Text kept per element (a description longer than this is cut).
    static let maxTextPerElement = 64 * 1024
    /// Elements kept per item (an item larger than this keeps its first ones).
    static let maxNodesPerItem = 2_000

    /// RSS, Atom or a sitemap, once the root element is read.
    package var kind: FeedScanner.Kind? { events.kind }
    /// For a sitemap index: the sitemaps it lists so far.
    package var sitemaps: [String] { events.sitemaps }
    /// What was odd about the document, one line each, naming it (entity declarations,
    /// recovered ill-formedness, an unknown charset). Filled in as parsing goes; complete after
    /// `finish()`.
    package var warnings: [String] {
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

    /// What the SAX events build: one stored struct, so that an event is one access to the
    /// parser (each access to a class's stored property is checked for exclusivity at run time,
    /// and a dozen per element add up over a feed).
    ///
    /// Safety (`@exclusivity(unchecked)`): the one access per event is not checked either. Only
    /// libxml2's callbacks reach `events`, one at a time on the thread that pushes a chunk, and
    /// nothing an event does calls back into this parser (the HTML a feed item carries is read
    /// by another libxml2 parser), so no access to it can overlap another.
    @exclusivity(unchecked) private var events: Events
    private var failure: MarkupError?
    private var entities: [String] = []
    private var firstError: String?
    private var errorCount = 0
    private var otherWarnings: [String] = []
    /// Bytes held until there are enough to choose the encoding.
    private var pending: [UInt8] = []
    private var context: xmlParserCtxtPtr?
    private let url: String
    private let charset: String?

    /// Bytes the parser holds for the item under way (a bound, for tests).
    var retainedTextBytes: Int { events.retainedTextBytes }

    private var noun: String { kind == .sitemap ? "the sitemap" : "the feed" }

    /// A parser for the document fetched from `url`; `charset` is the `charset` parameter of
    /// its HTTP `Content-Type` (default nil: the BOM, then the XML declaration, then UTF-8).
    package init(url: String, charset: String? = nil) {
        self.url = url
        self.events = Events(documentURL: CanonicalURL(url))
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
    package func feed(_ bytes: UnsafeRawBufferPointer) throws(MarkupError) -> [ImageReference] {
        if context == nil {
            pending += bytes
            guard pending.count >= FeedEncoding.sniffLength else { return [] }
            start()
            pending.withUnsafeBytes { push($0) }
            pending = []
        } else {
            push(bytes)
        }
        if let failure { throw failure }
        return events.takeReady()
    }

    /// Ends the document; returns the last items (an item left open by a truncated document
    /// included). Throws when the document was empty or not a feed.
    package func finish() throws(MarkupError) -> [ImageReference] {
        if context == nil {
            guard !pending.isEmpty else { throw MarkupError(.notADocument, "empty document") }
            start()
            pending.withUnsafeBytes { push($0) }
            pending = []
        }
        if failure == nil, let context { xmlParseChunk(context, nil, 0, 1) }
        if let failure { throw failure }
        guard kind != nil else {
            throw MarkupError(.notADocument, firstError.map { "not XML (\($0))" } ?? "no root element")
        }
        events.finishOpenItem()
        return events.takeReady()
    }

    private func start() {
        LibXML.ensureInitialized()
        var handler = xmlSAXHandler()
        handler.initialized = XML_SAX2_MAGIC
        handler.startElementNs = { context, localName, prefix, uri, _, _, count, _, attributes in
            guard let parser = FeedStreamParser.from(context) else { return }
            if let refusal = parser.events.open(localName, prefix, uri, count, attributes) {
                parser.stop(MarkupError(.notAFeed, refusal))
            }
        }
        handler.endElementNs = { context, _, _, _ in FeedStreamParser.from(context)?.events.close() }
        handler.characters = { context, text, length in FeedStreamParser.from(context)?.events.append(text, length) }
        handler.cdataBlock = { context, text, length in FeedStreamParser.from(context)?.events.append(text, length) }
        // Declarations are noted and dropped: with no entity stored, no reference expands.
        handler.entityDecl = { context, name, _, _, _, _ in FeedStreamParser.from(context)?.noteEntity(name) }
        handler.serror = { context, error in FeedStreamParser.from(context)?.noteError(error) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        // No first chunk: libxml2 detects the encoding from the first bytes pushed, unless one is forced.
        guard let created = xmlCreatePushParserCtxt(&handler, me, nil, 0, url) else {
            failure = MarkupError(.resources, "out of memory")
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

    private static func from(_ context: UnsafeMutableRawPointer?) -> FeedStreamParser? {
        context.map { Unmanaged<FeedStreamParser>.fromOpaque($0).takeUnretainedValue() }
    }

    private func stop(_ error: MarkupError) {
        if failure == nil { failure = error }
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
}
