/// Why a request did not produce a usable response: the manifest reason plus a detail line.
public struct FetchFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The manifest reason (`http-503`, `timeout`, `out-of-scope`, ...).
    public var reason: RejectionReason
    /// What happened, for warnings and the report.
    public var detail: String

    /// A failure for `reason`, with `detail` saying what happened and to which URL.
    init(_ reason: RejectionReason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String { "\(reason): \(detail)" }
}
