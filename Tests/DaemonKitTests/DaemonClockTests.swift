import DaemonKit
import Synchronization
import Testing

/// The daemon's concrete clock: ContinuousClock's time, and the wrapped clock's sleeps.
@Suite("Daemon clock: ContinuousClock's time, the wrapped clock's sleeps")
struct DaemonClockTests {
    /// Keeps ContinuousClock's time, records every sleep and ends it at once (or fails it).
    final class RecordingClock: Clock, Sendable {
        typealias Instant = ContinuousClock.Instant
        private let sleeps = Mutex<[(deadline: Instant, tolerance: Duration?)]>([])
        let failing: Bool
        init(failing: Bool = false) { self.failing = failing }
        var now: Instant { .now }
        var minimumResolution: Duration { .milliseconds(3) }
        var recorded: [(deadline: Instant, tolerance: Duration?)] { sleeps.withLock { $0 } }
        func sleep(until deadline: Instant, tolerance: Duration?) async throws {
            sleeps.withLock { $0.append((deadline, tolerance)) }
            if failing { throw CancellationError() }
        }
    }

    @Test func nowIsContinuousClockTime() {
        let clock = DaemonClock(sleepingOn: RecordingClock())
        let before = ContinuousClock.now
        let now = clock.now
        let after = ContinuousClock.now
        #expect(before <= now && now <= after, "\(now) should lie between \(before) and \(after)")
    }

    @Test func sleepsGoToTheWrappedClockWithTheirDeadlineAndTolerance() async throws {
        let base = RecordingClock()
        let clock = DaemonClock(sleepingOn: base)
        let deadline = clock.now.advanced(by: .seconds(5))
        try await clock.sleep(until: deadline, tolerance: .milliseconds(250))
        try await clock.sleep(until: deadline.advanced(by: .seconds(1)), tolerance: nil)
        let recorded = base.recorded
        #expect(recorded.map(\.deadline) == [deadline, deadline.advanced(by: .seconds(1))])
        #expect(recorded.map(\.tolerance) == [.milliseconds(250), nil])
        #expect(clock.minimumResolution == .milliseconds(3), "the wrapped clock's resolution, not \(clock.minimumResolution)")
    }

    @Test func aFailedSleepOfTheWrappedClockFailsTheSleep() async {
        let base = RecordingClock(failing: true)
        let clock = DaemonClock(sleepingOn: base)
        await #expect(throws: CancellationError.self) { try await clock.sleep(until: clock.now.advanced(by: .seconds(1))) }
        #expect(base.recorded.count == 1)
    }
}
