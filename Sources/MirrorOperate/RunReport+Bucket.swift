extension RunReport {
    /// What a run sent to its bucket (`--publish`).
    package struct BucketUpload: Codable, Sendable, Equatable {
        /// `s3://bucket/prefix/`.
        package var target: String
        /// Objects uploaded (new or changed since the bucket was last written).
        package var uploaded: Int
        /// Objects deleted (no longer published).
        package var deleted: Int

        /// The counts of one publish.
        package init(target: String, uploaded: Int, deleted: Int) {
            (self.target, self.uploaded, self.deleted) = (target, uploaded, deleted)
        }
    }
}
