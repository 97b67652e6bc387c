import MirrorBlocking
import MirrorCore

/// A flush of the file system a run's downloads are on, started early
/// (`DiskStorage.flushDownloads(downloaded:)`) and awaited before the first file is published.
package struct DownloadFlush: Sendable {
    private let task: Task<Void, Never>?

    /// Starts flushing the file system holding `path` off the thread pool, when `starts`;
    /// otherwise a flush that is done at once.
    init(containing path: String, starts: Bool) {
        task = starts ? Task { try? await FileSystem.flushFileSystemOffThreadPool(containing: path) } : nil
    }

    /// Returns when the flush is done (at once when none was started).
    package func wait() async {
        await task?.value
    }
}
