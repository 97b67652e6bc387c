import Crypto
import Foundation
import MirrorBlocking
import MirrorCatalog
import MirrorCore
import MirrorStore
import Synchronization

/// Writes the site: assets, `index.html` and `page-N.html` rendered from the template,
/// `feed.atom` (`AtomFeed`), and `manifest.json` — each file atomically, pages and feed before
/// the manifest, and only after every image they reference is in `images/`. Leftover pages of a
/// longer earlier run are removed last.
///
/// In two steps, so that nothing that needs disk space happens after the first file of a
/// publish becomes visible: `prepare` writes every changed file under a temporary name in
/// `tmp/` and flushes them, before the engine moves a single image; `commit` renames them into
/// place. A full disk, or any other failure of a write, leaves the mirror exactly as it was,
/// on a first run (no `images/`, no page) as on an update.
package struct MirrorPublisher: Sendable {
    let layout: MirrorLayout
    let template: SiteTemplate
    /// Images per generated page.
    let itemsPerPage: Int

    package init(layout: MirrorLayout, template: SiteTemplate, itemsPerPage: Int) {
        self.layout = layout
        self.template = template
        self.itemsPerPage = itemsPerPage
    }

    /// How many pages a publish rendered, and how many it left as they were.
    package struct Outcome: Equatable {
        var rendered = 0
        var skipped = 0
    }

    /// `manifest.json` written and flushed under a temporary name as blocking work of its own
    /// (`BlockingWork`), while the images and pages are published: `publish` puts it in place
    /// after them (Benchmarks/results/history.md says why it is written beside them).
    package final class ManifestWrite: Sendable {
        private let prepared: Task<Result<AtomicFile.Prepared, PublishError>, Never>

        init(_ manifest: Manifest, layout: MirrorLayout) {
            prepared = Task {
                do throws(PublishError) {
                    return .success(
                        try await BlockingWork.run { () throws(PublishError) -> AtomicFile.Prepared in
                            try AtomicFile.prepare(for: layout.manifest, temporaryDirectory: layout.temporary) { writer in
                                try manifest.write { try writer.write($0) }
                            }
                        })
                } catch {
                    return .failure(error)
                }
            }
        }

        /// Waits for the file: it, or why it could not be written.
        fileprivate func wait() async -> Result<AtomicFile.Prepared, PublishError> { await prepared.value }

        /// Waits for the file to be written and flushed; throws why it could not be (a full
        /// disk): asked before any image is published, so a manifest that cannot be written
        /// stops the run while the mirror is as it was.
        package func written() async throws(PublishError) {
            _ = try await wait().get()
        }

        /// Waits for the file and removes it: the publish failed before it could be put in place.
        package func discard() async {
            if case .success(let prepared) = await wait() { prepared.discard() }
        }
    }

    /// Starts writing `manifest.json` for `manifest` (see `ManifestWrite`).
    package func beginManifest(_ manifest: Manifest) -> ManifestWrite { ManifestWrite(manifest, layout: layout) }

    /// The files of a publish, written and flushed under temporary names, in the order they
    /// are put in place (`MirrorPublisher.prepare`).
    package struct PreparedSite: Sendable {
        /// Assets, then pages (last first, so a page never names a page not yet in place: the
        /// start page goes last), then `feed.atom`, the search index and the pages'
        /// fingerprints; each marked when it is a page.
        fileprivate var files: [(file: AtomicFile.Prepared, page: Bool)] = []
        /// How many pages were rendered, and how many left as they were.
        var outcome = Outcome()
        /// The file names of every page of the site, for removing pages it no longer has; nil
        /// when the site is not made here (served elsewhere: `prepare(_:served:)`), so pages on
        /// this disk are left as they are.
        fileprivate var pages: [String]? = []
        /// What names the site now on disk (`MirrorPublisher.mark(of:)`), or the one served
        /// elsewhere that made writing it needless (`prepare(_:served:)`); nil when the site
        /// cannot be named (a template rendered every time, or pages not all fingerprinted).
        package var mark: String?

        /// Removes the prepared files: the publish stopped before they were put in place.
        package func discard() {
            for (file, _) in files { file.discard() }
        }
    }

    /// Puts `site` in place (each file renamed over its destination, in order; the folders
    /// renamed into are flushed), then `manifestWrite` (begun for the same manifest), then
    /// removes the pages the site no longer has. Renames need no disk space: a run that came
    /// this far does not stop for a full disk. On a failure, what was not yet renamed is
    /// removed and the old manifest stays.
    ///
    /// The mirror's first publish puts the pages in place last, after the manifest: every page
    /// names `manifest.json`, `feed.atom` and the search index, which do not exist yet, while
    /// a later publish finds the earlier ones in place. Then too the start page is the last
    /// file renamed: whatever a reader reaches from it is there.
    @discardableResult
    package func commit(_ site: PreparedSite, manifestWrite: ManifestWrite) async throws(PublishError) -> Outcome {
        let firstPublish = !FileManager.default.fileExists(atPath: layout.manifest.path)
        if firstPublish {
            let rest = PreparedSite(
                files: site.files.filter { $0.page }, outcome: site.outcome, pages: site.pages, mark: site.mark)
            do throws(PublishError) {
                try await Self.rename(site.files.filter { !$0.page }.map(\.file))
            } catch {
                rest.discard()
                await manifestWrite.discard()
                throw error
            }
            do throws(PublishError) {
                try await manifestWrite.wait().get().commit()
            } catch {
                rest.discard()
                throw error
            }
            try await Self.rename(rest.files.map(\.file))
            if let pages = site.pages { removeStalePages(keeping: Set(pages)) }
            return site.outcome
        }
        do throws(PublishError) {
            try await Self.rename(site.files.map(\.file))
        } catch {
            await manifestWrite.discard()
            throw error
        }
        try await manifestWrite.wait().get().commit()
        if let pages = site.pages { removeStalePages(keeping: Set(pages)) }
        return site.outcome
    }

    /// Renames `files` over their destinations, in order, making each destination's folder
    /// first, and flushes the folders renamed into; on a failure, what was not renamed is removed.
    private static func rename(_ files: [AtomicFile.Prepared]) async throws(PublishError) {
        try await BlockingWork.run { () throws(PublishError) in
            var folders = Set<String>()
            for (index, file) in files.enumerated() {
                let folder = file.destination.deletingLastPathComponent().path
                do throws(PublishError) {
                    if !folders.contains(folder) {
                        do {
                            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                        } catch {
                            throw PublishError(
                                .fileSystem, "cannot create \(folder): \(error.localizedDescription)\(PublishError.diskAdvice)")
                        }
                    }
                    try file.commit()
                } catch {
                    for rest in files[index...] { rest.discard() }
                    throw error
                }
                folders.insert(folder)
            }
            // The renames are durable before the manifest names what they put in place.
            for folder in folders.sorted() {
                do throws(FileSystem.Failure) {
                    try FileSystem.flushDirectory(folder)
                } catch {
                    throw PublishError(.fileSystem, error.description + PublishError.diskAdvice)
                }
            }
        }
    }

    /// What a publish knows before its pages: the fingerprints of the last one, when they can
    /// be used, and the site's input.
    private struct Start: Sendable {
        /// Files written so far (unflushed).
        var written: Int
        var canSkip: Bool
        var previous: PageFingerprints?
        var siteInput: String?
        var site: SitePlan?
        /// What names the site when it needs no work (`PreparedSite.mark`).
        var mark: String?
    }

    /// Writes the changed assets and pages of `manifest`'s site, its feed and search index
    /// under temporary names, and flushes them; nothing of the mirror changes (`commit` puts
    /// them in place). On a failure, what was written is removed.
    /// Pages are checked, rendered and written as blocking work (`BlockingWork`: file reads and
    /// writes, and pages rendered a job each, on every thread of its pool), off the threads
    /// every task of the run shares.
    /// `served`: the mark (`PreparedSite.mark`) of a site served elsewhere (a bucket) whose files
    /// this disk does not hold: when `manifest` would make that same site, nothing is written.
    package func prepare(_ manifest: Manifest, served: String? = nil) async throws(PublishError) -> PreparedSite {
        let written = Prepared()
        do {
            return try await prepare(manifest, served: served, into: written)
        } catch {
            written.discard()
            throw error
        }
    }

    /// The files `prepare` wrote so far, removed if it fails.
    private final class Prepared: Sendable {
        private let files = Mutex<[(file: AtomicFile.Prepared, page: Bool)]>([])

        func append(_ file: AtomicFile.Prepared?, page: Bool = false) {
            guard let file else { return }
            files.withLock { $0.append((file, page)) }
        }

        var all: [(file: AtomicFile.Prepared, page: Bool)] { files.withLock { $0 } }

        func discard() {
            for (file, _) in all { file.discard() }
        }
    }

    private func prepare(
        _ manifest: Manifest, served: String?, into prepared: Prepared
    ) async throws(PublishError) -> PreparedSite {
        let fingerprintsURL = layout.state.appendingPathComponent("pages.json", isDirectory: false)
        let start = try await begin(manifest, served: served, fingerprintsURL: fingerprintsURL, into: prepared)
        guard let site = start.site else {
            let pages = start.previous?.pages
            return PreparedSite(
                files: prepared.all, outcome: Outcome(rendered: 0, skipped: pages?.count ?? 0),
                pages: pages.map { $0.keys.sorted() }, mark: start.mark)
        }
        let (written, fingerprints, outcome) = try await writePages(of: site, manifest: manifest, start: start, into: prepared)
        let complete = try await finish(
            site, manifest: manifest, start: start, fingerprints: fingerprints, fingerprintsURL: fingerprintsURL,
            written: written, into: prepared)
        return PreparedSite(
            files: prepared.all, outcome: outcome, pages: site.pages.map(\.fileName),
            mark: complete ? start.siteInput.map(mark(of:)) : nil)
    }

    /// What names the site made from `siteInput` (`PageFingerprints.siteInput`) with this
    /// template's assets: the same for every run, on any machine, that would write the same
    /// pages, feed, search index and assets (a bucket is told it: `PreparedSite.mark`).
    func mark(of siteInput: String) -> String {
        var hasher = SHA256()
        func add(_ piece: String) {
            withUnsafeBytes(of: Int64(piece.utf8.count).littleEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: Array(piece.utf8))
        }
        add("site-mark@1")
        add(siteInput)
        for (path, bytes) in template.assets.sorted(by: { $0.key < $1.key }) {
            add(path)
            add(SHA256.hash(data: bytes).hexString)
        }
        return hasher.finalize().hexString
    }

    /// The first step of `prepare`: writes the changed assets, and works out whether the site
    /// is current (`PageFingerprints`); if it is not, plans it (`Start.site`).
    private func begin(
        _ manifest: Manifest, served: String?, fingerprintsURL: URL, into prepared: Prepared
    ) async throws(PublishError) -> Start {
        try await BlockingWork.run { () throws(PublishError) -> Start in
            // A page whose inputs and file are as last written is left alone (PageFingerprints).
            let canSkip = PageFingerprints.canSkip(templateSource: template.pageSource)
            let siteInput =
                canSkip
                ? PageFingerprints.siteInput(of: manifest, templateSource: template.pageSource, itemsPerPage: itemsPerPage)
                : nil
            if let served, let siteInput, mark(of: siteInput) == served {
                // The site is served elsewhere as this manifest would make it: nothing to write.
                return Start(written: 0, canSkip: canSkip, siteInput: siteInput, mark: served)
            }
            // Files this publish wrote (unflushed), so the flush below is skipped when there are none.
            var written = 0
            for (path, bytes) in template.assets.sorted(by: { $0.key < $1.key }) {
                guard let destination = layout.file(atRelativePath: path) else { continue }
                if let file = try write(bytes, to: destination) {
                    prepared.append(file)
                    written += 1
                }
            }
            let previous = canSkip ? PageFingerprints.read(from: fingerprintsURL) : nil
            if let previous, let siteInput, previous.isCurrent(site: siteInput, root: layout.root.path) {
                // Made from the same input as last time, and on disk as written then: nothing of
                // the site is worked out again (the assets above are checked all the same).
                if written > 0 { try flush() }
                return Start(
                    written: written, canSkip: canSkip, previous: previous, siteInput: siteInput, mark: mark(of: siteInput))
            }
            let site = SitePlan(manifest: manifest, itemsPerPage: itemsPerPage)
            return Start(written: written, canSkip: canSkip, previous: previous, siteInput: siteInput, site: site)
        }
    }

    /// The pages of `site` that changed, rendered and written under temporary names, last page
    /// first (a page is never written before the pages it links forward to), a few at a time
    /// (one per core, so the site is never all in memory): how many files were written in all,
    /// the pages' fingerprints, and how many were rendered and skipped.
    private func writePages(
        of site: SitePlan, manifest: Manifest, start: Start, into prepared: Prepared
    ) async throws(PublishError) -> (written: Int, fingerprints: PageFingerprints, outcome: Outcome) {
        var written = start.written
        var next = PageFingerprints()
        var outcome = Outcome()
        let group = max(1, ProcessInfo.processInfo.activeProcessorCount)
        var end = site.pages.count
        while end > 0 {
            let indices = Array(max(0, end - group)..<end)
            let pages = await pages(
                indices, of: site, manifest: manifest, previous: start.previous,
                fingerprinting: start.canSkip && start.previous == nil)
            let (wrote, entries) = try await BlockingWork.run {
                () throws(PublishError) -> (Int, [(String, PageFingerprints.Entry?)]) in
                var wrote = 0
                var entries: [(String, PageFingerprints.Entry?)] = []
                for (index, page) in zip(indices, pages).reversed() {
                    let name = site.pages[index].fileName
                    switch page {
                    case .skipped(let entry): entries.append((name, entry))
                    case .rendered(let html, let input):
                        let bytes = Array(html.utf8)
                        if let file = try write(bytes, to: layout.root.appendingPathComponent(name)) {
                            prepared.append(file, page: true)
                            wrote += 1
                        }
                        entries.append((name, input.map { .init(input: $0, output: SHA256.hash(data: bytes).hexString) }))
                    }
                }
                return (wrote, entries)
            }
            written += wrote
            for (name, entry) in entries {
                if let entry { next.pages[name] = entry }
            }
            for page in pages {
                if case .skipped = page { outcome.skipped += 1 } else { outcome.rendered += 1 }
            }
            end = indices[0]
        }
        return (written, next, outcome)
    }

    /// The last step of `prepare`: the feed and the search index, the fingerprints for the next
    /// publish, and one flush of the file system for every file written (none when none was).
    /// Returns whether the fingerprints describe the whole site (then it can be named: `mark(of:)`).
    private func finish(
        _ site: SitePlan, manifest: Manifest, start: Start, fingerprints: PageFingerprints, fingerprintsURL: URL,
        written total: Int, into prepared: Prepared
    ) async throws(PublishError) -> Bool {
        try await BlockingWork.run { () throws(PublishError) -> Bool in
            var written = total
            var next = fingerprints
            // The feed links to the pages just written, and is flushed with them.
            let feed = Array(AtomFeed(site: site, manifest: manifest).render().utf8)
            if let file = try write(feed, to: layout.root.appendingPathComponent(AtomFeed.fileName)) {
                prepared.append(file)
                written += 1
            }
            // The search index of every page's search box, rewritten only when its bytes change.
            let searchIndex = try SearchIndex.prepare(site: site, itemsPerPage: itemsPerPage, layout: layout)
            if let file = searchIndex.file {
                prepared.append(file)
                written += 1
            }
            if start.canSkip, next.pages.count == site.pages.count {
                next.site = start.siteInput
                next.files = [
                    AtomFeed.fileName: SHA256.hash(data: feed).hexString, SearchIndex.fileName: searchIndex.sha256,
                ]
            }
            if start.canSkip, next != start.previous, let data = try? JSONCoding.encode(next) {
                prepared.append(
                    try AtomicFile.prepare(for: fingerprintsURL, temporaryDirectory: layout.temporary, flush: false) {
                        writer in try data.withUnsafeBytes { try writer.write($0) }
                    })
            }
            // Pages and assets were written unflushed: one flush of the file system for all of
            // them (an fsync per page waited for the disk once a page), before the manifest says
            // they are there. A re-sync that rewrote none needs none: `syncfs` waits for every
            // dirty file of the file system, other programs' too, which on a busy machine was
            // much of a no-op's time.
            if written > 0 { try flush() }
            return next.site != nil
        }
    }

    /// Flushes the file system holding the mirror.
    private func flush() throws(PublishError) {
        do {
            try FileSystem.flushFileSystem(containing: layout.root.path)
        } catch {
            throw PublishError(.fileSystem, error.description)
        }
    }

    /// Writes a generated file under a temporary name, unless its destination already holds
    /// `bytes` (its folder is made when it is put in place: `commit`).
    /// - Returns: the file waiting to be put in place, or nil when it is as it was.
    private func write(_ bytes: [UInt8], to destination: URL) throws(PublishError) -> AtomicFile.Prepared? {
        try AtomicFile.prepareIfChanged(bytes, for: destination, temporaryDirectory: layout.temporary, flush: false)
    }

    /// A page of a publish: left as it is, or rendered (with the input it was rendered from,
    /// when it is fingerprinted).
    enum PageWork: Sendable {
        case skipped(PageFingerprints.Entry)
        case rendered(html: String, input: String?)
    }

    /// Pages `indices` of `site`, in that order, each a job of its own on `BlockingWork`'s pool
    /// (a thread per core), all at once: pages are independent, and rendering is the longest
    /// step of a re-sync. With `previous`, a page whose input and file are as they were is
    /// skipped; with `previous` or `fingerprinting`, a page's input is worked out from the one
    /// context its rendering uses.
    func pages(
        _ indices: [Int], of site: SitePlan, manifest: Manifest, previous: PageFingerprints? = nil,
        fingerprinting: Bool = false
    ) async -> [PageWork] {
        await withTaskGroup(of: (Int, PageWork).self) { group in
            for (offset, index) in indices.enumerated() {
                group.addTask {
                    let work = await BlockingWork.run {
                        self.page(index, of: site, manifest: manifest, previous: previous, fingerprinting: fingerprinting)
                    }
                    return (offset, work)
                }
            }
            var pages = [PageWork](repeating: .skipped(.init(input: "", output: "")), count: indices.count)
            for await (offset, work) in group { pages[offset] = work }
            return pages
        }
    }

    /// One page of `pages(_:of:manifest:previous:fingerprinting:)`.
    private func page(
        _ index: Int, of site: SitePlan, manifest: Manifest, previous: PageFingerprints?, fingerprinting: Bool
    ) -> PageWork {
        let page = site.pages[index]
        let context = context(page, in: site, manifest: manifest)
        guard previous != nil || fingerprinting else { return .rendered(html: template.page.render(context), input: nil) }
        let input = PageFingerprints.input(of: context, templateSource: template.pageSource)
        if let entry = previous?.pages[page.fileName], entry.input == input,
            FileSystem.sha256(atPath: layout.root.path + "/" + page.fileName) == entry.output
        {
            return .skipped(entry)
        }
        return .rendered(html: template.page.render(context), input: input)
    }

    /// What the template sees for one page. Every link is relative: album pages live in
    /// `albums/`, so their links to images, assets and the start page go up one folder.
    func context(_ page: SitePlan.Page, in site: SitePlan, manifest: Manifest) -> TemplateObject {
        let album = site.albums[page.album]
        let up = page.fileName.contains("/") ? "../" : ""
        func href(_ base: String, _ number: Int = 1) -> String {
            let name = SitePlan.fileName(base: base, number: number)
            return up.isEmpty ? name : (base == "index" ? "../" + name : String(name.dropFirst("albums/".count)))
        }
        var breadcrumbs: [TemplateObject] = []
        var parent = album.parent
        while let index = parent {
            breadcrumbs.insert(
                TemplateObject(["href": .text(href(site.albums[index].fileBase)), "title": .text(site.albums[index].title)]),
                at: 0)
            parent = site.albums[index].parent
        }
        // The index of albums below this one, nested: each entry says whether a list of its
        // children opens after it, and how many lists close after it.
        var index: [TemplateObject] = []
        if page.number == 1 {
            let below = page.album == 0 ? site.descendants(of: 0) : album.children
            for (position, albumIndex) in below.enumerated() {
                let child = site.albums[albumIndex]
                var names = ["href"]
                var values: [TemplateObject.Value] = [.text(href(child.fileBase))]
                let cover =
                    child.cover ?? child.photos.first
                    ?? site.descendants(of: albumIndex).lazy.compactMap { site.albums[$0].cover ?? site.albums[$0].photos.first }
                    .first
                if let cover {
                    let tile = PhotoView.tile(of: cover)
                    names.append("cover")
                    values.append(.text(up + tile.path))
                    if let size = tile.dimensions {
                        names += ["coverWidth", "coverHeight"]
                        values += [.number(size.width), .number(size.height)]
                    }
                }
                let depth = child.depth
                let nextDepth = position + 1 < below.count ? site.albums[below[position + 1]].depth : album.depth + 1
                names += ["title", "count", "countLabel", "hasChildren", "closes", "depth"]
                values += [
                    .text(child.title), .number(site.totalPhotos(albumIndex)),
                    .text(Self.photos(site.totalPhotos(albumIndex))), .flag(nextDepth > depth),
                    .list(Array(repeating: TemplateObject.empty, count: max(0, depth - nextDepth))),
                    .number(depth - album.depth),
                ]
                index.append(TemplateObject(names: names, values: values))
            }
        }
        let items = album.photos[page.photos].enumerated().map { offset, photo in
            Self.card(photo, up: up, position: page.photos.lowerBound + offset + 1, albumTitle: album.title)
        }
        var names = [
            "up", "siteTitle", "isAlbum", "pageTitle", "hasPagination", "pageNumber", "pageCount", "feed", "script", "home",
            "searchIndex", "breadcrumbs", "source", "hasItems", "itemCount", "showsTotal", "photoCount", "hasAlbums",
            "albums", "albumTitle", "firstPosition", "items", "pages", "generatedAt", "itemCountLabel", "photoCountLabel",
        ]
        var values: [TemplateObject.Value] = [
            .text(up), .text(site.siteTitle), .flag(page.album != 0), .text(album.title), .flag(page.count > 1),
            .number(page.number), .number(page.count), .text(up + AtomFeed.fileName), .text(up + "assets/gallery.js"),
            .text(href("index")), .text(up + SearchIndex.fileName), .list(breadcrumbs), .text(album.url ?? manifest.source),
            .flag(!album.photos.isEmpty), .number(album.photos.count),
            // The start page says how many photos the whole mirror holds when its own are not all.
            .flag(page.album == 0 && site.photoCount != album.photos.count), .number(site.photoCount),
            .flag(!index.isEmpty), .list(index), .text(album.title), .number(page.photos.lowerBound + 1), .list(items),
            .list(Self.pageLinks(current: page.number, count: page.count) { href(album.fileBase, $0) }),
            .text(Timestamp.string(manifest.generatedAt)), .text(Self.photos(album.photos.count)),
            .text(Self.photos(site.photoCount)),
        ]
        if page.number > 1 {
            names.append("previous")
            values.append(.object(TemplateObject(["href": .text(href(album.fileBase, page.number - 1))])))
        }
        if page.number < page.count {
            names.append("next")
            values.append(.object(TemplateObject(["href": .text(href(album.fileBase, page.number + 1))])))
        }
        // Only where it applies, so the pages of a mirror whose files say nothing keep the
        // context (and fingerprints) they had.
        if album.sortsByDate {
            names.append("sortsByDate")
            values.append(.object(TemplateObject(["base": .text(album.fileBase)])))
        }
        return TemplateObject(names: names, values: values)
    }

    /// A count of photos in words: "1 photo", "12 photos".
    static func photos(_ count: Int) -> String { count == 1 ? "1 photo" : "\(count) photos" }

    /// Pages within this distance of the current one are linked, besides the first two and the
    /// last two; up to `2 * pageWindow + 5` pages, every page is.
    static let pageWindow = 2

    /// The page numbers a page of `count` links to: all of them for a short album; for a long
    /// one the first two, the last two, and those around `current`, as wget-made mirrors and
    /// gallery generators show them. Linking every page from every page made the pages of a
    /// large feed quadratic in its page count.
    static func pageNumbers(current: Int, count: Int) -> [Int] {
        guard count > 2 * pageWindow + 5 else { return Array(1...max(1, count)) }
        let around = max(1, current - pageWindow)...min(count, current + pageWindow)
        return Array(Set([1, 2, count - 1, count]).union(around)).sorted()
    }

    /// The context of the `pages` list: each linked page's number, link and whether it is the
    /// current one, and `gapBefore` when pages are left out before it (the template shows "…").
    static func pageLinks(current: Int, count: Int, href: (Int) -> String) -> [TemplateObject] {
        let numbers = pageNumbers(current: current, count: count)
        return numbers.enumerated().map { position, number in
            TemplateObject([
                "gapBefore": .flag(position > 0 && number > numbers[position - 1] + 1), "current": .flag(number == current),
                "href": .text(href(number)), "number": .number(number),
            ])
        }
    }

    /// A photo with no title is labelled by its file name, without the image extension.
    static func fileTitle(_ key: String) -> String { PhotoText.fileTitle(key) }

    /// What the template sees for one photo's card: its tile (the rendition `PhotoView.tile`
    /// picks, with its size and a `srcset` of the renditions whose widths are known), the link to
    /// its largest rendition, its label, caption and metadata, and its place in its album.
    /// Fields in the order the built-in template looks them up.
    private static func card(_ photo: SitePlan.Photo, up: String, position: Int, albumTitle: String) -> TemplateObject {
        let item = photo.original
        let title = PhotoView.title(of: photo)
        let details = PhotoView.details(of: photo, title: title, albumTitle: albumTitle)
        let tile = PhotoView.tile(of: photo)
        var names = ["id", "position", "href"]
        var values: [TemplateObject.Value] = [.text(PhotoView.anchor(of: photo)), .number(position), .text(up + item.path)]
        if let size = item.dimensions {
            names += ["originalWidth", "originalHeight"]
            values += [.number(size.width), .number(size.height)]
        }
        names.append("path")
        values.append(.text(up + tile.path))
        if let srcset = PhotoView.srcset(of: photo, up: up) {
            names.append("srcset")
            values.append(.text(srcset))
        }
        if let size = tile.dimensions {
            names += ["width", "height"]
            values += [.number(size.width), .number(size.height)]
        }
        names += ["alt", "title"]
        values += [.text(title), .text(title)]
        if let caption = details.caption {
            names.append("caption")
            values.append(.text(caption))
        }
        // What the file says about itself: each name only where the file gives it.
        let shown = PhotoView.embeddedDetails(of: photo)
        if !shown.isEmpty {
            if shown.contains(where: { $0.name != "copyright" }) {
                names.append("hasFileMetadata")
                values.append(.flag(true))
            }
            for (name, value) in shown {
                names.append(name)
                values.append(.text(value))
            }
        }
        names += ["hasMetadata", "metadata", "contentType", "size", "hasRenditions", "renditions", "key", "bytes"]
        values += [
            .flag(!details.fields.isEmpty),
            .list(details.fields.map { TemplateObject(["name": .text($0.name), "value": .text($0.value)]) }),
            .text(item.contentType), .text(Self.formatSize(item.bytes)), .flag(photo.renditions > 1),
            .number(photo.renditions), .text(item.key), .bytes(item.bytes),
        ]
        return TemplateObject(names: names, values: values)
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

    /// Removes generated pages the site no longer has (a shorter album, an album gone).
    private func removeStalePages(keeping names: Set<String>) {
        func isGenerated(_ name: String) -> Bool {
            name.hasSuffix(".html") && (name.hasPrefix("page-") || name.hasPrefix("albums/"))
        }
        var candidates = (try? FileManager.default.contentsOfDirectory(atPath: layout.root.path)) ?? []
        let albums = layout.root.appendingPathComponent("albums")
        candidates += ((try? FileManager.default.contentsOfDirectory(atPath: albums.path)) ?? []).map { "albums/" + $0 }
        for name in candidates where isGenerated(name) && !names.contains(name) {
            try? FileManager.default.removeItem(at: layout.root.appendingPathComponent(name))
        }
    }
}
