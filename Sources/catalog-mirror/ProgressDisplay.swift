import CatalogMirror
import Foundation

/// The live progress line on a terminal: redrawn four times a second from the run's counters,
/// erased when the run ends.
struct ProgressDisplay {
    let board: ProgressBoard

    func run() async {
        while !Task.isCancelled {
            draw(Self.line(board.snapshot, now: Date()))
            try? await Task.sleep(for: .milliseconds(250))
        }
        draw("")
    }

    private func draw(_ line: String) {
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
    }

    static func line(_ snapshot: ProgressSnapshot, now: Date) -> String {
        let elapsed = max(0.001, now.timeIntervalSince(snapshot.startedAt))
        let rate = Double(snapshot.bytes) / elapsed
        var parts = [
            "pages \(snapshot.pagesCrawled)",
            "keys \(snapshot.keysFound) (\(snapshot.accepted) accepted, \(snapshot.rejected) rejected)",
            "downloaded \(snapshot.downloaded)",
            "memory hits \(snapshot.memoryHits)",
            "disk hits \(snapshot.diskHits)",
            String(format: "%.1f MB, %.1f MB/s", Double(snapshot.bytes) / 1e6, rate / 1e6),
        ]
        if snapshot.failed > 0 { parts.insert("failed \(snapshot.failed)", at: 3) }
        return parts.joined(separator: " · ")
    }
}
