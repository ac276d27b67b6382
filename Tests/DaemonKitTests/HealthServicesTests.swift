import DaemonKit
import DaemonKitTesting
import InMemoryLogging
import Logging
import PriceCore
import Synchronization
import Testing
import TestClocks

/// The freshness monitor and the watchdog on a ManualClock, with a recording notifier in place
/// of systemd's socket and the publisher's lines recorded in place of the socket's watchers.
@Suite("Freshness monitor and watchdog on a ManualClock")
struct HealthServicesTests {
    @Test func withNoServiceManagerNoStatusIsMade() throws {
        let clock = ManualClock()
        let made = Mutex(0)
        for active in [false, true] {
            let notifier = RecordingNotifier(isActive: active)
            let health = DaemonHealth(notifier: notifier, watchdogInterval: nil, clock: clock)
            health.reportStatus(kind: .fresh) {
                made.withLock { $0 += 1 }
                return DaemonStatus(kind: .fresh, text: "100 USD via binance")
            }
            #expect(notifier.statusCount == (active ? 1 : 0), "listening: \(active), statuses sent: \(notifier.statusCount)")
        }
        #expect(made.withLock { $0 } == 1, "the text is made only for the notifier that listens")
    }

    @Test func aQuoteGoingStaleIsOneWarningOneBroadcastAndStatusAtMostOnceASecond() async throws {
        let (board, clock, _) = makeBoard(staleAfter: .seconds(10))
        let notifier = RecordingNotifier()
        let logs = InMemoryLogHandler()
        let health = DaemonHealth(notifier: notifier, watchdogInterval: nil, clock: clock)
        let logger = Logger(label: "btcpriced") { _ in logs }
        let lines = Mutex<[String]>([])
        let intake = makeIntake(board, health: health, logger: logger) { line in lines.withLock { $0.append(line) } }
        let monitor = FreshnessMonitor(intake: intake, logger: logger)
        intake.accept(CycleReport(reading: PolledReading(dated: quote("100")), failureSummary: nil, nextCycleIn: .seconds(1)))
        #expect(lines.withLock { $0.count } == 1, "the quote itself went out")
        let task = Task { try await monitor.run() }
        defer { task.cancel() }
        #expect(await clock.waitForSleepers(1))

        clock.advance(by: .seconds(9))
        #expect(await clock.waitForSleepers(1))
        #expect(notifier.statusCount == 1 && lines.withLock { $0.count } == 1, "nothing more to say while fresh")
        clock.advance(by: .milliseconds(1001))  // just past the limit
        #expect(await clock.waitForSleepers(1))
        let sent = lines.withLock { $0 }
        #expect(sent.count == 2 && sent.last?.contains(#""state":"stale""#) == true, "watchers hear of it at once: \(sent)")
        #expect(notifier.statuses.withLock { $0 }.last?.hasPrefix("STALE") == true)
        for _ in 0..<600 {
            clock.advance(by: .milliseconds(100))
            #expect(await clock.waitForSleepers(1))
        }
        let updates = notifier.statusCount
        #expect(updates >= 55 && updates <= 62, "\(updates) STATUS= lines in a minute of staleness: the age, about once a second")
        let warnings = logs.entries.filter { $0.level == .warning }.map { "\($0.message)" }
        #expect(warnings == ["the quote is stale: older than 10s"], "one line for the change, not one per check")
        #expect(lines.withLock { $0.count } == 2, "and one line to watchers")
    }

    /// Nobody watches, so the stream is read once a second: a trade that waits in the kernel as
    /// the quote's age reaches the limit is read within that second, and the monitor judges the
    /// quote only after it, so it never calls stale what the stream held.
    @Test func theMonitorJudgesTheQuoteOnlyOnceTheStreamHadItsRead() async throws {
        let (board, clock, _) = makeBoard(staleAfter: .seconds(10))
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "btcpriced") { _ in logs }
        let intake = makeIntake(board, logger: logger)
        var monitor = FreshnessMonitor(intake: intake, logger: logger)
        monitor.readLag = .seconds(1)
        intake.stream(quote("100"))
        let task = Task { try await monitor.run() }
        defer { task.cancel() }
        #expect(await clock.waitForSleepers(1))

        // The trade arrives at 9.5 s; the paced read takes it at 10.4 s, past the limit.
        clock.advance(by: .milliseconds(10_400))
        intake.stream(quote("101"))
        clock.advance(by: .milliseconds(601))
        #expect(await clock.waitForSleepers(1))
        #expect(board.freshness().state == .fresh, "\(board.freshness().state)")
        var warnings = logs.entries.filter { $0.level == .warning }.map { "\($0.message)" }
        #expect(warnings.isEmpty, "nothing stale while the stream held a trade: \(warnings)")

        // Nothing more arrives: stale once the age passes the limit and the read had its second.
        clock.advance(by: .seconds(10))
        #expect(await clock.waitForSleepers(1))
        warnings = logs.entries.filter { $0.level == .warning }.map { "\($0.message)" }
        #expect(warnings.isEmpty, "not before the read had its second: \(warnings)")
        clock.advance(by: .seconds(1))
        #expect(await clock.waitForSleepers(1))
        warnings = logs.entries.filter { $0.level == .warning }.map { "\($0.message)" }
        #expect(warnings == ["the quote is stale: older than 10s"], "\(warnings)")
    }

    @Test func theWatchdogIsFedWhileCyclesCompleteAndStarvedWhenTheyStop() async throws {
        let clock = ManualClock(), notifier = RecordingNotifier()
        let health = DaemonHealth(notifier: notifier, watchdogInterval: .seconds(2), clock: clock)
        let task = Task { try await WatchdogService(health: health).run() }
        defer { task.cancel() }
        #expect(health.watchdogPingPeriod == .seconds(1))
        #expect(await clock.waitForSleepers(1))
        for _ in 0..<10 {
            health.cycleCompleted()
            clock.advance(by: .seconds(1))
            #expect(await clock.waitForSleepers(1))
        }
        #expect(notifier.pingCount == 11, "a ping each period while the fetch loop makes progress")
        for _ in 0..<5 {
            clock.advance(by: .seconds(1))
            #expect(await clock.waitForSleepers(1))
        }
        #expect(notifier.pingCount == 12, "one more within the interval, then none: systemd restarts a stuck loop")
    }
}
