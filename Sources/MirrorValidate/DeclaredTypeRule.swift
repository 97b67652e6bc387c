import MirrorCore

/// Rejects keys whose listing declares a media type the mirror does not publish
/// (not `image/*`, or SVG — see `ImageFormat.svg`), and keys whose path ends in `.svg` or
/// `.svgz`, as `unsupported-type`, before any request (an SVG would be fetched on every sync
/// only to be refused again).
struct DeclaredTypeRule: ValidationHandler {
    let next: (any ValidationHandler)?

    init(next: (any ValidationHandler)?) { self.next = next }

    func handle(_ candidate: Candidate) async -> Verdict {
        if let declared = candidate.declaredType?.lowercased().split(separator: ";").first?.trimmingSpaces,
            !declared.isEmpty, declared != "application/octet-stream"
        {
            guard declared.hasPrefix("image/"), !declared.hasPrefix("image/svg") else {
                return .rejected(.unsupportedType)
            }
        }
        let path = candidate.key.path.lowercased()
        if path.hasSuffix(".svg") || path.hasSuffix(".svgz") { return .rejected(.unsupportedType) }
        return await passOn(candidate)
    }
}
