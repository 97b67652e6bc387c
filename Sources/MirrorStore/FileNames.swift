import MirrorCore

/// The namespace of file names in `images/`: which name a new file gets. A name is free when no
/// other key's row holds it, written (`RowIndex.isTaken`) or still queued
/// (`RowIndex.unwrittenHolder`); the name itself is `FileNamer`'s, with a longer hash for as
/// long as the shorter one is taken.
///
/// A part of `DiskStorage`, on its actor: no call here awaits anything.
@ImageDatabase struct FileNames {
    /// The file names of the rows this run wrote, while `RowIndex.onlyThisRunsRows`.
    private var namedThisRun = KeyFilter()

    nonisolated init() {}

    /// Records that a row this run wrote names `name`: called for every row kept while
    /// `RowIndex.onlyThisRunsRows`.
    mutating func noteNamed(_ name: String) {
        namedThisRun.insert(name)
    }

    /// A name for the file of `request` holding `file` that no other key holds in `rows`.
    func freeName(for request: ImageRequest, file: DownloadedFile, rows: RowIndex) throws(StoreError) -> String {
        var length = 10
        while true {
            let name = FileNamer.fileName(
                key: request.key, title: request.title, sha256: file.sha256, format: file.format, hashLength: length)
            if length >= 64 { return name }
            if let holder = rows.unwrittenHolder(of: name), holder != request.key {
                length += 4
                continue
            }
            // Every row is this run's: a name none of them may hold is free, without a query
            // (a `stat` of the name in `images/` cost as much as the query).
            if rows.onlyThisRunsRows, !namedThisRun.mayContain(name) { return name }
            if try !rows.isTaken(name, byOtherThan: request.key) { return name }
            length += 4
        }
    }
}
