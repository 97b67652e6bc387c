import Foundation
import Testing

@testable import MirrorCore
@testable import MirrorFetch

/// The transport's own tests: they build against MirrorFetch and MirrorCore alone, with no
/// store, no SQLite and no libexif (Package.swift's `MirrorFetchTests`).
@Suite("Cookies from a Netscape cookies.txt")
struct CookieJarTests {
    static let file = """
        # Netscape HTTP Cookie File
        .example.org\tTRUE\t/\tFALSE\t0\tsession\tabc
        gallery.example.org\tFALSE\t/albums\tFALSE\t0\talbum\tx\ty
        #HttpOnly_gallery.example.org\tFALSE\t/albums/2024\tFALSE\t0\tdeep\t1
        secure.example.org\tFALSE\t/\tTRUE\t0\ttoken\tt
        old.example.org\tFALSE\t/\tFALSE\t1000\tgone\tg
        not a cookie line
        example.com\tFALSE\t/\tFALSE\tsoon\tbad\tb\r

        """

    @Test("each line of seven tab-separated fields is a cookie; comments, blanks and bad lines are skipped")
    func parsing() {
        let jar = CookieJar(parsing: Self.file)
        #expect(jar.cookies.map(\.name) == ["session", "album", "deep", "token", "gone"])
        let session = jar.cookies[0]
        #expect(session.domain == "example.org" && session.includeSubdomains && session.expires == nil)
        // A value may hold a tab: the fields after the sixth are the value.
        #expect(jar.cookies[1].value == "x\ty")
        #expect(jar.cookies[2].httpOnly && jar.cookies[2].path == "/albums/2024")
        #expect(jar.cookies[3].secure)
        #expect(jar.cookies[4].expires == 1000)
    }

    @Test("a request gets the cookies of its host, path, scheme and time, the longest path first")
    func header() throws {
        let jar = CookieJar(parsing: Self.file)
        let now = Date(timeIntervalSince1970: 2000)
        let deep = try #require(CanonicalURL("http://gallery.example.org/albums/2024/a.jpg"))
        #expect(jar.header(for: deep, now: now) == "deep=1; album=x\ty; session=abc")
        // A sibling path that only starts with the cookie's path does not match it.
        let sibling = try #require(CanonicalURL("http://gallery.example.org/albumsx/a.jpg"))
        #expect(jar.header(for: sibling, now: now) == "session=abc")
        // A secure cookie goes over HTTPS only; of equal paths, the one listed first comes first.
        #expect(jar.header(for: try #require(CanonicalURL("http://secure.example.org/")), now: now) == "session=abc")
        #expect(
            jar.header(for: try #require(CanonicalURL("https://secure.example.org/")), now: now)
                == "session=abc; token=t")
        // An expired cookie is not sent; a host of another domain gets nothing.
        #expect(jar.header(for: try #require(CanonicalURL("http://old.example.org/")), now: now) == "session=abc")
        #expect(jar.header(for: try #require(CanonicalURL("http://example.com/")), now: now) == nil)
        #expect(jar.header(for: try #require(CanonicalURL("http://notexample.org/")), now: now) == nil)
    }

    @Test("a cookies file that cannot be read is one line naming it")
    func unreadable() {
        #expect(throws: RequestIdentity.Error.self) { try CookieJar(file: "/nonexistent/cookies.txt") }
        do {
            _ = try CookieJar(file: "/nonexistent/cookies.txt")
        } catch {
            #expect(error.description.contains("/nonexistent/cookies.txt"))
            #expect(!error.description.contains("\n"))
        }
    }
}

@Suite("The low-speed limit")
struct TransferMeterTests {
    @Test("a transfer slower than the limit for the whole duration stalls; a fast or paused one does not")
    func stalls() {
        let start = ContinuousClock.now
        let slow = TransferMeter(limit: LowSpeedLimit(bytesPerSecond: 1000, duration: .seconds(3)))
        slow.begin(at: start)
        var stalled = false
        for second in 1...4 {
            slow.add(100)
            stalled = slow.check(now: start + .seconds(second))
        }
        #expect(stalled && slow.isStalled)

        let fast = TransferMeter(limit: LowSpeedLimit(bytesPerSecond: 1000, duration: .seconds(3)))
        fast.begin(at: start)
        for second in 1...6 {
            fast.add(5000)
            #expect(!fast.check(now: start + .seconds(second)))
        }

        // Time spent waiting for the server's pacing (paused) is not slowness.
        let paused = TransferMeter(limit: LowSpeedLimit(bytesPerSecond: 1000, duration: .seconds(3)))
        paused.begin(at: start)
        for second in 1...6 {
            #expect(!paused.check(now: start + .seconds(second), pausedTotal: .seconds(second)))
        }
    }

    @Test("no limit set, or not begun: never stalled")
    func unlimited() {
        let start = ContinuousClock.now
        let off = TransferMeter(limit: LowSpeedLimit(bytesPerSecond: 0, duration: .seconds(1)))
        off.begin(at: start)
        #expect(!off.check(now: start + .seconds(100)))
        let idle = TransferMeter(limit: LowSpeedLimit(bytesPerSecond: 1000, duration: .seconds(1)))
        #expect(!idle.check(now: start + .seconds(100)))
    }
}
