import MirrorCore
import MirrorFetch

extension HTTPSession {
    /// GETs `url` as a page (a guessed image URL whose HEAD said HTML): its body when it is one.
    package func page(at url: CanonicalURL, gate: @escaping RequestGate) async -> Result<Download, FetchFailure> {
        do {
            return .success(
                try await get(
                    url, headers: [("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")],
                    deadline: configuration.documentDeadline, gate: gate
                ) { (success: Success) async throws(BodyError) -> Download in
                    guard let page = try await page(success) else {
                        throw .fatal(FetchFailure(.notAnImage, "\(url) is no longer an HTML page"))
                    }
                    return .page(page)
                })
        } catch {
            return .failure(error)
        }
    }
}
