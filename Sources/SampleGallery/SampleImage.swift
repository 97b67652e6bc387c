import Foundation

/// One image of the bundled sample gallery.
public struct SampleImage: Sendable {
    public let name: String
    public let price: String
    /// `png`, `jpeg` or `gif`.
    public let format: String
    let base64: String

    /// The image's bytes.
    public var bytes: [UInt8] { Data(base64Encoded: base64).map { Array($0) } ?? [] }
}
