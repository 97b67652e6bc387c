import Foundation
import MirrorTestSupport
import NIOCore
import Testing

@testable import CatalogMirror
@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorFetch
@testable import MirrorStore

/// The errors that stop a run: the documented exit statuses, and messages of one line that name the
/// input and say what to do.
@Suite("Errors that stop a run")
struct ErrorMessageTests {
    static let source = CanonicalURL("http://gallery.example/trip/")!

    @Test("each kind of stop keeps the exit status docs/reference.md gives it")
    func exitStatuses() {
        let cases: [(MirrorError, MirrorError.Code, Int32)] = [
            (.sourceUnavailable("cannot crawl \(Self.source)"), .sourceUnavailable, 3),
            (.storage("cannot write /m/index.html"), .storage, 1),
            (.cancelled, .cancelled, 130),
            (.pruneGuard(wouldDelete: 9, of: 10, limit: .default), .pruneGuard, 4),
            (.locked(directory: "/m", pid: 42), .locked, 75),
        ]
        for (error, code, status) in cases {
            #expect(error.code == code, "\(error)")
            #expect(error.exitStatus == status, "\(error.code)")
            #expect(error.code != (code == .storage ? .locked : .storage))
        }
    }

    @Test("the prune guard says what it counted, and how to get past it")
    func pruneGuard() {
        let error = MirrorError.pruneGuard(wouldDelete: 11, of: 12, limit: .percent(50))
        #expect(error.deletions == .init(wouldDelete: 11, previous: 12, limit: .percent(50)))
        #expect(error.description.contains("11 of the 12") && error.description.contains("--max-delete 50%"))
        #expect(MirrorError.cancelled.deletions == nil)
    }

    @Test("a message is one line, whatever the underlying library put in it")
    func oneLine() {
        let error = MirrorError.storage("cannot write /m/x: disk\nfull\r\nreally")
        #expect(!error.description.contains { $0.isNewline })
        #expect(error.description == "cannot write /m/x: disk full really")  // "\r\n" is one Character
        #expect(MirrorError.locked(directory: "/srv/m", pid: nil).description.contains("/srv/m"))
        #expect(MirrorError.locked(directory: "/srv/m", pid: 7).description.contains("(PID 7)"))
    }

    @Test(
        "a start page that cannot be fetched names the URL, says nothing changed, and suggests the fix its reason calls for",
        arguments: [
            (RejectionReason.http(404), "http://gallery.example/trip/ answered 404 Not Found", "check the URL"),
            (.http(403), "http://gallery.example/trip/ answered 403 Forbidden", "--netrc"),
            (.http(503), "http://gallery.example/trip/ answered 503 Service Unavailable", "try again later"),
            (.timeout, "http://gallery.example/trip/ timed out", "try again later"),
            (.networkError, "http://gallery.example/trip/: connection refused", "--proxy"),
            (.redirectLoop, "http://gallery.example/trip/ redirects in a loop", "start from the page it ends on"),
        ])
    func startFailed(reason: RejectionReason, detail: String, advice: String) {
        let message = CrawlError.startFailed(Self.source, FetchFailure(reason, detail)).message
        #expect(message.hasPrefix("cannot crawl \(Self.source): \(detail) (\(reason))"), "\(message)")
        #expect(message.contains("the mirror was left as it was"))
        #expect(message.contains(advice), "\(message)")
        #expect(!message.contains { $0.isNewline })
    }

    @Test("a failure whose detail names its own fix (certificates, TLS, proxies) gets no second one")
    func ownAdvice() {
        let detail =
            "the certificate of gallery.example is not signed by an authority in the system's trust store; pass the issuing authority's certificate with --ca-certificate FILE (PEM)"
        let message = CrawlError.startFailed(Self.source, FetchFailure(.networkError, detail)).message
        #expect(message == "cannot crawl \(Self.source): \(detail) (network-error); the mirror was left as it was")
    }

    @Test("socket failures are told in plain words, not in NIO's")
    func socketWords() {
        let refused = HTTPSession.classify(
            IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)"), url: Self.source)
        #expect(refused == FetchFailure(.networkError, "\(Self.source): connection refused"))
        // A host name that resolves to nothing reads "the host name nowhere.invalid was not found"
        // (NIO's UnknownHost cannot be made outside NIO; seen through the binary).
        let other = HTTPSession.classify(CancellationError(), url: Self.source)
        #expect(other.detail == "\(Self.source): cancelled")
    }

    @Test("a held lock names the lock file and its holder, and says to wait, not to delete it")
    func heldLock() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        // flock conflicts between two open files even in one process.
        do {
            let first = try MirrorLock.acquire(layout, create: true)
            defer { withExtendedLifetime(first) {} }
            do {
                _ = try MirrorLock.acquire(layout, create: true)
                Issue.record("a second lock was granted")
            } catch let held as MirrorLock.Held {
                #expect(held.pid == getpid() && held.path == layout.root.path)
                #expect(
                    held.description
                        == "another sync (PID \(getpid())) holds the lock \(layout.lock.path) on \(layout.root.path); wait for it to finish, then run sync again (the lock goes when that process exits)"
                )
            }
        }
        // Released when its holder lets go: the next run gets it.
        #expect(try MirrorLock.acquire(layout, create: true) != nil)
    }

    @Test("a lock that cannot be opened is one line naming the file and what to check")
    func unopenableLock() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        // A directory where the lock file belongs fails the same way for root and for users.
        try FileManager.default.createDirectory(at: layout.lock, withIntermediateDirectories: true)
        #expect {
            _ = try MirrorLock.acquire(layout, create: true)
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("cannot open the lock file \(layout.lock.path): ")
                && message.hasSuffix("(it must be a file this user may write; check its type and permissions)")
                && !message.contains { $0.isNewline }
        }
    }
}
