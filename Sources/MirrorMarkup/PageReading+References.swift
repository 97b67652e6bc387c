extension PageReading {
    /// The references a page's reading has made so far, kept in arrays of at most 512 and
    /// made one array once the page's tree is gone (`joined`).
    ///
    /// One array, appended to for every image of a page, doubled as it grew and held its old
    /// and new buffers at once, on top of libxml2's tree of the page, and then up to half its
    /// room unused.
    struct References {
        /// About 90 KB of references: a page of a few hundred images has one chunk, a
        /// 20,000-photo page under a hundred.
        private static let chunkSize = 512
        private var chunks: [[ImageReference]] = []
        /// How many references were appended.
        private(set) var count = 0

        /// Adds `reference` after the others.
        mutating func append(_ reference: ImageReference) {
            if chunks.isEmpty {
                chunks.append([])
            } else if chunks[chunks.count - 1].count == Self.chunkSize {
                // A page that filled a chunk is a large one: the next is made whole at once, not
                // doubled up to its size through smaller buffers that are left behind as garbage.
                var chunk: [ImageReference] = []
                chunk.reserveCapacity(Self.chunkSize)
                chunks.append(chunk)
            }
            chunks[chunks.count - 1].append(reference)
            count += 1
        }

        /// The reference appended `index`-th (from 0).
        subscript(index: Int) -> ImageReference {
            get { chunks[index / Self.chunkSize][index % Self.chunkSize] }
            set { chunks[index / Self.chunkSize][index % Self.chunkSize] = newValue }
        }

        /// Every reference in order, as one array with no room to spare; each chunk is released
        /// once copied, and the list is left empty.
        mutating func joined() -> [ImageReference] {
            var all: [ImageReference] = []
            all.reserveCapacity(count)
            for index in chunks.indices {
                all.append(contentsOf: chunks[index])
                chunks[index] = []
            }
            chunks = []
            count = 0
            return all
        }
    }
}
