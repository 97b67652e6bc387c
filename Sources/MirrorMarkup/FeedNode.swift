import Foundation
import MirrorCore

/// An element of the feed item being parsed, as plain Swift: attributes, text, children, and
/// the base URL in effect for it (`xml:base` at every level, resolved outward to the document).
///
/// A class: a reader looks at each element of an item several times (photos, enclosures, HTML,
/// title, metadata), and a struct of six references would be copied, with its retains, at
/// every look.
final class FeedNode {
    let name: String
    let namespace: String?
    /// The namespace lists `namespace` is in.
    let lists: FeedNamespaces
    /// Attributes by local name, in document order, each name once (a later attribute with the
    /// same local name replaces the value). The namespace of an attribute is not kept, except
    /// `xml:base`, which is folded into `base`. An array: elements have a handful of attributes.
    let attributes: [(name: String, value: String)]
    /// The base its relative URLs resolve against: the innermost `xml:base`, itself resolved
    /// against its parent's, the document's URL outermost. nil when the document URL is unusable.
    let base: CanonicalURL?
    // Safety (`@exclusivity(unchecked)` on `text` and `children`): the stream parser's events
    // change them one statement at a time (an append to the text under way, a child added at
    // its close), and the readers only read them once the item is complete, on the same thread:
    // no access to either ever overlaps another that writes it, so the run-time check (a
    // thread-local access set updated at each of the millions of reads in a long feed) finds
    // nothing and is left out.

    /// The element's own text (CDATA included); the text of children is in the children.
    @exclusivity(unchecked) var text = ""
    @exclusivity(unchecked) var children: [FeedNode] = []

    init(
        name: String, namespace: String?, lists: FeedNamespaces, attributes: [(name: String, value: String)],
        base: CanonicalURL?
    ) {
        self.name = name
        self.namespace = namespace
        self.lists = lists
        self.attributes = attributes
        self.base = base
    }

    func attribute(_ name: String) -> String? {
        for attribute in attributes where Self.same(attribute.name, name) { return attribute.value }
        return nil
    }

    /// `left == right`, with the lengths compared first: names of different lengths are most of
    /// the comparisons a reader makes, and `==` on two different strings is a call into the
    /// standard library where the lengths are two loads.
    @inline(__always)
    static func same(_ left: String, _ right: String) -> Bool {
        left.utf8.count == right.utf8.count && left == right
    }

    /// True when the element is `name` in a namespace of `lists` (one list, in practice).
    func isElement(_ name: String, in lists: FeedNamespaces) -> Bool {
        // The namespace first: one integer test rules out most elements before a string compare.
        self.lists.contains(lists) && Self.same(self.name, name)
    }

    /// The first child named `name` in a namespace of `lists`.
    func child(_ name: String, in lists: FeedNamespaces) -> FeedNode? {
        for child in children where child.isElement(name, in: lists) { return child }
        return nil
    }

    /// The children named `name` in a namespace of `lists`.
    func children(_ name: String, in lists: FeedNamespaces) -> [FeedNode] {
        children.filter { $0.isElement(name, in: lists) }
    }

    /// `raw` resolved against this element's base, as an absolute URL string; the string as
    /// written (as a URL parser reads it: `nonEmptyURL`) when it cannot be resolved (no usable
    /// base, or not a URL at all).
    func resolve(_ raw: String) -> String {
        let trimmed = raw.nonEmptyURL ?? ""
        guard let base, let url = CanonicalURL(trimmed, relativeTo: base) else { return trimmed }
        return url.string
    }

    /// `reference` with its URL resolved against this element's base (and the key made on the
    /// way kept); trimmed as a URL parser trims it (`nonEmptyURL`) when it cannot be resolved.
    func resolved(_ reference: ImageReference) -> ImageReference {
        var reference = reference
        let trimmed = reference.url.nonEmptyURL ?? ""
        if let base, let key = CanonicalURL(trimmed, relativeTo: base) {
            reference.resolve(to: key)
        } else if trimmed != reference.url {
            reference.url = trimmed
        }
        return reference
    }

    /// A number attribute (`width`, `fileSize`...), when it is a positive integer.
    func integer(_ name: String) -> Int? {
        guard let value = attribute(name).flatMap({ Int($0.trimmingSpaces) }), value > 0 else { return nil }
        return value
    }

    /// The element's text, with its children's when it has any (markup in a title).
    var fullText: String { children.isEmpty ? text : allText }

    /// The text of this element and every descendant, in element order.
    var allText: String {
        var parts: [String] = []
        collectText(into: &parts, depth: 0)
        return parts.joined(separator: " ")
    }

    private func collectText(into parts: inout [String], depth: Int) {
        if !text.isEmpty { parts.append(text) }
        guard depth < 64 else { return }
        for child in children { child.collectText(into: &parts, depth: depth + 1) }
    }

    /// The children written back as HTML (for inline XHTML content, read by the HTML reader).
    /// A child's own text comes before its children: the parser keeps no interleaving, which
    /// loses nothing the HTML reader looks at (elements and attributes).
    var childrenAsHTML: String {
        var html = ""
        for child in children { child.writeHTML(into: &html, depth: 0) }
        return html
    }

    private func writeHTML(into html: inout String, depth: Int) {
        guard depth < 64 else { return }
        html += "<" + name
        for (key, value) in attributes.sorted(by: { $0.name < $1.name }) {
            html += " \(key)=\"\(Self.escape(value, quote: true))\""
        }
        html += ">" + Self.escape(text, quote: false)
        for child in children { child.writeHTML(into: &html, depth: depth + 1) }
        html += "</\(name)>"
    }

    private static func escape(_ text: String, quote: Bool) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "\"") })
        else { return text }
        var result = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        if quote { result = result.replacingOccurrences(of: "\"", with: "&quot;") }
        return result
    }
}
