/// A failure of the on-disk store: what happened, to which path, and what to do.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// One line: what happened, to which path, and what to do.
    public let message: String

    /// An error with this one-line `message`.
    public init(_ message: String) { self.message = message }

    /// Wraps a file-system error on `path` with the operation that failed.
    static func io(_ operation: String, _ path: String, _ error: any Error) -> StoreError {
        StoreError("cannot \(operation) \(path): \(error.localizedDescription) (check permissions and free space)")
    }

    public var description: String { message }
}
