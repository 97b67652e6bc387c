import MirrorCore

/// The source could not be crawled: the start page could not be fetched or read. The run stops
/// and the mirror is left as it was (exit 3).
package struct CrawlError: Error, Sendable, CustomStringConvertible {
    /// The kind of a crawl failure (a struct over a code, as `StoreError.Code`).
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case startFailed = "start-failed", startUnreadable = "start-unreadable", internalError = "internal"
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The start page could not be fetched (its `FetchFailure` reason is in the message).
        static let startFailed = Code(.startFailed)
        /// The start document was fetched but is not a page, feed or listing.
        static let startUnreadable = Code(.startUnreadable)
        /// The crawl itself went wrong (a bug, not the source): the message says what.
        package static let internalError = Code(.internalError)

        /// The kebab-case name of the code.
        package var description: String { base.rawValue }
    }

    /// What kind of failure it is.
    let code: Code
    /// One line: what happened, to which URL, and what to try.
    package let message: String

    /// An error of `code` with this one-line `message`.
    package init(_ code: Code, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    /// The start page `source` could not be fetched: the failure, that nothing changed, and the
    /// fix its reason suggests. Certificate, TLS and proxy failures carry their own fix in their
    /// detail (`HTTPSession.failure`), so they get no second one.
    static func startFailed(_ source: CanonicalURL, _ failure: FetchFailure) -> CrawlError {
        let advice = Self.advice(for: failure).map { " (\($0))" } ?? ""
        return CrawlError(
            .startFailed,
            message: "cannot crawl \(source): \(failure.detail) (\(failure.reason)); the mirror was left as it was\(advice)")
    }

    /// The start document was fetched but cannot be read as a page, feed or listing;
    /// `problem` says so and names its URL.
    static func startUnreadable(_ problem: String) -> CrawlError {
        CrawlError(
            .startUnreadable,
            message:
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
