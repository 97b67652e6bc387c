import Foundation
import MirrorCore

extension EmbeddedMetadata {
    /// The metadata as the index's `embedded` column holds it: "" for a file that says nothing
    /// (most of them: no encoder runs for those), else compact JSON with sorted keys.
    var indexText: String {
        guard !isEmpty || problem != nil else { return "" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The metadata the column's `text` holds; nil for text no version wrote (the file is then
    /// read again at its next confirmation).
    init?(indexText text: String) {
        guard !text.isEmpty else {
            self.init()
            return
        }
        guard let decoded = try? JSONDecoder().decode(EmbeddedMetadata.self, from: Data(text.utf8)) else { return nil }
        self = decoded
    }
}
