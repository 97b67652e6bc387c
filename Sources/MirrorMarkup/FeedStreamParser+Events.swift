import CLibXML
import MirrorCore

extension FeedStreamParser {
    /// The parser's SAX events and what they build: the item under way as a tree of `FeedNode`s,
    /// the `xml:base` in effect, and the references of the items read so far.
    struct Events {
        private(set) var kind: FeedScanner.Kind?
        private(set) var sitemaps: [String] = []
        private var ready: [ImageReference] = []
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
        /// Strings of the names and namespace URIs seen so far.
        private var names = XMLNameCache()
        /// Resolutions the item being read made (emptied after each item).
        private let resolutions = FeedItemReader.Resolutions()
        private let documentURL: CanonicalURL?

        init(documentURL: CanonicalURL?) {
            self.documentURL = documentURL
        }

        /// Opens an element; returns why the document is refused when its root is not a feed.
        mutating func open(
            _ localName: UnsafePointer<xmlChar>?, _ prefix: UnsafePointer<xmlChar>?, _ uri: UnsafePointer<xmlChar>?,
            _ count: Int32, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
        ) -> String? {
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
                    } else if let same = values.firstIndex(where: { FeedNode.same($0.name, key) }) {
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
            if depth == 1 { return recognizeRoot(name, namespace) }
            if stack.isEmpty {
                guard isItem(name, lists) else { return nil }
                itemDepth = depth
            }
            nodesInItem += 1
            guard nodesInItem <= FeedStreamParser.maxNodesPerItem else { return nil }
            stack.append(
                FeedNode(name: name, namespace: namespace, lists: lists, attributes: values, base: bases.last?.url ?? documentURL)
            )
            return nil
        }

        private mutating func recognizeRoot(_ name: String, _ namespace: String?) -> String? {
            switch (name.lowercased(), namespace) {
            case ("rss", _), ("rdf", _): kind = .rss
            case ("feed", nil):
                kind = .atom
                bareAtom = true
            case ("feed", let namespace) where FeedScanner.atomNamespaces.contains(namespace): kind = .atom
            case ("urlset", let namespace) where FeedScanner.sitemapNamespaces.contains(namespace),
                ("sitemapindex", let namespace) where FeedScanner.sitemapNamespaces.contains(namespace):
                kind = .sitemap
            default: return "root element <\(name)> is not RSS, Atom or a sitemap"
            }
            return nil
        }

        mutating func append(_ text: UnsafePointer<xmlChar>?, _ length: Int32) {
            guard let text, let node = stack.last, node.text.utf8.count < FeedStreamParser.maxTextPerElement else { return }
            let piece = String(decoding: UnsafeBufferPointer(start: text, count: Int(length)), as: UTF8.self)
            // Most elements get their text in one piece: taken as it is, not copied into an empty string.
            if node.text.isEmpty { node.text = piece } else { node.text += piece }
        }

        mutating func close() {
            defer {
                if let last = bases.last, last.depth == depth { bases.removeLast() }
                depth -= 1
            }
            // Only elements that were kept are popped (an oversized item skips the rest).
            guard !stack.isEmpty, depth == itemDepth + stack.count - 1 else { return }
            let node = stack.removeLast()
            if let parent = stack.last {
                // Room for an item's usual children at once, not 1, 2, 4, 8.
                if parent.children.capacity == 0 { parent.children.reserveCapacity(8) }
                parent.children.append(node)
                return
            }
            finishItem(node)
        }

        private mutating func finishItem(_ node: FeedNode) {
            nodesInItem = 0
            switch kind {
            case .rss, .atom:
                ready += FeedItemReader(item: node, isAtom: kind == .atom, resolutions: resolutions).references(
                    numberingFrom: &nextPhoto)
                resolutions.reset()
            case .sitemap where node.name == "sitemap":
                if let location = node.child("loc", in: .sitemap)?.text.nonEmptyURL {
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

        /// Ends the item a truncated document left open, reading what it holds.
        mutating func finishOpenItem() {
            while let node = stack.popLast() {
                if let parent = stack.last {
                    parent.children.append(node)
                } else {
                    finishItem(node)
                }
            }
        }

        /// The references of the items completed since the last call.
        mutating func takeReady() -> [ImageReference] {
            defer { ready = [] }
            return ready
        }

        /// Bytes held for the item under way.
        var retainedTextBytes: Int { stack.reduce(0) { $0 + Self.textBytes($1) } }

        private static func textBytes(_ node: FeedNode) -> Int {
            node.text.utf8.count + node.children.reduce(0) { $0 + textBytes($1) }
        }
    }
}
