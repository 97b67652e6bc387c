/// A running count (or total) published on an `AsyncStream`, at most once per `interval`: the
/// first change at once, the latest one when `finish()` ends the stream.
///
/// A count changes once per image, and every `yield` to a waiting reader resumes its task
/// (often waking a thread) to set a number a display reads four times a second: for the disk
/// hits of a no-op re-sync that was a hop and a wake-up per image, and the same for the
/// downloads of a cold crawl.
package struct CountStream<Value: Sendable & Equatable> {
    /// The counts, for a display; buffered newest only.
    package let stream: AsyncStream<Value>
    /// Ends the stream without a last count (for a `deinit`, which cannot mutate).
    package let continuation: AsyncStream<Value>.Continuation
    private(set) var value: Value
    private var published: Value
    private var publishedAt: ContinuousClock.Instant?
    private let interval: Duration

    package init(_ initial: Value, interval: Duration = .milliseconds(50)) {
        (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        value = initial
        published = initial
        self.interval = interval
    }

    /// Changes the count, and publishes it unless it was published less than `interval` ago.
    package mutating func update(_ change: (inout Value) -> Void) {
        change(&value)
        let now = ContinuousClock.now
        if let publishedAt, publishedAt.duration(to: now) < interval { return }
        publishedAt = now
        published = value
        continuation.yield(value)
    }

    /// Publishes the count if it changed since it was last published, and ends the stream.
    package mutating func finish() {
        if published != value {
            published = value
            continuation.yield(value)
        }
        continuation.finish()
    }
}

extension CountStream where Value == Int {
    /// A count from zero.
    package init(interval: Duration = .milliseconds(50)) {
        self.init(0, interval: interval)
    }

    package mutating func increment() {
        update { $0 += 1 }
    }
}
