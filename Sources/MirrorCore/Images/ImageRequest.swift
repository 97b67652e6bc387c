/// What the loader asks a source for.
public struct ImageRequest: Sendable, Equatable {
    /// The key, also the URL requested.
    public var key: CanonicalURL
    /// Catalog title, used for the file name when the image is new.
    public var title: String?
    /// The length the listing declared, if any.
    public var declaredLength: Int64?
    /// Validators of the stored copy; with them the request is conditional.
    public var validators: Validators?
    /// What the store holds for the key, when it was looked up with a batch of keys before
    /// the request was made; `.unknown` (the default): the loader looks it up.
    public var stored: Lookup = .unknown
    /// Whether the key is only a guess (`ImageReference.isGuess`) that never answered with an
    /// image: an HTML answer is then a page, handed back whole (`Download.page`) rather than
    /// failing `not-an-image`. Default: false.
    public var isGuess = false
    /// The result of looking `key` up in the store ahead of the load.
    public enum Lookup: Sendable, Equatable {
        /// Not looked up yet.
        case unknown
        /// Nothing usable is stored (no row, or its file is missing or has another size).
        case none
        /// The stored copy, to revalidate.
        case stored(StoredImage)
    }

    /// A request for `key`.
    /// - Parameters:
    ///   - key: The key, also the URL requested.
    ///   - title: The catalog title, used for the file name when the image is new. Default: nil.
    ///   - declaredLength: The length the listing declared. Default: nil.
    ///   - validators: The stored copy's validators, which make the request conditional. Default: nil.
    public init(key: CanonicalURL, title: String? = nil, declaredLength: Int64? = nil, validators: Validators? = nil) {
        self.key = key
        self.title = title
        self.declaredLength = declaredLength
        self.validators = validators
    }
}
