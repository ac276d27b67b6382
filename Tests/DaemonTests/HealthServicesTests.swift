import ClientKit
@testable import Daemon
import DaemonKit
import DaemonKitTesting
import Foundation
import InMemoryLogging
import Logging
import NIOPosix
import PriceCore
import SocketServer
import Synchronization
import Testing
import TestClocks

/// The freshness monitor and the watchdog in-process on a ManualClock, with a recording
/// notifier in place of systemd's socket: what used to need wall-time windows in a spawned daemon.
@Suite("Freshness monitor and watchdog in-process on a ManualClock")
struct HealthServicesTests {
    @Test func aQuoteGoingStaleIsOneWarningOneBroadcastAndStatusAtMostOnceASecond() async throws {
        let (board, clock, _) = makeBoard(staleAfter: .seconds(10))
        let directory = NSTemporaryDirectory() + "btcpriced-health-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await QuoteServer.start(listener: .path(directory + "/btcpriced.sock"), status: try makeReplies(board), version: "test",
                                                 clock: clock, group: MultiThreadedEventLoopGroup.singleton)
        let notifier = RecordingNotifier()
        let logs = InMemoryLogHandler()
        let health = DaemonHealth(notifier: notifier, watchdogInterval: nil, clock: clock)
        let logger = Logger(label: "btcpriced") { _ in logs }
        let monitor = FreshnessMonitor(intake: makeIntake(board, health: health, logger: logger) { server.broadcast($0) }, health: health, logger: logger)
        _ = board.record(CycleReport(quote: quote("100"), failureSummary: nil, nextCycleIn: .seconds(1)))
        var watcher = try UnixSocketClient(path: directory + "/btcpriced.sock", timeoutMilliseconds: 5000)
        try watcher.send("watch\n")
        #expect(try watcher.readLine()?.contains(#""state":"fresh""#) == true)
        try await eventually { server.watcherCount == 1 }
        let task = Task { try await monitor.run() }
        defer { task.cancel() }
        #expect(await clock.waitForSleepers(1))

        clock.advance(by: .seconds(9))
        #expect(await clock.waitForSleepers(1))
        #expect(notifier.statusCount == 0, "nothing to say while fresh")
        clock.advance(by: .milliseconds(1001))  // just past the limit
        #expect(await clock.waitForSleepers(1))
        #expect(try watcher.readLine()?.contains(#""state":"stale""#) == true, "watchers hear of it at once")
        #expect(notifier.statuses.withLock { $0 }.first?.hasPrefix("STALE") == true)
        for _ in 0..<600 {
            clock.advance(by: .milliseconds(100))
            #expect(await clock.waitForSleepers(1))
        }
        let updates = notifier.statusCount
        #expect(updates >= 55 && updates <= 62, "\(updates) STATUS= lines in a minute of staleness: the age, about once a second")
        let warnings = logs.entries.filter { $0.level == .warning }.map { "\($0.message)" }
        #expect(warnings == ["the quote is stale: older than 10s"], "one line for the change, not one per check")
        await server.shutdown()
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
