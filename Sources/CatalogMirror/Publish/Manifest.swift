import Foundation

/// `manifest.json`, exactly as SPEC.md fixes it (`catalog-mirror/manifest@1`).
public struct Manifest: Codable, Sendable, Equatable {
    public static let schemaName = "catalog-mirror/manifest@1"

    /// One published image.
    public struct Item: Codable, Sendable, Equatable {
        public var key: String
        public var path: String
        public var sha256: String
        public var bytes: Int64
        public var contentType: String
        public var title: String?
        public var metadata: [String: String]?
        public var etag: String?
        public var lastModified: String?
        public var firstSeen: Date
        public var lastChecked: Date
    }

    /// One key seen and not published.
    public struct Rejection: Codable, Sendable, Equatable {
        public var key: String
        public var reason: String
    }

    public var schema: String = Manifest.schemaName
    public var source: String
    public var generatedAt: Date
    /// Sorted by key in byte order.
    public var items: [Item]
    /// Sorted by key in byte order.
    public var rejected: [Rejection]

    /// Pretty, key-sorted JSON with second-precision UTC dates: byte-identical for equal input.
    public func encoded() throws -> Data { try JSONCoding.encode(self) }

    /// Reads a manifest; throws with a one-line reason when it is missing, malformed, or of
    /// another schema.
    public static func read(from url: URL) throws -> Manifest {
        let manifest = try JSONCoding.decode(Manifest.self, from: Data(contentsOf: url))
        guard manifest.schema == schemaName else {
            throw StoreError("unknown manifest schema \"\(manifest.schema)\" (expected \(schemaName))")
        }
        return manifest
    }
}

/// RFC 3339 UTC timestamps with second precision, e.g. `2026-11-21T12:00:00Z`.
public enum Timestamp {
    public static func string(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0)
    }

    public static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// `date` with its fractional seconds dropped, so what is written reads back equal.
    public static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }
}
