import EventLoopScheduling
import NIOCore
import NIOPosix
import Synchronization
import TestClocks
import Testing

/// The clock the daemon sleeps on: the event loop's timers, ContinuousClock's time.
@Suite("Event loop clock")
struct EventLoopClockTests {
    let loop = MultiThreadedEventLoopGroup.singleton.next()

    @Test func aSleepEndsNoEarlierThanItsDeadline() async throws {
        let clock = EventLoopClock(loop)
        let started = clock.now
        try await clock.sleep(for: .milliseconds(30))
        #expect(started.duration(to: clock.now) >= .milliseconds(30))
    }

    /// On an executor that runs each job as it is enqueued, a task runs within its creation
    /// until it first suspends: done by then means it never waited on a timer.
    @Test func aPassedDeadlineReturnsAtOnce() async throws {
        let clock = EventLoopClock(loop)
        let returned = Mutex(false)
        let sleeper = Task(executorPreference: CountingExecutor()) {
            try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)), tolerance: nil)
            returned.withLock { $0 = true }
        }
        #expect(returned.withLock { $0 }, "returned without suspending: no timer was scheduled")
        try await sleeper.value
    }

    /// The sleeper runs until it suspends on its timer within its creation (see above), so the
    /// cancel reaches a sleep in progress, not one about to start.
    @Test func cancellingASleepEndsItWithCancellationError() async throws {
        let clock = EventLoopClock(loop)
        let started = Mutex(false)
        let sleeper = Task(executorPreference: CountingExecutor()) {
            started.withLock { $0 = true }
            try await clock.sleep(for: .seconds(3600))
        }
        #expect(started.withLock { $0 }, "the sleeper ran to its sleep, an hour's timer, before the cancel")
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func aTaskCancelledBeforeItSleepsDoesNotSleep() async throws {
        let clock = EventLoopClock(loop)
        let sleeper = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(3600))
        }
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func aSleepOnTheLoopsOwnExecutorResumesOnTheLoop() async throws {
        let clock = EventLoopClock(loop)
        let onLoop = await withTaskExecutorPreference(EventLoopExecutor(loop)) {
            try? await clock.sleep(for: .milliseconds(5))
            return loop.inEventLoop
        }
        #expect(onLoop, "the resumed task runs on the loop whose timer fired: no other thread woken")
    }

    /// A cancelled timer that still held the group would hold it for its hour: the limit catches it.
    @Test(.timeLimit(.minutes(1))) func aTimeoutRaceEndsWhenTheWorkFinishesNotWhenTheTimerWould() async throws {
        let clock = EventLoopClock(loop)
        let winner = await withTaskGroup(of: String.self) { group in
            group.addTask { (try? await clock.sleep(for: .seconds(3600))) == nil ? "cancelled" : "timeout" }
            group.addTask { "work" }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        #expect(winner == "work")
    }

    /// A sleep that may be a whole period late ends on the grid, where the paced reads and the
    /// other such timers end too: one wakeup for all of them.
    @Test func aTolerantSleepEndsOnTheWakeupGridAndAStrictOneWhenDue() async throws {
        let grid = try #require(WakeupGrid(period: .milliseconds(100)))
        let clock = EventLoopClock(loop, grid: grid)
        let due = NIODeadline.now() + .milliseconds(30)
        try await clock.sleep(for: .milliseconds(30), tolerance: .milliseconds(100))
        let woke = NIODeadline.now()
        #expect(woke >= grid.point(atOrAfter: due), "woke at \(woke.uptimeNanoseconds), grid point \(grid.point(atOrAfter: due).uptimeNanoseconds)")
        let strictDue = NIODeadline.now() + .milliseconds(30)
        try await clock.sleep(for: .milliseconds(30), tolerance: .milliseconds(99))
        #expect(NIODeadline.now() >= strictDue, "a tolerance under one period keeps the sleep's own deadline")
    }
}

/// Where timers that may be late are put: the next point of one process-wide grid.
struct WakeupGridTests {
    @Test func pointsAreMultiplesOfThePeriodOnTheMonotonicClock() throws {
        let grid = try #require(WakeupGrid(period: .milliseconds(250)))
        let ms: (Int64) -> NIODeadline = { .uptimeNanoseconds(UInt64($0) * 1_000_000) }
        #expect(grid.point(atOrAfter: ms(1_000)) == ms(1_000), "a point is its own")
        #expect(grid.point(atOrAfter: ms(1_001)) == ms(1_250))
        #expect(grid.point(after: ms(1_000)) == ms(1_250), "after a read on a point, the next one")
        #expect(grid.deadline(ms(1_010), tolerance: .milliseconds(250)) == ms(1_250))
        #expect(grid.deadline(ms(1_010), tolerance: .milliseconds(249)) == ms(1_010), "not a whole period: when due")
        #expect(grid.deadline(ms(1_010), tolerance: nil) == ms(1_010))
        #expect(WakeupGrid(period: .zero) == nil, "BTCPRICED_PUBLISH_INTERVAL=0: no grid")
    }
}
