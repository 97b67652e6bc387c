import Foundation
import GRDB
import MirrorCore

/// A stored image is a row of the index's `image` table (`StateSchema`), read and written by
/// column name through GRDB's record protocols.
extension StoredImage: FetchableRecord, PersistableRecord {
    /// The columns of the `image` table, in the order `StateSchema` creates them.
    package enum Columns: String, ColumnExpression, CaseIterable, Sendable {
        /// The key's canonical URL, the primary key.
        case key
        /// The file name inside `images/` (`StoredImage.fileName`).
        case fileName
        /// Hex SHA-256 of the file.
        case sha256
        /// Size in bytes (`StoredImage.byteCount`).
        case bytes
        /// The detected media type.
        case contentType
        /// The response's `ETag`.
        case etag
        /// The response's `Last-Modified`.
        case lastModified
        /// When the key was first published, in seconds since 1970.
        case firstSeen
        /// When the key was last fetched or confirmed, in seconds since 1970.
        case lastChecked
        /// The file's name in `staged/` while it waits for a publish step.
        case stagedName
        /// When the file's content last changed as it was stored (migration v2).
        case fileModified
        /// The image's width in pixels (migration v3).
        case width
        /// The image's height in pixels (migration v3).
        case height
        /// What the file says about itself, as `EmbeddedMetadata.indexText` writes it (migration v4).
        case embedded
        /// The perceptual signature of the pixels, hex (migration v5).
        case fingerprint
    }

    /// The index's table: `image`.
    package static let databaseTableName = "image"

    /// The columns a request selects, by name.
    package static var databaseSelection: [any SQLSelectable] { Columns.allCases }

    /// The image a row describes; throws for a row whose key no current code could have written.
    package init(row: Row) throws {
        guard let image = Self(row: row, known: nil) else {
            throw StoreError(.database, "a row of the index has a key that is not a URL")
        }
        self = image
    }

    /// The image a row describes, or nil for a row no current code could have written. `known`
    /// is the key the row was looked up by: a lookup does not parse its own key again, which
    /// was a large share of a lookup's cost.
    init?(row: Row, known: CanonicalURL?) {
        guard let key = known ?? CanonicalURL(row[Columns.key] as String) else { return nil }
        self.init(
            key: key, fileName: row[Columns.fileName], sha256: row[Columns.sha256], byteCount: row[Columns.bytes],
            contentType: row[Columns.contentType], etag: row[Columns.etag], lastModified: row[Columns.lastModified],
            firstSeen: Date(timeIntervalSince1970: row[Columns.firstSeen]),
            lastChecked: Date(timeIntervalSince1970: row[Columns.lastChecked]), stagedName: row[Columns.stagedName],
            fileModified: row[Columns.fileModified],
            dimensions: (row[Columns.width] as Int?).flatMap { width in
                (row[Columns.height] as Int?).flatMap { ImageDimensions.checked(width: width, height: $0) }
            },
            embedded: (row[Columns.embedded] as String?).flatMap(EmbeddedMetadata.init(indexText:)),
            fingerprint: row[Columns.fingerprint])
    }

    /// Every column's value, in the order of `Columns.allCases`: the one list of what a row
    /// holds, which both `encode(to:)` and the index's batched insert (`insertStatementSQL`)
    /// write from.
    var columnValues: [(any DatabaseValueConvertible)?] {
        [
            key.string, fileName, sha256, byteCount, contentType, etag, lastModified, firstSeen.timeIntervalSince1970,
            lastChecked.timeIntervalSince1970, stagedName, fileModified, dimensions?.width, dimensions?.height,
            embedded?.indexText, fingerprint,
        ]
    }

    /// `INSERT OR REPLACE` of every column, prepared once a connection: GRDB's `insert` built
    /// its statement again for every row, a third of the index's share of a cold sync.
    static let insertStatementSQL =
        "INSERT OR REPLACE INTO image (\(Columns.allCases.map(\.rawValue).joined(separator: ", ")))"
        + " VALUES (\(repeatElement("?", count: Columns.allCases.count).joined(separator: ", ")))"

    /// Writes every column of the row.
    package func encode(to container: inout PersistenceContainer) {
        for (column, value) in zip(Columns.allCases, columnValues) { container[column] = value }
    }
}
