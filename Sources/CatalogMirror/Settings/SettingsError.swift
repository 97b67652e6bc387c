/// A settings file that exists but cannot be used, or a setting that cannot be (exit 2);
/// nothing is changed.
public struct SettingsError: Error, Sendable, CustomStringConvertible {
    /// One line: what is wrong, in which file or option, and what to do.
    public let message: String
    /// An error with this one-line `message`.
    public init(_ message: String) { self.message = message }
    /// The `message`.
    public var description: String { message }
}
