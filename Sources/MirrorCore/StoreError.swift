/// A failure of the on-disk store: what kind (`code`), and one line saying what happened, to
/// which path, and what to do.
///
/// A struct over a code rather than an enum, as async-http-client's errors are, so codes can be
/// added without breaking anyone who switches over them.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// The kind of a store failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case fileSystem = "file-system", database, inUse = "in-use", closed, damaged, format, inconsistent
            case notAMirror = "not-a-mirror"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A file or folder of the mirror could not be created, read, written or moved (full or
        /// read-only disk, permissions).
        public static let fileSystem = Code(.fileSystem)
        /// The state database (`.catalog-mirror/state.sqlite`) could not be opened, read or written.
        public static let database = Code(.database)
        /// The mirror is already open, in this process or in another run.
        public static let inUse = Code(.inUse)
        /// The store was used after it was closed.
        public static let closed = Code(.closed)
        /// The state is damaged and could not be set aside to be rebuilt.
        public static let damaged = Code(.damaged)
        /// A file of the mirror is not in a format this version reads.
        public static let format = Code(.format)
        /// The store's record contradicts what this run did.
        public static let inconsistent = Code(.inconsistent)
        /// The directory holds no mirror (no `.catalog-mirror/`).
        public static let notAMirror = Code(.notAMirror)

        /// The kebab-case name of the code.
        public var description: String { base.rawValue }
    }

    /// What kind of failure it is.
    public let code: Code
    /// One line: what happened, to which path, and what to do.
    public let message: String

    /// An error of `code` with this one-line `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Wraps a file-system error on `path` with the operation that failed.
    package static func io(_ operation: String, _ path: String, _ error: any Error) -> StoreError {
        StoreError(.fileSystem, "cannot \(operation) \(path): \(error.localizedDescription) (check permissions and free space)")
    }

    public var description: String { message }
}
