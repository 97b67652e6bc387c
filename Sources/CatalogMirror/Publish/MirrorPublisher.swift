import Crypto
import Foundation
import Synchronization

/// Writes the site: assets, `index.html` and `page-N.html` rendered from the template, and
/// `manifest.json` — each file atomically, pages before the manifest, and only after every image
/// they reference is in `images/`. Leftover pages of a longer earlier run are removed last.
struct MirrorPublisher {
    let layout: MirrorLayout
    let template: SiteTemplate
    /// Images per generated page.
    let itemsPerPage: Int

    static func pageFileName(_ number: Int) -> String { number == 1 ? "index.html" : "page-\(number).html" }

    /// How many pages a publish rendered, and how many it left as they were.
    struct Outcome: Equatable {
        var rendered = 0
        var skipped = 0
    }

    @discardableResult
    func publish(_ manifest: Manifest) throws(PublishError) -> Outcome {
        for (path, bytes) in template.assets.sorted(by: { $0.key < $1.key }) {
            guard let destination = layout.file(atRelativePath: path) else { continue }
            do {
                try FileManager.default.createDirectory(
                    at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
            } catch {
                throw PublishError("cannot create \(destination.deletingLastPathComponent().path): \(error.localizedDescription)")
            }
            try AtomicFile.writeIfChanged(bytes, to: destination, temporaryDirectory: layout.temporary)
        }
        // Last page first, so a page is never written before the pages it links forward to;
        // a few pages at a time (one per core), so the site is never all in memory. A page
        // whose inputs and file are as last written is left alone (PageFingerprints).
        let pages = Pages(manifest: manifest, itemsPerPage: itemsPerPage)
        let fingerprintsURL = layout.state.appendingPathComponent("pages.json", isDirectory: false)
        let canSkip = PageFingerprints.canSkip(templateSource: template.pageSource)
        let previous = canSkip ? PageFingerprints.read(from: fingerprintsURL) : nil
        var next = PageFingerprints()
        var outcome = Outcome()
        let group = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var end = pages.count
        while end > 0 {
            let start = max(0, end - group)
            var stale: [(index: Int, input: String)] = []
            for index in start..<end {
                let name = Self.pageFileName(index + 1)
                let input = PageFingerprints.input(of: index, in: pages, templateSource: template.pageSource)
                if let entry = previous?.pages[name], entry.input == input,
                    FileSystem.sha256(atPath: layout.root.path + "/" + name) == entry.output
                {
                    next.pages[name] = entry
                    outcome.skipped += 1
                } else {
                    stale.append((index, input))
                }
            }
            let rendered = render(pages, stale.map(\.index))
            for (page, html) in zip(stale, rendered).reversed() {
                let name = Self.pageFileName(page.index + 1)
                let bytes = Array(html.utf8)
                try AtomicFile.writeIfChanged(
                    bytes, to: layout.root.appendingPathComponent(name), temporaryDirectory: layout.temporary)
                next.pages[name] = .init(input: page.input, output: SHA256.hash(data: bytes).hexString)
                outcome.rendered += 1
            }
            end = start
        }
        if canSkip, next != previous, let data = try? JSONCoding.encode(next) {
            try AtomicFile.write(data, to: fingerprintsURL, temporaryDirectory: layout.temporary)
        }
        try AtomicFile.write(to: layout.manifest, temporaryDirectory: layout.temporary) { writer in
            try manifest.write { try writer.write($0) }
        }
        removeStalePages(keeping: pages.count)
        return outcome
    }

    /// The manifest's items cut into pages.
    struct Pages {
        let manifest: Manifest
        let chunks: [ArraySlice<Manifest.Item>]
        let siteTitle: String
        var count: Int { chunks.count }

        init(manifest: Manifest, itemsPerPage: Int) {
            let perPage = max(1, itemsPerPage)
            self.manifest = manifest
            chunks = stride(from: 0, to: max(manifest.items.count, 1), by: perPage).map {
                manifest.items[min($0, manifest.items.count)..<min($0 + perPage, manifest.items.count)]
            }
            siteTitle = MirrorPublisher.siteTitle(for: manifest.source)
        }
    }

    /// The HTML of every page, first page first.
    func render(_ manifest: Manifest) -> [String] {
        let pages = Pages(manifest: manifest, itemsPerPage: itemsPerPage)
        return render(pages, Array(0..<pages.count))
    }

    /// The HTML of pages `indices` (0-based), rendered on every core at once: pages are
    /// independent, and at 10,000 images rendering was the longest step of a re-sync.
    func render(_ pages: Pages, _ indices: [Int]) -> [String] {
        let rendered = Mutex([String](repeating: "", count: indices.count))
        DispatchQueue.concurrentPerform(iterations: indices.count) { offset in
            let index = indices[offset]
            let html = renderPage(
                index: index, items: Array(pages.chunks[index]), pageCount: pages.count, siteTitle: pages.siteTitle,
                manifest: pages.manifest)
            rendered.withLock { $0[offset] = html }
        }
        return rendered.withLock { $0 }
    }

    private func renderPage(index: Int, items: [Manifest.Item], pageCount: Int, siteTitle: String, manifest: Manifest)
        -> String
    {
        let number = index + 1
        var context: [String: Any] = [
            "siteTitle": siteTitle,
            "source": manifest.source,
            "generatedAt": Timestamp.string(manifest.generatedAt),
            "itemCount": manifest.items.count,
            "pageNumber": number,
            "pageCount": pageCount,
            "hasPagination": pageCount > 1,
            "items": items.map(Self.itemContext),
            "pages": (1...pageCount).map { page -> [String: Any] in
                ["number": page, "href": Self.pageFileName(page), "current": page == number]
            },
        ]
        if number > 1 { context["previous"] = ["href": Self.pageFileName(number - 1)] }
        if number < pageCount { context["next"] = ["href": Self.pageFileName(number + 1)] }
        return template.page.render(context)
    }

    private static func itemContext(_ item: Manifest.Item) -> [String: Any] {
        let fallback = PercentEncoding.decode(String(item.key.split(separator: "/").last ?? "image"))
        let title = item.title ?? fallback
        let metadata = (item.metadata ?? [:]).sorted { $0.key < $1.key }.map { ["name": $0.key, "value": $0.value] }
        return [
            "path": item.path,
            "title": title,
            "alt": title,
            "key": item.key,
            "contentType": item.contentType,
            "size": Self.formatSize(item.bytes),
            "bytes": item.bytes,
            "hasMetadata": !metadata.isEmpty,
            "metadata": metadata,
        ]
    }

    static func siteTitle(for source: String) -> String {
        guard let url = CanonicalURL(source) else { return "Gallery mirror" }
        let path = url.decodedPath == "/" ? "" : url.decodedPath
        return "Mirror of " + url.host + path
    }

    /// "999 B", "1.1 KB", "38 KB", "2.0 MB": decimal units, one decimal below 10, rounded half
    /// up on the exact byte count (integer arithmetic: no `String(format:)` per item).
    static func formatSize(_ bytes: Int64) -> String {
        if bytes < 1000 { return "\(bytes) B" }
        let units = ["KB", "MB", "GB", "TB", "PB", "EB"]
        var scale: Int64 = 1000
        var unit = 0
        while bytes / scale >= 1000, unit < units.count - 1 {
            scale *= 1000
            unit += 1
        }
        let half = scale / 2
        if bytes / scale < 10 {
            // Tenths of the unit: (bytes * 10 + scale / 2) / scale, without overflowing.
            let tenths = (bytes / scale) * 10 + ((bytes % scale) * 10 + half) / scale
            return "\(tenths / 10).\(tenths % 10) \(units[unit])"
        }
        let whole = bytes / scale + (bytes % scale >= half ? 1 : 0)
        return "\(whole) \(units[unit])"
    }

    private func removeStalePages(keeping count: Int) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: layout.root.path) else { return }
        for name in names where name.hasPrefix("page-") && name.hasSuffix(".html") {
            guard let number = Int(name.dropFirst(5).dropLast(5)), number > count, number > 1 else { continue }
            try? FileManager.default.removeItem(at: layout.root.appendingPathComponent(name))
        }
    }
}
