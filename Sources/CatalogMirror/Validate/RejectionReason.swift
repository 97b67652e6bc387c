/// Why a key was not published: the kebab-case vocabulary of `manifest.json`'s `rejected`.
///
/// A struct over a string rather than an enum so `http-NNN` can carry any status and new reasons
/// can be added without breaking callers (the async-http-client error style).
public struct RejectionReason: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The manifest spelling, e.g. `out-of-scope` or `http-404`.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static func < (lhs: RejectionReason, rhs: RejectionReason) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // Policy: the configuration said no. These never make the exit status 1.
    public static let outOfScope = RejectionReason(rawValue: "out-of-scope")
    public static let excluded = RejectionReason(rawValue: "excluded")
    public static let robots = RejectionReason(rawValue: "robots")
    public static let tooLarge = RejectionReason(rawValue: "too-large")
    public static let unsupportedType = RejectionReason(rawValue: "unsupported-type")
    /// `--variants largest`: a smaller rendition of a photo whose largest rendition is mirrored.
    public static let smallerRendition = RejectionReason(rawValue: "smaller-rendition")

    // Failure: an accepted key could not be mirrored. Any of these makes the exit status 1.
    public static let notAnImage = RejectionReason(rawValue: "not-an-image")
    public static let truncated = RejectionReason(rawValue: "truncated")
    public static let empty = RejectionReason(rawValue: "empty")
    public static let redirectLoop = RejectionReason(rawValue: "redirect-loop")
    public static let tooManyRedirects = RejectionReason(rawValue: "too-many-redirects")
    public static let timeout = RejectionReason(rawValue: "timeout")
    public static let networkError = RejectionReason(rawValue: "network-error")

    /// `http-404`, `http-500`, ...: the final status of a request that did not succeed.
    public static func http(_ status: Int) -> RejectionReason { RejectionReason(rawValue: "http-\(status)") }

    private static let policyReasons: Set<RejectionReason> = [
        .outOfScope, .excluded, .robots, .tooLarge, .unsupportedType, .smallerRendition,
    ]

    /// True for reasons that are the configuration's choice rather than a failure.
    public var isPolicy: Bool { Self.policyReasons.contains(self) }
}
