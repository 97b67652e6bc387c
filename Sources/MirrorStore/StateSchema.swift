import GRDB
import MirrorCore

/// The schema of the index (`StateDatabase`): one migration per version, applied in order on
/// open. A version, once released, is never edited; a change is a new migration.
enum StateSchema {
    /// The schema, created once; the first version also takes in the JSON state of mirrors
    /// written before the database existed (`LegacyState`), in the same transaction.
    static func migrator(_ layout: MirrorLayout) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE image (
                        key TEXT PRIMARY KEY NOT NULL,
                        fileName TEXT NOT NULL,
                        sha256 TEXT NOT NULL,
                        bytes INTEGER NOT NULL,
                        contentType TEXT NOT NULL,
                        etag TEXT,
                        lastModified TEXT,
                        firstSeen REAL NOT NULL,
                        lastChecked REAL NOT NULL,
                        stagedName TEXT
                    );
                    CREATE INDEX image_fileName ON image(fileName);
                    CREATE INDEX image_staged ON image(stagedName) WHERE stagedName IS NOT NULL;
                    """)
            // The legacy rows, in the columns of v1 (the next migrations add the others).
            let names = v1Columns.map(\.rawValue)
            let statement = try db.makeStatement(
                sql: "INSERT OR REPLACE INTO image (\(names.joined(separator: ", "))) VALUES (:\(names.joined(separator: ", :")))"
            )
            for image in LegacyState.images(layout) {
                let values: [String: (any DatabaseValueConvertible)?] = try image.databaseDictionary.filter {
                    names.contains($0.key)
                }
                try statement.execute(arguments: StatementArguments(values))
            }
        }
        // When each file's content last changed as it was stored (`StoredImage.fileModified`).
        migrator.registerMigration("v2") { db in
            try db.execute(sql: "ALTER TABLE image ADD COLUMN fileModified INTEGER")
        }
        // Each image's size in pixels (`StoredImage.dimensions`), so a 304 keeps it; a row
        // from before has none until its next confirmation reads the file's header.
        migrator.registerMigration("v3") { db in
            try db.execute(sql: "ALTER TABLE image ADD COLUMN width INTEGER; ALTER TABLE image ADD COLUMN height INTEGER")
        }
        // What each file says about itself (`StoredImage.embedded`, as `EmbeddedMetadata.indexText`
        // writes it), so a 304 keeps it; a row from before has none until its next confirmation
        // reads the file's header blocks.
        migrator.registerMigration("v4") { db in
            try db.execute(sql: "ALTER TABLE image ADD COLUMN embedded TEXT")
        }
        // The perceptual signature of each image's pixels (`StoredImage.fingerprint`), once it was
        // compared with another rendition of its photo; a row from before has none until then.
        migrator.registerMigration("v5") { db in
            try db.execute(sql: "ALTER TABLE image ADD COLUMN fingerprint TEXT")
        }
        // The keys rejected as decoration by their icon's size, known only from their files:
        // the next run rejects them again without a request (`StateDatabase.iconKeys`); and
        // what the pixels said of each pair of images compared, with the bytes compared, so a
        // later run answers a pair whose bytes did not change without decoding either
        // (`StateDatabase.pixelAnswers`).
        migrator.registerMigration("v6") { db in
            try db.execute(sql: "CREATE TABLE icon (key TEXT PRIMARY KEY NOT NULL)")
            try db.execute(
                sql: """
                    CREATE TABLE pixelPair (
                        first TEXT NOT NULL, second TEXT NOT NULL, firstSHA256 TEXT NOT NULL,
                        secondSHA256 TEXT NOT NULL, matches INTEGER NOT NULL, PRIMARY KEY (first, second))
                    """)
        }
        return migrator
    }

    /// The columns of the first version's table.
    private static let v1Columns: [StoredImage.Columns] = [
        .key, .fileName, .sha256, .bytes, .contentType, .etag, .lastModified, .firstSeen, .lastChecked, .stagedName,
    ]
}
