/// What stops a call to the object store, as one line fit for cron mail: the request, the
/// object, what the store answered, and what to do.
///
/// A struct over a private code, as `MirrorError` is, so kinds can grow without breaking a caller.
public struct ObjectStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable {
        private enum Base: Hashable, Sendable { case refused, notFound, failed, unresolved }
        private let base: Base
        /// The store refused the credentials or their rights (403, `SignatureDoesNotMatch`,
        /// `InvalidAccessKeyId`, `AccessDenied`...), or there are none: a settings error, exit 2.
        public static let refused = Code(base: .refused)
        /// The object (or bucket) does not exist.
        public static let notFound = Code(base: .notFound)
        /// A request failed after its retries, or its answer did not check out: exit 1.
        public static let failed = Code(base: .failed)
        /// The endpoint or credentials cannot be worked out from the environment: exit 2.
        public static let unresolved = Code(base: .unresolved)
    }

    /// The kind of failure.
    public let code: Code
    /// The one line.
    public let description: String

    package init(_ code: Code, _ description: String) {
        self.code = code
        self.description = String(description.map { $0.isNewline ? " " : $0 })
    }

    /// Exit 2 for refused or missing credentials (a settings error), 1 otherwise.
    public var exitStatus: Int32 { code == .refused || code == .unresolved ? 2 : 1 }
}
