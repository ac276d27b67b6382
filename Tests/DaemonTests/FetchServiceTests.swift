@testable import Daemon
import FileStore
import Foundation
import InMemoryLogging
import Logging
import NIOPosix
import PriceCore
import ServiceLifecycle
import ServiceLifecycleTestKit
import SocketServer
import Systemd
import Synchronization
import Testing
import TestClocks

/// The fetch service run in-process from injected parts: scripted sources, a ManualClock and a
/// ManualWallClock, swift-log's in-memory handler, and the real socket server, restraint file
/// and persister. A simulated hour takes a few seconds.
@Suite("Fetch service in-process on a ManualClock")
struct FetchServiceTests {
    final class Running: Sendable {
        let board: PriceBoard<ManualClock>
        let clock: ManualClock
        let logs: InMemoryLogHandler
        let reports: Reports
        let service: FetchService<ManualClock>
        let server: QuoteServer
        let directory: String

        init(board: PriceBoard<ManualClock>, clock: ManualClock, logs: InMemoryLogHandler, reports: Reports,
             service: FetchService<ManualClock>, server: QuoteServer, directory: String) {
            (self.board, self.clock, self.logs, self.reports, self.service, self.server, self.directory) =
                (board, clock, logs, reports, service, server, directory)
        }
    }

    final class Reports: Sendable {
        private let all = Mutex<[CycleReport]>([])
        func append(_ report: CycleReport) { all.withLock { $0.append(report) } }
        var count: Int { all.withLock { $0.count } }
        var last: CycleReport? { all.withLock { $0.last } }
        var withoutQuote: Int { all.withLock { $0.filter { $0.quote == nil }.count } }
    }

    func makeService(sources: [StubSource]) async throws -> Running {
        let (board, clock, wallClock) = try makeBoard()
        let directory = NSTemporaryDirectory() + "btcpriced-service-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let server = try await QuoteServer.start(listener: .path(directory + "/btcpriced.sock"), status: board, version: "test",
                                                 clock: clock, group: MultiThreadedEventLoopGroup.singleton)
        let logs = InMemoryLogHandler()
        let logger = Logger(label: "btcpriced") { _ in logs }
        let reports = Reports()
        let service = FetchService(
            makeLoop: { plan in
                FetchLoop(fetcher: FallbackFetcher(sources: sources, timeout: .milliseconds(800), clock: clock),
                          schedule: FetchSchedule(interval: .seconds(1)), wallClock: wallClock, ledger: board.directory.ledger, mode: .fallback)
            },
            initialPlan: board.directory.current, reloads: AsyncStream { _ in }, board: board,
            persister: QuotePersister(store: RecordingStore(), minimumInterval: .zero, logger: logger),
            restraints: RestraintKeeper(store: FileRestraintStore(directory: directory), logger: logger),
            server: server, health: DaemonHealth(notifier: SystemdNotifier(), watchdogInterval: nil, clock: clock), logger: logger,
            cycleHandled: { report in reports.append(report) }
        )
        return Running(board: board, clock: clock, logs: logs, reports: reports, service: service, server: server, directory: directory)
    }

    /// Moves the clock by what the loop asked for, each time it has handled a cycle and gone to
    /// sleep, until `duration` has passed.
    func drive(_ running: Running, for duration: Duration) async throws {
        var passed = Duration.zero
        while passed < duration {
            // The next cycle is handled and the loop sleeps on the clock (a fetch's timeout
            // sleeper has gone).
            let next = running.reports.count + (running.clock.sleeperCount == 1 && running.reports.count > 0 ? 0 : 1)
            for _ in 0..<100_000 where running.reports.count < next || running.clock.sleeperCount != 1 { await Task.yield() }
            let wait = try #require(running.reports.last?.nextCycleIn, "no cycle was handled")
            running.clock.advance(by: wait)
            passed += wait
            for _ in 0..<100_000 where running.reports.count < next + 1 { await Task.yield() }
        }
    }

    @Test func anHourOfOutageIsOneLinePerStateChange() async throws {
        let binance = StubSource(.binance, [.quote("114459.8")]), coinbase = StubSource(.coinbase, [.quote("114501.2")])
        let running = try await makeService(sources: [binance, coinbase])
        defer { try? FileManager.default.removeItem(atPath: running.directory) }
        try await testGracefulShutdown { trigger in
            let task = Task { try await running.service.run() }
            try await drive(running, for: .seconds(5))
            binance.answer([.fail(.timeout(after: .milliseconds(800)))])
            coinbase.answer([.fail(.httpStatus(503))])
            try await drive(running, for: .seconds(3600))
            binance.answer([.quote("114470.0")])
            coinbase.answer([.quote("114480.0")])
            try await drive(running, for: .seconds(60))
            trigger.triggerGracefulShutdown()
            try await task.value
        }
        await running.server.shutdown()

        let cycles = running.reports.count
        #expect(cycles > 150, "an hour of cycles ran, backing off to 30 s: \(cycles)")
        let lines = running.logs.entries.map { "\($0.level): \($0.message)" }
        #expect(lines == [
            "info: first quote: 114459.8 USDT via binance (BTCUSDT)",
            "warning: binance is failing: timeout after 800ms",
            "warning: coinbase is failing: HTTP 503",
            "warning: no source returned a price; serving the last known quote and retrying with backoff (up to 30s)",
            "info: binance recovered after \(running.reports.withoutQuote) failed attempts",
            "info: quotes flowing again: 114470 USDT via binance",
        ], "one line per state change over a simulated hour of outage, not one per cycle")
        #expect(running.board.current.quote?.price == (try Price(parsing: "114470.0")))
    }
}
