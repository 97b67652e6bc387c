import CLibXML
import MirrorCore

/// The markup readers' stage of `StageError`.
package enum MarkupStage: ErrorStage {}

/// Why a document could not be parsed: what kind of failure (`code`) and one line saying it
/// (libxml2's own message when it gave one).
package typealias MarkupError = StageError<MarkupStage>

extension StageError.Code where Stage == MarkupStage {
    /// libxml2 could not allocate its parser.
    package static var resources: Self { Self("resources") }
    /// The bytes are not a document of the kind read: empty, no root element, not XML, not
    /// parseable as HTML.
    package static var notADocument: Self { Self("not-a-document") }
    /// A well-formed document whose root is not RSS, Atom or a sitemap, where a feed was
    /// expected.
    package static var notAFeed: Self { Self("not-a-feed") }
}

/// A parsed libxml2 HTML tree, for the small HTML a feed item's description carries (pages are
/// read without a tree: `PageStream`; feeds are streamed: `FeedStreamParser`). Owns the C document and frees it in `deinit`; nodes
/// handed out by `walk` never outlive the call, so no node can outlive its document.
final class MarkupDocument {
    private let document: xmlDocPtr

    private init(document: xmlDocPtr) {
        self.document = document
    }

    deinit {
        xmlFreeDoc(document)
    }

    /// Parses HTML with the recovering parser. `encoding` is the charset from the HTTP header;
    /// without it libxml2 reads `<meta charset>` / `http-equiv` itself, then falls back to UTF-8
    /// or Latin-1 detection. Numeric character references libxml2 would cut a value at (`&#xB;`)
    /// are first rewritten as the HTML Standard reads them (`CharacterReferences`).
    static func html(_ bytes: [UInt8], url: String, encoding: String?) throws(MarkupError) -> MarkupDocument {
        LibXML.ensureInitialized()
        guard let context = htmlNewParserCtxt() else { throw MarkupError(.resources, "out of memory") }
        defer { htmlFreeParserCtxt(context) }
        let knownEncoding = encoding.flatMap { name in xmlFindCharEncodingHandler(name) != nil ? name : nil }
        var input = bytes
        if CharacterReferences.isASCIICompatible(bytes, encoding: knownEncoding),
            let rewritten = CharacterReferences.rewritten(bytes)
        {
            input = rewritten
        }
        // libxml2 reads a zero-length buffer as an error; an empty page is an empty document.
        if input.isEmpty { input = Array("<html></html>".utf8) }
        let document = input.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                htmlCtxtReadMemory(
                    context, chars.baseAddress, Int32(clamping: chars.count), url, knownEncoding, LibXML.htmlOptions)
            }
        }
        guard let document else { throw MarkupError(.notADocument, lastError(context) ?? "not parseable as HTML") }
        return MarkupDocument(document: document)
    }

    private static func lastError(_ context: xmlParserCtxtPtr) -> String? {
        guard let message = context.pointee.lastError.message else { return nil }
        let text = String(cString: message).collapsingWhitespace
        let line = context.pointee.lastError.line
        return text.isEmpty ? nil : (line > 0 ? "line \(line): \(text)" : text)
    }

    /// The root element, if the document has one.
    var root: MarkupNode? {
        guard let root = xmlDocGetRootElement(document) else { return nil }
        return MarkupNode(pointer: root)
    }

    /// Visits every element in document order. `visit` returns false to skip the element's subtree.
    func walk(_ visit: (MarkupNode) -> Bool) {
        guard let rootPointer = xmlDocGetRootElement(document) else { return }
        var current: MarkupNode? = MarkupNode(pointer: rootPointer)
        while let node = current {
            var descend = true
            if node.isElement { descend = visit(node) }
            current = node.following(within: rootPointer, descend: descend)
        }
    }
}
