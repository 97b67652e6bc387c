import Synchronization

/// Cuts off requests that run past their deadline, for every request of a session at once.
///
/// One watchdog task wakes every `tick` while requests are under way and cancels those whose
/// time is up; the request then ends with a `timeout` failure. This replaced a sleeping child
/// task per request: a cancelled `Task.sleep` leaves its dispatch timer armed until the
/// deadline would have passed, so every request of a run kept a timer and its task alive
/// and paid for a task group and a timer besides.
final class DeadlineWatchdog: Sendable {
    /// How often deadlines are checked; a request overruns its deadline by at most this much.
    let tick: Duration

    private struct Watched {
        var started: ContinuousClock.Instant
        var deadline: Duration
        var clock: TransferClock?
        var meter: TransferMeter?
        var cancel: @Sendable () -> Void
    }

    private struct State {
        var watched: [UInt64: Watched] = [:]
        var expired: Set<UInt64> = []
        var nextID: UInt64 = 0
        var isRunning = false
    }

    private let state = Mutex(State())

    init(tick: Duration = .milliseconds(50)) {
        self.tick = tick
    }

    /// Runs `operation` in its own task, cancelled when `deadline` has passed (not counting the
    /// time `clock` was paused), when `meter` finds the transfer too slow for too long, or when
    /// the caller is cancelled. Returns nil when the deadline or the meter cut it off, else what
    /// it returned.
    func run<T: Sendable>(
        deadline: Duration, clock: TransferClock? = nil, meter: TransferMeter? = nil,
        _ operation: @escaping @Sendable () async -> T
    ) async -> T? {
        let task = Task { await operation() }
        let id = watch(deadline: deadline, clock: clock, meter: meter) { task.cancel() }
        let value = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        return unwatch(id) ? nil : value
    }

    private func watch(
        deadline: Duration, clock: TransferClock?, meter: TransferMeter?, cancel: @escaping @Sendable () -> Void
    ) -> UInt64 {
        let (id, start) = state.withLock { state -> (UInt64, Bool) in
            state.nextID += 1
            state.watched[state.nextID] = Watched(
                started: .now, deadline: deadline, clock: clock, meter: meter, cancel: cancel)
            let start = !state.isRunning
            state.isRunning = true
            return (state.nextID, start)
        }
        if start { Task { await self.patrol() } }
        return id
    }

    /// Stops watching `id`; true when its deadline had already cut it off.
    private func unwatch(_ id: UInt64) -> Bool {
        state.withLock { state in
            state.watched[id] = nil
            return state.expired.remove(id) != nil
        }
    }

    /// Wakes every tick while anything is watched; cancels what is over time. Ends when nothing
    /// is left, so an idle session has no task and no timer.
    private func patrol() async {
        var lastWake = ContinuousClock.now
        while true {
            try? await Task.sleep(for: tick)
            let now = ContinuousClock.now
            // A wake-up far behind its tick means this process got no CPU (a loaded machine):
            // our readers were starved too, so that stretch says nothing about the server's speed.
            let starved = now - lastWake > tick + .milliseconds(500)
            lastWake = now
            let (overdue, idle) = state.withLock { state -> ([@Sendable () -> Void], Bool) in
                var overdue: [@Sendable () -> Void] = []
                for (id, watched) in state.watched where !state.expired.contains(id) {
                    let paused = watched.clock?.paused ?? .zero
                    let used = now - watched.started - paused
                    let slow = watched.meter?.check(now: now, pausedTotal: paused, starved: starved) ?? false
                    if used >= watched.deadline || slow {
                        state.expired.insert(id)
                        overdue.append(watched.cancel)
                    }
                }
                if state.watched.isEmpty { state.isRunning = false }
                return (overdue, state.watched.isEmpty)
            }
            for cancel in overdue { cancel() }
            if idle { return }
        }
    }
}
