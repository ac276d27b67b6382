import EventLoopScheduling
import NIOCore
import NIOPosix
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

    @Test func aPassedDeadlineReturnsAtOnce() async throws {
        let clock = EventLoopClock(loop)
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)), tolerance: nil)
    }

    @Test func cancellingASleepEndsItWithCancellationError() async throws {
        let clock = EventLoopClock(loop)
        let sleeper = Task { try await clock.sleep(for: .seconds(3600)) }
        try await Task.sleep(for: .milliseconds(20))
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
}
