import MirrorCatalog
import MirrorFetch
import MirrorPipeline

extension CatalogEntry.Outcome {
    /// What the catalog keeps of how a load ended: never the stored record itself.
    init(_ outcome: ImageLoader.Outcome) {
        switch outcome {
        case .stored(let image, _): self = .stored(staged: image.isStaged)
        case .failed(let failure): self = .failed(failure)
        case .storeFailed: self = .storeFailed
        case .probed: self = .probed
        case .page: self = .page
        }
    }
}
