import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorBlocking
@testable import MirrorCore

/// Work that blocks its thread, run on NIO's thread pool and awaited.
@Suite("Blocking work")
struct BlockingWorkTests {
    /// The name of the thread this runs on, as Linux reports it (NIO names the threads of its
    /// singleton pool `SGLTN-TP-#N`); nil where /proc does not say.
    static func threadName() -> String? {
        (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines)
    }

    struct Refused: Error, Equatable {}

    @Test("the body runs on one of NIO's thread-pool threads, and its value comes back")
    func runsOnThePool() async {
        let (value, thread) = await BlockingWork.run { (6 * 7, Self.threadName()) }
        #expect(value == 42)
        if let thread { #expect(thread.contains("TP-#"), "\(thread)") }
    }

    @Test("what the body throws is thrown to the caller, as its own type")
    func throwsTyped() async {
        await #expect(throws: Refused()) {
            try await BlockingWork.run { () throws(Refused) -> Int in throw Refused() }
        }
    }

    @Test("a flush off the thread pool flushes a folder that exists and names one that does not")
    func flush() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        try await FileSystem.flushFileSystemOffThreadPool(containing: directory.url.path)
        let missing = directory.url.appendingPathComponent("missing").path
        do {
            try await FileSystem.flushFileSystemOffThreadPool(containing: missing)
            Issue.record("flushing \(missing) did not throw")
        } catch {
            #expect(error.path == missing)
        }
    }
}
