import Foundation
import MirrorTestSupport
import Testing

@testable import MirrorCore
@testable import MirrorStore
@testable import SampleGallery

/// `Leftovers.discard(in:)`, what `catalog-mirror clean` runs: the downloads a stopped run kept
/// go, the published mirror stays.
@Suite("Leftovers of a stopped run")
struct LeftoversTests {
    @Test("clean refuses a directory that is not a mirror, and a mirror whose lock a sync holds")
    func refusals() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanup() }
        let layout = MirrorLayout(root: directory.url)
        do {
            _ = try await Leftovers.discard(in: layout)
            Issue.record("a directory without .catalog-mirror/ was cleaned")
        } catch {
            #expect(error.code == .notAMirror, "\(error)")
            #expect(error.message.contains("is not a mirror"))
        }
        let lock = try MirrorLock.acquire(layout, create: true)
        do {
            _ = try await Leftovers.discard(in: layout)
            Issue.record("a locked mirror was cleaned")
        } catch {
            #expect(error.code == .inUse, "\(error)")
            #expect(error.message.contains("another sync is running on \(layout.root.path)"))
        }
        withExtendedLifetime(lock) {}
    }
}
