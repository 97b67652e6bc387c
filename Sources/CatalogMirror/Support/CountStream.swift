/// A running count published on an `AsyncStream`, at most once per `interval`: the first
/// change at once, the latest one when `finish()` ends the stream.
///
/// A count changes once per image, and every `yield` to a waiting reader resumes its task
/// (often waking a thread) to set a number a display reads four times a second: for the disk
/// hits of a no-op re-sync that was a hop and a wake-up per image.
struct CountStream {
    /// The counts, for a display; buffered newest only.
    let stream: AsyncStream<Int>
    /// Ends the stream without a last count (for a `deinit`, which cannot mutate).
    let continuation: AsyncStream<Int>.Continuation
    private(set) var value = 0
    private var published = 0
    private var publishedAt: ContinuousClock.Instant?
    private let interval: Duration

    init(interval: Duration = .milliseconds(50)) {
        (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        self.interval = interval
    }

    mutating func increment() {
        value += 1
        let now = ContinuousClock.now
        if let publishedAt, publishedAt.duration(to: now) < interval { return }
        publishedAt = now
        published = value
        continuation.yield(value)
    }

    /// Publishes the count if it changed since it was last published, and ends the stream.
    mutating func finish() {
        if published != value {
            published = value
            continuation.yield(value)
        }
        continuation.finish()
    }
}
