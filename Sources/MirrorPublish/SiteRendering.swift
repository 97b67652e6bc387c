import Foundation
import MirrorCore
import MirrorStore

/// The generated site's pages rendered from a manifest alone, without writing them: what
/// `MirrorPublisher` renders during a publish, in the same order, through the same template
/// and contexts. It exists for the render benchmark (`Benchmarks/RenderPages`), which times
/// rendering apart from the rest of a sync, and keeps the pages so two builds' output can be
/// compared byte for byte.
package enum SiteRendering {
    /// Every page of the site `manifest` makes with `template`, `itemsPerPage` photos to a
    /// page: its file name relative to the mirror's root, its HTML, and with `fingerprints` the
    /// hash of its inputs that decides whether a re-sync renders it again (`PageFingerprints`).
    package static func pages(
        of manifest: Manifest, template: SiteTemplate, itemsPerPage: Int, fingerprints: Bool = false
    ) async -> [(fileName: String, html: String, input: String?)] {
        let publisher = MirrorPublisher(
            layout: MirrorLayout(root: URL(fileURLWithPath: "/nonexistent")), template: template, itemsPerPage: itemsPerPage)
        let site = SitePlan(manifest: manifest, itemsPerPage: itemsPerPage)
        let rendered = await publisher.pages(
            Array(site.pages.indices), of: site, manifest: manifest, fingerprinting: fingerprints)
        return zip(site.pages, rendered).map { page, work in
            guard case .rendered(let html, let input) = work else { return (page.fileName, "", nil) }
            return (page.fileName, html, input)
        }
    }
}
