import Foundation
import Logging
import Synchronization

/// Writes each log event as one line on standard error: `catalog-mirror: LEVEL: message`,
/// followed by the event's metadata as `key=value` pairs in key order.
///
/// Written here rather than using swift-log's `StreamLogHandler`, whose lines start with a
/// timestamp and the logger's label: these lines sit between the tool's own warnings and summary
/// (`catalog-mirror: warning: ...`) and read best in the same shape. Line breaks inside a
/// message are replaced by spaces, so one event is always one line (cron mail, `grep`).
struct StandardErrorLogHandler: LogHandler {
    var logLevel: Logger.Level = .notice
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    /// Serializes lines from concurrent tasks, so two events never share a line.
    private static let output = Mutex(FileHandle.standardError)

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let line = Self.line(event, metadata: metadata.merging(event.metadata ?? [:]) { _, new in new })
        Self.output.withLock { $0.write(Data((line + "\n").utf8)) }
    }

    /// The line written for `event` (without its line break).
    static func line(_ event: LogEvent, metadata: Logger.Metadata) -> String {
        var line = "catalog-mirror: \(event.level): \(event.message)"
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { line += " \(key)=\(value)" }
        return String(line.map { $0.isNewline ? " " : $0 })
    }
}
