import Foundation

@testable import MirrorCore
@testable import MirrorPublish

/// What the site's tests ask of a publisher and the run never does: a publish whose images are
/// already in place, and the pages' HTML without writing them. The run publishes in
/// `PublishPhase` (the manifest begun, the site prepared, the store's images moved, then both
/// committed); these take the same `prepare` and `commit`, without the store between them.
extension MirrorPublisher {
    /// Publishes the site of `manifest` and the manifest itself (`prepare`, then `commit`).
    @discardableResult
    func publish(_ manifest: Manifest) async throws(PublishError) -> Outcome {
        let manifestWrite = beginManifest(manifest)
        let site: PreparedSite
        do {
            site = try await prepare(manifest)
        } catch {
            await manifestWrite.discard()
            throw error
        }
        return try await commit(site, manifestWrite: manifestWrite)
    }

    /// The HTML of every page, in the order of `SitePlan.pages` (the start page first).
    func render(_ manifest: Manifest) -> [String] {
        let site = SitePlan(manifest: manifest, itemsPerPage: itemsPerPage)
        return site.pages.indices.map { index in
            template.page.render(context(site.pages[index], in: site, manifest: manifest))
        }
    }
}
