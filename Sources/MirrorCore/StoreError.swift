/// The on-disk store's stage of `StageError`.
public enum StoreStage: ErrorStage {}

/// A failure of the on-disk store: what kind (`code`), and one line saying what happened, to
/// which path, and what to do.
public typealias StoreError = StageError<StoreStage>

extension StageError.Code where Stage == StoreStage {
    /// A file or folder of the mirror could not be created, read, written or moved (full or
    /// read-only disk, permissions).
    package static var fileSystem: Self { Self("file-system") }
    /// The state database (`.catalog-mirror/state.sqlite`) could not be opened, read or written.
    package static var database: Self { Self("database") }
    /// The mirror is already open, in this process or in another run.
    public static var inUse: Self { Self("in-use") }
    /// The store was used after it was closed.
    package static var closed: Self { Self("closed") }
    /// The state is damaged and could not be set aside to be rebuilt.
    package static var damaged: Self { Self("damaged") }
    /// A file of the mirror is not in a format this version reads.
    package static var format: Self { Self("format") }
    /// The store's record contradicts what this run did.
    package static var inconsistent: Self { Self("inconsistent") }
    /// The directory holds no mirror (no `.catalog-mirror/`).
    public static var notAMirror: Self { Self("not-a-mirror") }
}

extension StageError where Stage == StoreStage {
    /// Wraps a file-system error on `path` with the operation that failed.
    package static func io(_ operation: String, _ path: String, _ error: any Error) -> StoreError {
        StoreError(.fileSystem, "cannot \(operation) \(path): \(error.localizedDescription) (check permissions and free space)")
    }
}
