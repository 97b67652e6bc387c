import MirrorPublish

/// What stops a run before it finishes, with the exit status docs/reference.md gives it.
///
/// A struct over a private code, in async-http-client's `HTTPClientError` style: kinds can be
/// added without breaking a caller's `switch`. Throw it through the static members
/// (`.sourceUnavailable(_:)`, `.cancelled`, ...); ask what kind it is with `code`
/// (`error.code == .pruneGuard`). Its `description` is one line fit for cron mail: what
/// happened, the input it concerns (URL, directory), and what to do.
public struct MirrorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of stop, one per exit status; compare with the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case sourceUnavailable = "source-unavailable"
            case storage
            case cancelled
            case pruneGuard = "prune-guard"
            case locked
        }

        private let base: Base

        /// The source could not be crawled, or showed nothing to publish (exit 3).
        public static let sourceUnavailable = Code(base: .sourceUnavailable)
        /// The mirror directory could not be written (exit 1: nothing new is published).
        public static let storage = Code(base: .storage)
        /// SIGINT or SIGTERM stopped the run (exit 130).
        public static let cancelled = Code(base: .cancelled)
        /// More deletions than `--max-delete` allows (exit 4).
        public static let pruneGuard = Code(base: .pruneGuard)
        /// Another sync holds the mirror's lock (exit 75).
        public static let locked = Code(base: .locked)

        /// The kebab-case name, e.g. `prune-guard`.
        public var description: String { base.rawValue }
    }

    /// What the prune guard counted: deletions the run would make, out of how many items, and the limit.
    public struct Deletions: Sendable, Equatable {
        /// Items of the last run's manifest this run would delete.
        public var wouldDelete: Int
        /// Items in the last run's manifest.
        public var previous: Int
        /// The `--max-delete` in force.
        public var limit: DeleteLimit
    }

    /// The kind of stop.
    public let code: Code
    /// The one-line message (what happened, to which input, what to do).
    private let message: String
    /// With `.pruneGuard`: what it counted; nil otherwise.
    public let deletions: Deletions?

    private init(_ code: Code, _ message: String, deletions: Deletions? = nil) {
        self.code = code
        // One line, whatever an underlying library put in its own description.
        self.message = String(message.map { $0.isNewline ? " " : $0 })
        self.deletions = deletions
    }

    /// The source could not be crawled (start page unreachable or unreadable) or showed
    /// nothing to publish; `message` names the URL, what happened and what to try. Exit 3.
    public static func sourceUnavailable(_ message: String) -> MirrorError {
        MirrorError(.sourceUnavailable, message)
    }

    /// The mirror directory could not be written; `message` names the path, what failed and
    /// what to check. Exit 1: nothing new is published, the mirror stays as it was.
    public static func storage(_ message: String) -> MirrorError {
        MirrorError(.storage, message)
    }

    /// SIGINT or SIGTERM stopped the run; nothing was published or deleted. Exit 130.
    public static let cancelled = MirrorError(
        .cancelled, "stopped by a signal before publishing; the mirror was left as it was (run sync again to finish)")

    /// The run would delete `wouldDelete` of the `previous` items of the last run, more than
    /// `limit` allows; nothing was deleted. Exit 4.
    public static func pruneGuard(wouldDelete: Int, of previous: Int, limit: DeleteLimit) -> MirrorError {
        MirrorError(
            .pruneGuard,
            "this run would delete \(wouldDelete) of the \(previous) images of the last run, more than --max-delete \(limit) allows; nothing was deleted (check the source, or raise --max-delete)",
            deletions: Deletions(wouldDelete: wouldDelete, previous: previous, limit: limit))
    }

    /// Another sync (process `pid`, when known) holds the lock on `directory`. Exit 75.
    public static func locked(directory: String, pid: Int32?) -> MirrorError {
        MirrorError(
            .locked,
            "another sync is running on \(directory)" + (pid.map { " (PID \($0))" } ?? "")
                + "; try again when it has finished")
    }

    public var description: String { message }

    /// The exit status of this stop (docs/reference.md, "Exit statuses"): 3, 1, 130, 4 or 75.
    public var exitStatus: Int32 {
        switch code {
        case .sourceUnavailable: ExitStatus.sourceUnavailable
        case .pruneGuard: ExitStatus.pruneGuard
        case .locked: ExitStatus.locked
        case .cancelled: ExitStatus.cancelled
        default: ExitStatus.itemsFailed
        }
    }
}
