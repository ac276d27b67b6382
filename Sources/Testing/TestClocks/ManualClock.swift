import PriceCore
import Synchronization

/// A clock that moves only when a test says so, so timeouts and schedules are tested without
/// real sleeping. Sleepers resume in deadline order as `advance(by:)` passes their deadlines.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, CustomStringConvertible {
        public let offset: Duration
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        public var description: String { "t+\(offset)" }
    }

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID = 0
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())
    /// The number of sleepers, for tests that await a count instead of yielding until it holds.
    private let sleeping = Awaitable(0)

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are currently waiting on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) } else { countSleepers() }
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            countSleepers()
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward, waking every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due: [Sleeper] = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        countSleepers()
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// The earliest deadline anyone sleeps until, if anyone sleeps.
    public var nextDeadline: Instant? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    /// Moves time forward to `instant` (never back), waking every sleeper whose deadline has come.
    public func advance(to instant: Instant) {
        advance(by: max(.zero, now.duration(to: instant)))
    }

    /// Read under the count's own lock, so the last of two concurrent changes writes the count
    /// as it stands after both.
    private func countSleepers() {
        sleeping.update { $0 = sleeperCount }
    }

    /// Returns once exactly `count` tasks sleep on this clock: at once if they do, else at the
    /// sleep or wake that makes it so. A test that waits on it carries a time limit.
    public func untilSleepers(_ count: Int) async {
        await sleeping.until { $0 == count }
    }

    /// Waits (by yielding, not sleeping) until `count` tasks sleep on this clock.
    public func waitForSleepers(_ count: Int, maximumYields: Int = 100_000) async -> Bool {
        for _ in 0..<maximumYields {
            if sleeperCount >= count { return true }
            await Task.yield()
        }
        return false
    }
}

/// A wall clock that tests set by hand.
public final class ManualWallClock: WallClock, Sendable {
    private let current: Mutex<Timestamp>

    public init(_ start: Timestamp = Timestamp(millisecondsSinceEpoch: 1_795_276_800_000)) {
        current = Mutex(start)
    }

    public func now() -> Timestamp { current.withLock { $0 } }

    public func advance(milliseconds: Int64) {
        current.withLock { $0 = $0.adding(milliseconds: milliseconds) }
    }
}

/// Jitter that always returns the same value.
public struct FixedJitter: JitterSource {
    public let value: Double
    public init(_ value: Double) { self.value = value }
    public func unitInterval() -> Double { value }
}
