import MirrorCore

extension FileSystem {
    /// `flushFileSystem(containing:)` as blocking work (`BlockingWork`): `syncfs` blocks for as
    /// long as the disk takes, and would hold one of the few threads every task of the run shares.
    package static func flushFileSystemOffThreadPool(containing path: String) async throws(Failure) {
        try await BlockingWork.run { () throws(Failure) in try flushFileSystem(containing: path) }
    }
}
