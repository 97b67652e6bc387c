/// Why a key was not published: the kebab-case vocabulary of `manifest.json`'s `rejected`.
///
/// A struct over a string rather than an enum so `http-NNN` can carry any status and new reasons
/// can be added without breaking callers (the async-http-client error style).
package struct RejectionReason: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The manifest spelling, e.g. `out-of-scope` or `http-404`.
    package let rawValue: String

    /// A reason spelled `rawValue` in the manifest; prefer the static members.
    package init(rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }

    package static func < (lhs: RejectionReason, rhs: RejectionReason) -> Bool { lhs.rawValue < rhs.rawValue }

    package init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // Policy: the configuration said no. These never make the exit status 1.
    /// `out-of-scope`: the key's host is neither the source's nor an `--allow-host`.
    package static let outOfScope = RejectionReason(rawValue: "out-of-scope")
    /// `excluded`: the key matched no `--include` glob, or matched an `--exclude` glob.
    package static let excluded = RejectionReason(rawValue: "excluded")
    /// `robots`: the host's robots.txt disallows the key.
    package static let robots = RejectionReason(rawValue: "robots")
    /// `too-large`: a declared length over `--max-size`, or a page or feed over
    /// `FetchConfiguration.maxDocumentBytes`.
    package static let tooLarge = RejectionReason(rawValue: "too-large")
    /// `unsupported-type`: a declared media type that is not an image, or a format that is not published (SVG).
    package static let unsupportedType = RejectionReason(rawValue: "unsupported-type")
    /// `--variants largest`: a smaller rendition of a photo whose largest rendition is mirrored.
    package static let smallerRendition = RejectionReason(rawValue: "smaller-rendition")
    /// An image the site shows on most of its pages on its own (an arrow, a theme's button):
    /// decoration, not a photo of the catalog.
    package static let decoration = RejectionReason(rawValue: "decoration")
    /// `unconfirmed`: a URL the tool only guessed might be an image (a link target, a `data-*`
    /// value, a string in a script or an API document) answered with something else, or with an
    /// error status. The source never showed it as an image, so it fails nothing.
    package static let unconfirmed = RejectionReason(rawValue: "unconfirmed")

    // Failure: an accepted key could not be mirrored. Any of these makes the exit status 1.
    /// `not-an-image`: the body's first bytes are no known image format.
    package static let notAnImage = RejectionReason(rawValue: "not-an-image")
    /// `truncated`: the body ends before the format's end marker or declared size.
    package static let truncated = RejectionReason(rawValue: "truncated")
    /// `empty`: the body has no bytes.
    package static let empty = RejectionReason(rawValue: "empty")
    /// `redirect-loop`: a redirect chain comes back to a URL it already visited.
    package static let redirectLoop = RejectionReason(rawValue: "redirect-loop")
    /// `too-many-redirects`: more redirect hops than `FetchConfiguration.maxRedirects`.
    package static let tooManyRedirects = RejectionReason(rawValue: "too-many-redirects")
    /// `timeout`: no answer in time, a deadline passed, or the transfer stayed under the low-speed limit.
    package static let timeout = RejectionReason(rawValue: "timeout")
    /// `network-error`: no HTTP answer (connection refused or reset, DNS, TLS, proxy), or the
    /// body could not be written or decoded.
    package static let networkError = RejectionReason(rawValue: "network-error")

    /// `http-404`, `http-500`, ...: the final status of a request that did not succeed.
    package static func http(_ status: Int) -> RejectionReason { RejectionReason(rawValue: "http-\(status)") }

    private static let policyReasons: Set<RejectionReason> = [
        .outOfScope, .excluded, .robots, .tooLarge, .unsupportedType, .smallerRendition, .decoration, .unconfirmed,
    ]

    /// True for reasons that are the configuration's choice rather than a failure.
    package var isPolicy: Bool { Self.policyReasons.contains(self) }
}
