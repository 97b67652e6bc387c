/// Publishing's stage of `StageError`: the site, the manifest, the report and the metrics
/// written into the mirror.
public enum PublishStage: ErrorStage {}

/// A failure to render or write what a run publishes: what kind (`code`), and one line saying
/// what failed, on which file, and what to do.
public typealias PublishError = StageError<PublishStage>

extension StageError.Code where Stage == PublishStage {
    /// A file or folder could not be created, written, flushed or renamed into place (full or
    /// read-only disk, permissions).
    package static var fileSystem: Self { Self("file-system") }
    /// The site's template (`--template`) could not be read, or is not a valid template.
    package static var template: Self { Self("template") }
}

extension StageError where Stage == PublishStage {
    /// The fix for a write that failed, appended to its message.
    package static let diskAdvice = " (check the permissions and free space of the mirror directory, then run sync again)"
}
