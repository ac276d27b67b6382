import NIOCore
import Synchronization

/// ContinuousClock's time, with sleeps that are timers on a NIO event loop. The daemon's tasks
/// run on that loop (EventLoopExecutor), so a sleep ending wakes that one thread; a
/// ContinuousClock sleep would first wake the Swift runtime's timer thread, which then wakes
/// the loop: about half the daemon's wakeups at idle. A sleep that may be late by a whole period
/// of `grid` (its `tolerance`) ends on the grid, in the wakeup of the timers and reads there.
public struct EventLoopClock: Clock, Sendable {
    public typealias Instant = ContinuousClock.Instant
    public typealias Duration = Swift.Duration

    let loop: any EventLoop
    let grid: WakeupGrid?

    public init(_ loop: any EventLoop, grid: WakeupGrid? = nil) {
        self.loop = loop
        self.grid = grid
    }

    public var now: Instant { .now }
    public var minimumResolution: Duration { .microseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let delay = Instant.now.duration(to: deadline)
        guard delay > .zero else { return }
        let due = NIODeadline.now() + TimeAmount(delay)
        let fireAt = grid?.deadline(due, tolerance: tolerance) ?? due
        let timer = Mutex(TimerState.unscheduled)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let scheduled = loop.scheduleTask(deadline: fireAt) {}
                scheduled.futureResult.whenComplete { result in
                    continuation.resume(with: result.mapError { _ in CancellationError() })
                }
                let cancelledAlready = timer.withLock { state in
                    guard case .unscheduled = state else { return true }
                    state = .scheduled(scheduled)
                    return false
                }
                if cancelledAlready { scheduled.cancel() }
            }
        } onCancel: {
            let scheduled = timer.withLock { state -> Scheduled<Void>? in
                defer { state = .cancelled }
                guard case .scheduled(let scheduled) = state else { return nil }
                return scheduled
            }
            scheduled?.cancel()
        }
    }

    private enum TimerState {
        case unscheduled
        case scheduled(Scheduled<Void>)
        case cancelled
    }
}
