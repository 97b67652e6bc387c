/// What the loader asks a source for.
package struct ImageRequest: Sendable, Equatable {
    /// The key, also the URL requested.
    package var key: CanonicalURL
    /// Catalog title, used for the file name when the image is new.
    package var title: String?
    /// The length the listing declared, if any.
    package var declaredLength: Int64?
    /// Validators of the stored copy; with them the request is conditional.
    package var validators: Validators?
    /// What the store holds for the key, when it was looked up with a batch of keys before
    /// the request was made; `.unknown` (the default): the loader looks it up.
    package var stored: Lookup = .unknown
    /// Whether the key is only a guess (`ImageReference.isGuess`) that never answered with an
    /// image: an HTML answer is then a page, handed back whole (`Download.page`) rather than
    /// failing `not-an-image`. Default: false.
    package var isGuess = false
    /// The result of looking `key` up in the store ahead of the load.
    package enum Lookup: Sendable, Equatable {
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
    package init(key: CanonicalURL, title: String? = nil, declaredLength: Int64? = nil, validators: Validators? = nil) {
        self.key = key
        self.title = title
        self.declaredLength = declaredLength
        self.validators = validators
    }
}
