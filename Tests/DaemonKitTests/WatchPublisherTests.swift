import DaemonKit
import DaemonKitTesting
import PriceCore
import Synchronization
import TestClocks
import Testing

/// Coalescing `watch` lines to the publish interval, on a manual clock.
@Suite("Watch publisher: at most one line per interval, the newest, state changes at once")
struct WatchPublisherTests {
    final class Lines: Sendable {
        private let all = Mutex<[String]>([])
        func append(_ line: String) { all.withLock { $0.append(line) } }
        var prices: [String] {
            all.withLock { $0.map { line in String(line.split(separator: "\"")[3]) } }
        }
        var count: Int { all.withLock { $0.count } }
    }

    @Test func tradesWithinAnIntervalAreHeldAndOnlyTheNewestIsSent() async throws {
        let (board, clock, _) = makeBoard()
        let lines = Lines()
        // The flush's task runs when the test says: each step is complete before the next.
        let executor = ManualExecutor()
        let publisher = WatchPublisher(board: board, interval: .milliseconds(250), executor: executor, audience: .watched()) { lines.append($0) }
        let intake = makeIntake(board, publisher: publisher)
        intake.stream(quote("100.1"))
        #expect(lines.prices == ["100.1"], "the first goes out at once")
        clock.advance(by: .milliseconds(100))
        intake.stream(quote("100.2"))
        clock.advance(by: .milliseconds(100))
        intake.stream(quote("100.3"))
        executor.runUntilIdle()
        #expect(lines.prices == ["100.1"], "held inside the interval")
        #expect(clock.sleeperCount == 1, "one flush sleeps until the interval ends")
        clock.advance(by: .milliseconds(50))
        executor.runUntilIdle()
        #expect(lines.prices == ["100.1", "100.3"], "one line at the end of the interval, the newest")
        clock.advance(by: .milliseconds(300))
        intake.stream(quote("100.4"))
        #expect(lines.prices == ["100.1", "100.3", "100.4"], "after a quiet interval, at once again")
    }

    /// Reads fall on the interval's grid, each a little late: one that comes just short of an
    /// interval after the last line sends its line at once, not through a flush of its own a
    /// fraction of a millisecond later.
    @Test func aReadJustShortOfAnIntervalAfterTheLastLineSendsAtOnce() async throws {
        let (board, clock, _) = makeBoard()
        let lines = Lines()
        let publisher = WatchPublisher(board: board, interval: .milliseconds(250), audience: .watched()) { lines.append($0) }
        let intake = makeIntake(board, publisher: publisher)
        intake.stream(quote("100.1"))
        clock.advance(by: .microseconds(249_800))
        intake.stream(quote("100.2"))
        #expect(lines.prices == ["100.1", "100.2"], "sent at once, 249.8 ms after the last: \(lines.prices)")
        clock.advance(by: .milliseconds(200))
        intake.stream(quote("100.3"))
        #expect(lines.prices == ["100.1", "100.2"], "200 ms after the last is held: \(lines.prices)")
    }

    /// A held line may end up to an interval late, so that on the daemon's clock its flush ends
    /// on the wakeup grid, with a stream's read, and the lines after it go out with the reads.
    @Test func aHeldLineMayWaitForTheWakeupGrid() async throws {
        let (_, clock, wallClock) = makeBoard()
        let observed = ObservedClock(clock)
        let executor = ManualExecutor()
        let lines = holdALine(on: observed, wallClock: wallClock, advancing: clock, executor: executor)
        executor.runUntilIdle()
        #expect(observed.tolerances == [.milliseconds(250)], "\(observed.tolerances)")
        clock.advance(by: .milliseconds(150))
        executor.runUntilIdle()
        #expect(lines.prices == ["100.1", "100.2"])
    }

    @Test func aHeldLineIsFlushedOnTheGivenExecutor() async throws {
        let (board, clock, _) = makeBoard()
        let lines = Lines()
        let executor = CountingExecutor()
        let publisher = WatchPublisher(board: board, interval: .milliseconds(250), executor: executor, audience: .watched()) { lines.append($0) }
        let intake = makeIntake(board, publisher: publisher)
        intake.stream(quote("100.1"))
        clock.advance(by: .milliseconds(100))
        intake.stream(quote("100.2"))
        // The counting executor runs each job as it is enqueued: the flush sleeps at once,
        // and goes out within the advance that ends its sleep.
        clock.advance(by: .milliseconds(150))
        #expect(lines.prices == ["100.1", "100.2"], "the held line went out at the end of the interval")
        #expect(executor.jobs >= 2, "the flush ran on the watchers' executor: \(executor.jobs) jobs enqueued there")
    }

    @Test func withNoWatcherNoLineIsMade() async throws {
        let (board, clock, _) = makeBoard()
        let lines = Lines()
        let audience = WatchAudience()
        let publisher = WatchPublisher(board: board, interval: .milliseconds(250), audience: audience) { lines.append($0) }
        let intake = makeIntake(board, publisher: publisher)
        intake.stream(quote("100.1"))
        let untouched = board.current
        clock.advance(by: .milliseconds(300))
        intake.stream(quote("100.2"))
        #expect(lines.count == 0, "nobody watches: nothing is broadcast")
        let afterTwoTrades = board.current
        #expect(afterTwoTrades !== untouched && afterTwoTrades.quote?.price.description == "100.2", "the board still serves the newest trade on request")
        audience.joined()
        clock.advance(by: .milliseconds(300))
        intake.stream(quote("100.3"))
        #expect(lines.prices == ["100.3"], "once someone watches, lines go out again")
    }

    /// ManualClock's time, but every sleep fails at once, as EventLoopClock's do while the
    /// daemon's event loop shuts down.
    /// A clock over `base` that records how late each sleep may end; a stopped one fails every
    /// sleep, as the daemon's event loop does while it shuts down.
    final class ObservedClock: Clock, Sendable {
        let base: ManualClock
        let stopped: Bool
        private let sleeps = Mutex((tolerances: [Duration?](), failed: 0))
        init(_ base: ManualClock, stopped: Bool = false) {
            self.base = base
            self.stopped = stopped
        }
        var now: ManualClock.Instant { base.now }
        var minimumResolution: Duration { .zero }
        var tolerances: [Duration?] { sleeps.withLock { $0.tolerances } }
        var failedSleeps: Int { sleeps.withLock { $0.failed } }
        func sleep(until deadline: ManualClock.Instant, tolerance: Duration?) async throws {
            sleeps.withLock { sleeps in
                sleeps.tolerances.append(tolerance)
                if stopped { sleeps.failed += 1 }
            }
            if stopped { throw CancellationError() }
            try await base.sleep(until: deadline, tolerance: tolerance)
        }
    }

    /// Two trades 100 ms apart on a board over `clock` (`manual` moves it): the second's line is held.
    func holdALine(on clock: ObservedClock, wallClock: ManualWallClock, advancing manual: ManualClock,
                   executor: (any TaskExecutor)? = nil) -> Lines {
        let board = makeBoard(clock: clock, wallClock: wallClock)
        let lines = Lines()
        let publisher = WatchPublisher(board: board, interval: .milliseconds(250), executor: executor, audience: .watched()) { lines.append($0) }
        let intake = makeIntake(board, publisher: publisher)
        intake.stream(quote("100.1"))
        manual.advance(by: .milliseconds(100))
        intake.stream(quote("100.2"))
        return lines
    }

    @Test func aLineHeldWhenTheClockStopsIsDroppedNotSent() async throws {
        let (_, clock, wallClock) = makeBoard()
        let stopped = ObservedClock(clock, stopped: true)
        // The held line's task runs on an executor the test drives: once it is idle, the task
        // has ended, and whatever it would send has been sent.
        let executor = ManualExecutor()
        let lines = holdALine(on: stopped, wallClock: wallClock, advancing: clock, executor: executor)
        #expect(executor.runUntilIdle() >= 1, "the held line's task ran")
        #expect(stopped.failedSleeps == 1, "the held line waited for its slot")
        #expect(lines.prices == ["100.1"], "a failed wait sends nothing: the server it would write to is shutting down")
    }

    @Test func aChangeOfTransportOrStateIsNeverHeldBack() async throws {
        let (board, clock, _) = makeBoard()
        let lines = Lines()
        let publisher = WatchPublisher(board: board, interval: .milliseconds(250), audience: .watched()) { lines.append($0) }
        let intake = makeIntake(board, publisher: publisher)
        intake.stream(quote("100.1"))
        clock.advance(by: .milliseconds(10))
        intake.poll(quote("100.5"))
        #expect(lines.prices == ["100.1", "100.5"], "stream to poll goes out at once")
    }

    @Test func zeroSendsEveryUpdate() throws {
        let (board, _, _) = makeBoard()
        let lines = Lines()
        let publisher = WatchPublisher(board: board, interval: .zero, audience: .watched()) { lines.append($0) }
        let intake = makeIntake(board, publisher: publisher)
        for price in ["1.1", "1.2", "1.3"] { intake.stream(quote(price)) }
        #expect(lines.prices == ["1.1", "1.2", "1.3"])
    }
}
