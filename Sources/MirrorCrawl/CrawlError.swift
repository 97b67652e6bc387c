import MirrorCore

/// The crawl's stage of `StageError`.
package enum CrawlStage: ErrorStage {}

/// The source could not be crawled: the start page could not be fetched or read. The run stops
/// and the mirror is left as it was (exit 3).
package typealias CrawlError = StageError<CrawlStage>

extension StageError.Code where Stage == CrawlStage {
    /// The start page could not be fetched (its `FetchFailure` reason is in the message).
    static var startFailed: Self { Self("start-failed") }
    /// The start document was fetched but is not a page, feed or listing.
    static var startUnreadable: Self { Self("start-unreadable") }
    /// The crawl itself went wrong (a bug, not the source): the message says what.
    package static var internalError: Self { Self("internal") }
}

extension StageError where Stage == CrawlStage {
    /// The start page `source` could not be fetched: the failure, that nothing changed, and the
    /// fix its reason suggests. Certificate, TLS and proxy failures carry their own fix in their
    /// detail (`HTTPSession.failure`), so they get no second one.
    static func startFailed(_ source: CanonicalURL, _ failure: FetchFailure) -> CrawlError {
        let advice = Self.advice(for: failure).map { " (\($0))" } ?? ""
        return CrawlError(
            .startFailed,
            "cannot crawl \(source): \(failure.detail) (\(failure.reason)); the mirror was left as it was\(advice)")
    }

    /// The start document was fetched but cannot be read as a page, feed or listing;
    /// `problem` says so and names its URL.
    static func startUnreadable(_ problem: String) -> CrawlError {
        CrawlError(
            .startUnreadable,
            "\(problem); the mirror was left as it was (check that the URL is the gallery's start page, feed or JSON listing)"
        )
    }

    /// What to try for a start page that failed with `failure`, or nil when its detail says it.
    static func advice(for failure: FetchFailure) -> String? {
        let reason = failure.reason.rawValue
        switch reason {
        case "http-401", "http-403":
            return "if the gallery needs a login, sign in with --netrc, --cookies FILE or --header @FILE"
        case "http-429", "http-503":
            return "the server is busy; try again later"
        case _ where reason.hasPrefix("http-5"):
            return "the server is failing; try again later"
        case _ where reason.hasPrefix("http-"):
            return "check the URL in a browser"
        case "timeout":
            return "the server did not answer in time; try again later (--debug shows each request and its time)"
        case "redirect-loop", "too-many-redirects":
            return "open the URL in a browser and start from the page it ends on"
        case "out-of-scope":
            return "start from the page it redirects to, or add its host with --allow-host"
        case "network-error" where failure.detail.hasPrefix("http"):
            // The generic transport failure ("URL: connection refused"); the certificate, TLS and
            // proxy lines start with "the ..." and name their own fix.
            return "check the host name and that the site is up; behind a proxy, set https_proxy or pass --proxy"
        default:
            return nil
        }
    }
}
