/// The stage a `StageError` belongs to: a type with no values, which keeps each stage's codes
/// apart (a store code cannot make a markup error).
public protocol ErrorStage: Sendable {}

/// A stage's failure: what kind (`code`), and one line saying what happened, to what, and what
/// to do. `StoreError`, `MarkupError` and the crawl's error are this one type, each with a
/// stage of its own.
///
/// A struct over a code rather than an enum, as async-http-client's errors are, so codes can be
/// added without breaking anyone who switches over them.
public struct StageError<Stage: ErrorStage>: Error, Sendable, CustomStringConvertible {
    /// The kind of a failure of the stage; each stage declares its codes in an extension.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The kebab-case name of the code.
        package let name: String

        /// The code named `name` (kebab-case).
        package init(_ name: String) { self.name = name }

        /// The kebab-case name of the code.
        public var description: String { name }
    }

    /// What kind of failure it is.
    public let code: Code
    /// One line: what happened, to what, and what to do.
    public let message: String

    /// An error of `code` with this one-line `message`.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The one-line `message`.
    public var description: String { message }
}
