/// The exit statuses of `catalog-mirror` (docs/reference.md, "Exit statuses"), declared once:
/// the engine's stops (`MirrorError.exitStatus`), a run's report (`RunReport.exitStatus`) and
/// the command line all take them from here.
public enum ExitStatus {
    /// Everything published as it should be.
    public static let ok: Int32 = 0
    /// The run finished, but some items failed (the rest is published); also a failed
    /// `verify` or a failed upload to the bucket.
    public static let itemsFailed: Int32 = 1
    /// A usage or settings error.
    public static let usage: Int32 = 2
    /// The source could not be crawled, or gave nothing to publish; the mirror is as it was.
    public static let sourceUnavailable: Int32 = 3
    /// The prune guard stopped the run (more deletions than `--max-delete` allows).
    package static let pruneGuard: Int32 = 4
    /// Another sync holds the lock on the mirror (`EX_TEMPFAIL`).
    public static let locked: Int32 = 75
    /// Interrupted (SIGINT or SIGTERM): 128 + SIGINT, as shells report it.
    package static let cancelled: Int32 = 130
}
