/// `--max-delete`: how many items of the previous manifest one run may delete, as a count or a
/// percentage of the previous manifest's items.
public enum DeleteLimit: Sendable, Equatable, CustomStringConvertible, Codable {
    /// At most this many items.
    case count(Int)
    /// At most this percentage (0–100) of the previous manifest's items.
    case percent(Int)

    /// The default: half of the previous manifest.
    public static let `default` = DeleteLimit.percent(50)

    /// Parses `10` or `50%`; nil for anything else (negative, over 100 %, not a number).
    public init?(_ text: String) {
        let trimmed = text.trimmingSpaces
        if trimmed.hasSuffix("%") {
            guard let value = Int(trimmed.dropLast()), (0...100).contains(value) else { return nil }
            self = .percent(value)
        } else {
            guard let value = Int(trimmed), value >= 0 else { return nil }
            self = .count(value)
        }
    }

    /// The limit as `--max-delete` spells it: `10` or `50%`.
    public var description: String {
        switch self {
        case .count(let value): "\(value)"
        case .percent(let value): "\(value)%"
        }
    }

    /// Whether deleting `deletions` of `total` previous items stays within the limit.
    package func allows(_ deletions: Int, of total: Int) -> Bool {
        switch self {
        case .count(let value): deletions <= value
        case .percent(let value): deletions * 100 <= total * value
        }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let limit = DeleteLimit(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a count or percentage: \(text)"))
        }
        self = limit
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
