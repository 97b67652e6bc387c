import Foundation

/// One image of the bundled sample gallery.
struct SampleImage: Sendable {
    let name: String
    let price: String
    /// `png`, `jpeg` or `gif`.
    let format: String
    let base64: String

    /// The image's bytes.
    var bytes: [UInt8] { Data(base64Encoded: base64).map { Array($0) } ?? [] }
}
