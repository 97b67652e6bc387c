/// Why a request did not produce a usable response: the manifest reason plus a detail line.
package struct FetchFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The manifest reason (`http-503`, `timeout`, `out-of-scope`, ...).
    package var reason: RejectionReason
    /// What happened, for warnings and the report.
    package var detail: String
    /// The mirror's own disk failed (a download could not be written: full, read-only, out of
    /// quota), not the source: every other download would fail the same way, so the run stops
    /// (`ImageLoader.Outcome.storeFailed`) instead of failing key after key.
    package var isLocalWrite = false

    /// A failure for `reason`, with `detail` saying what happened and to which URL.
    package init(_ reason: RejectionReason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// A failure to write a download into `path` of the mirror (the disk's error, `cause`).
    package static func localWrite(_ path: String, _ cause: any Error) -> FetchFailure {
        var failure = FetchFailure(
            .networkError,
            "cannot write \(path): \(cause) (check the permissions and free space of the mirror directory, then run sync again)")
        failure.isLocalWrite = true
        return failure
    }

    package var description: String { "\(reason): \(detail)" }
}
