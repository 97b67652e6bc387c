extension RunReport {
    /// What a run sent to its bucket (`--publish`).
    public struct BucketUpload: Codable, Sendable, Equatable {
        /// `s3://bucket/prefix/`.
        public var target: String
        /// Objects uploaded (new or changed since the bucket was last written).
        public var uploaded: Int
        /// Objects deleted (no longer published).
        public var deleted: Int

        /// The counts of one publish.
        public init(target: String, uploaded: Int, deleted: Int) {
            (self.target, self.uploaded, self.deleted) = (target, uploaded, deleted)
        }
    }
}
