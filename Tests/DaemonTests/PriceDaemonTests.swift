import ClientKit
import Daemon
import DaemonKit
import DaemonKitTesting
import DaemonConfig
import FileStore
import Foundation
import InMemoryLogging
import Logging
import MetricsExport
import NIOPosix
import PriceCore
import ServiceLifecycle
import ServiceLifecycleTestKit
import SocketServer
import Synchronization
import Testing
import TestClocks

/// The whole daemon, as production assembles it, in-process from injected parts: a ManualClock
/// and a wall clock moved with it, scripted sources, a real state directory and socket, a
/// recorder for systemd and swift-log's in-memory handler.
final class DaemonRun: Sendable {
    let clock = ManualClock()
    let wallClock = ManualWallClock(Timestamp(millisecondsSinceEpoch: 1_763_740_800_000))
    let logs = InMemoryLogHandler()
    let notifier = RecordingNotifier()
    let directory: String
    let cycles = Awaitable<[(report: CycleReport, at: ManualClock.Instant)]>([])
    let readyStatus = Awaitable<[String]>([])

    init(directory: String? = nil) throws {
        self.directory = directory ?? NSTemporaryDirectory() + "btcpriced-daemon-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: self.directory, withIntermediateDirectories: true)
    }

    var socketPath: String { directory + "/btcpriced.sock" }
    var cycleCount: Int { cycles.value.count }
    var cyclesWithoutQuote: Int { cycles.value.filter { $0.report.reading == nil }.count }
    var ready: [String] { readyStatus.value }
    var lines: [String] { logs.entries.map { "\($0.level): \($0.message)" } }

    static func plan(_ environment: [String: String] = [:]) throws -> SourcePlan {
        try SourcePlan(SettingsLoader.load(.init(environment: ["BTCPRICED_SOURCES": "binance,coinbase"].merging(environment) { $1 })))
    }

    /// The daemon on the production adapters for its files, socket and metrics (as DaemonRuntime
    /// wires them), on this run's clocks, directory and recorders.
    func daemon(sources: @escaping @Sendable (SourcePlan) -> [any PriceSource], plan: SourcePlan, watchdogInterval: Duration? = .seconds(20),
                persistInterval: Duration = .seconds(120)) async throws -> PriceDaemon<ManualClock, SourcePlan> {
        let (logger, clock, socketPath) = (Logger(label: "btcpriced") { [logs] _ in logs }, clock, socketPath)
        let directory = SourceDirectory<SourcePlan, ManualClock.Instant>(plan: plan)
        let files = StateFiles(directory: self.directory, currency: plan.currency, origins: { directory.current.origins },
                               quoteAssets: { directory.current.quoteAssets })
        try files.prepare()
        let metrics = PrometheusExporter()
        var ports = DaemonPorts(
            clock: clock, wallClock: wallClock, directory: directory, sources: sources,
            quoteStore: files.quote, historyStore: files.history, restraintStore: files.restraints,
            serve: { replies in
                QuoteServerWatchers(try await QuoteServer.start(listener: .path(socketPath), status: replies, version: "test", clock: clock,
                                                                logger: logger, group: MultiThreadedEventLoopGroup.singleton))
            },
            exposition: { metrics.exposition(quote: $0, state: $1, currency: $2, clockOffset: $3) }, notifier: notifier,
            watchdogInterval: watchdogInterval, logger: logger, serviceLogger: Logger(label: "lifecycle") { _ in SwiftLogNoOpLogHandler() },
            persistInterval: persistInterval, work: TestWork())
        ports.dailyStore = files.daily
        ports.onReady = { status in self.readyStatus.update { $0.append(status.text) } }
        ports.cycleHandled = { report in self.cycles.update { $0.append((report, self.clock.now)) } }
        return await PriceDaemon(ports)
    }

    /// Steps both clocks from one deadline to the next, as the services ask, until `duration`
    /// has passed. Before each step every service is asleep on the clock (`sleepers` of them)
    /// and the fetch loop has handled every cycle that was due, so nothing races the clock.
    func advance(by duration: Duration, sleepers: Int) async throws {
        let end = clock.now.advanced(by: duration)
        while true {
            try await settle(sleepers: sleepers)
            guard clock.now < end, let deadline = clock.nextDeadline else { return }
            let next = min(deadline, end)
            wallClock.advance(milliseconds: clock.now.duration(to: next).wholeMilliseconds)
            clock.advance(to: next)
        }
    }

    /// Waits until the fetch loop has handled the cycles due by now and every service sleeps:
    /// both are awaited as events (a handled cycle, a task going to sleep), never polled.
    func settle(sleepers: Int) async throws {
        let now = clock.now
        while true {
            await cycles.until { cycles in cycles.last.map { $0.at.advanced(by: $0.report.nextCycleIn) > now } ?? false }
            await clock.untilSleepers(sleepers)
            // Still so once both hold: no cycle came due while the services went to sleep.
            if let last = cycles.value.last, last.at.advanced(by: last.report.nextCycleIn) > now, clock.sleeperCount == sleepers { return }
        }
    }
}

/// What stopped, in order.
final class StopOrder: Sendable {
    private let stopped = Mutex<[String]>([])
    var names: [String] { stopped.withLock { $0 } }
    func append(_ name: String) { stopped.withLock { $0.append(name) } }
}

@Suite("The whole daemon in-process from injected parts", .timeLimit(.minutes(1)))
struct PriceDaemonTests {
    /// The fetch loop, the freshness monitor, the history saver and the watchdog.
    static let sleepers = 4

    @Test func anHourOfOutageIsOneLinePerStateChangeAndTheLastQuoteIsSavedAtShutdown() async throws {
        let run = try DaemonRun()
        defer { try? FileManager.default.removeItem(atPath: run.directory) }
        let binance = StubSource(.binance, [.quote("114459.8")]), coinbase = StubSource(.coinbase, [.quote("114501.2")])
        // Two hours between saves: only the shutdown can write the recovered quote.
        let daemon = try await run.daemon(sources: { _ in [binance, coinbase] }, plan: DaemonRun.plan(), persistInterval: .seconds(7200))
        try await testGracefulShutdown { trigger in
            let task = Task { try await DaemonApplication(daemon: daemon, logger: Logger(label: "btcpriced.services")).run() }
            try await run.advance(by: .seconds(5), sleepers: Self.sleepers)
            binance.answer([.fail(.timeout(after: .milliseconds(800)))])
            coinbase.answer([.fail(.httpStatus(503))])
            try await run.advance(by: .seconds(3600), sleepers: Self.sleepers)
            binance.answer([.quote("114470.0")])
            coinbase.answer([.quote("114480.0")])
            try await run.advance(by: .seconds(60), sleepers: Self.sleepers)
            trigger.triggerGracefulShutdown()
            try await task.value
        }

        #expect(run.ready.count == 1 && run.ready.first?.hasPrefix("waiting") == true, "ready once, with nothing to serve yet: \(run.ready)")
        #expect(run.cycleCount > 150, "an hour of cycles ran, backing off to 10 s (half the watchdog interval): \(run.cycleCount)")
        #expect(run.lines == [
            "info: no saved quote in \(run.directory)/quote.json yet",
            "info: no price history in \(run.directory)/history.txt yet; changes appear as it fills",
            "info: first quote: 114459.8 USDT via binance (BTCUSDT)",
            "warning: binance is failing: timeout after 800ms",
            "warning: coinbase is failing: HTTP 503",
            "warning: no source returned a price; serving the last known quote and retrying with backoff (up to 10s)",
            "warning: the quote is stale: older than 10s",
            "info: binance recovered after \(run.cyclesWithoutQuote) failed attempts",
            "info: quotes flowing again: 114470 USDT via binance",
        ], "one line per state change over a simulated hour of outage, not one per cycle")
        let statuses = run.notifier.statusCount
        #expect(statuses > 3000 && statuses < 3800, "STATUS= about once a second while stale, not once per check: \(statuses)")
        #expect(run.notifier.pingCount >= 350, "the watchdog was fed every 10 s while cycles completed: \(run.notifier.pingCount) pings")

        let origins = try DaemonRun.plan().origins
        guard case .quote(let saved) = try FileQuoteStore(directory: run.directory, origins: { origins }).load() else {
            Issue.record("no quote saved at shutdown")
            return
        }
        #expect(saved.price == (try Price(parsing: "114470.0")), "the quote held back by the persist interval was written at shutdown")
        #expect(FileManager.default.fileExists(atPath: run.directory + "/history.txt"), "the history was saved at shutdown")
    }

    @Test func aRestartServesTheSavedQuoteAtOnceEvenWithEveryVenueDown() async throws {
        let first = try DaemonRun()
        defer { try? FileManager.default.removeItem(atPath: first.directory) }
        let source = StubSource(.binance, [.quote("114459.8")])
        let plan = try DaemonRun.plan(["BTCPRICED_SOURCES": "binance"])
        let daemon = try await first.daemon(sources: { _ in [source] }, plan: plan)
        try await testGracefulShutdown { trigger in
            let task = Task { try await DaemonApplication(daemon: daemon, logger: Logger(label: "btcpriced.services")).run() }
            try await first.advance(by: .seconds(2), sleepers: Self.sleepers)
            trigger.triggerGracefulShutdown()
            try await task.value
        }

        let second = try DaemonRun(directory: first.directory)
        second.wallClock.advance(milliseconds: 3_000)
        let down = StubSource(.binance, [.fail(.httpStatus(503))])
        let restarted = try await second.daemon(sources: { _ in [down] }, plan: plan)
        #expect(second.lines.contains { $0.hasPrefix("info: restored 114459.8 USDT via binance from ") })
        try await testGracefulShutdown { trigger in
            let task = Task { try await DaemonApplication(daemon: restarted, logger: Logger(label: "btcpriced.services")).run() }
            await second.readyStatus.until { !$0.isEmpty }
            #expect(second.ready.first?.contains("114459.8") == true, "READY=1 carries the restored price: \(second.ready)")
            var client = try UnixSocketClient(path: second.socketPath, timeoutMilliseconds: 5000)
            try client.send("price\n")
            #expect(try client.readLine() == "114459.8", "served from the saved quote before any venue answered")
            try await second.advance(by: .seconds(30), sleepers: Self.sleepers)
            #expect(down.callCount > 0)
            #expect(restarted.board.current.quote?.price == (try Price(parsing: "114459.8")), "a failing venue never costs the saved quote")
            trigger.triggerGracefulShutdown()
            try await task.value
        }
    }

    /// The application runs the readers, the daemon's services and the signal handler as one
    /// group and stops them in reverse: the signal handler first, the readers last, once the
    /// daemon's writers have saved.
    @Test func theApplicationStopsTheSignalsFirstAndTheReadersAfterTheDaemonSaved() async throws {
        let run = try DaemonRun()
        defer { try? FileManager.default.removeItem(atPath: run.directory) }
        let daemon = try await run.daemon(sources: { _ in [StubSource(.binance, [.quote("114459.8")])] }, plan: DaemonRun.plan())
        let stops = StopOrder(), historyFile = run.directory + "/history.txt"
        var application = DaemonApplication(daemon: daemon, logger: Logger(label: "test"))
        application.readers = [ClosingService {
            let saved = FileManager.default.fileExists(atPath: historyFile)
            stops.append("reader (history saved: \(saved))")
        }]
        application.signals = ClosingService { stops.append("signals") }
        let running = application
        try await testGracefulShutdown { trigger in
            let task = Task { try await running.run() }
            try await run.advance(by: .seconds(2), sleepers: Self.sleepers)
            #expect(stops.names.isEmpty, "nothing stops while the group runs")
            trigger.triggerGracefulShutdown()
            try await task.value
        }
        #expect(run.ready.count == 1, "READY=1 once: \(run.ready)")
        #expect(stops.names == ["signals", "reader (history saved: true)"], "\(stops.names)")
    }

    @Test func aReloadRestartsTheFetchLoopWithTheNewPlansSources() async throws {
        let run = try DaemonRun()
        defer { try? FileManager.default.removeItem(atPath: run.directory) }
        let binance = StubSource(.binance, [.quote("114459.8")]), kraken = StubSource(.kraken, [.quote("114400.1")])
        let sources: @Sendable (SourcePlan) -> [any PriceSource] = { plan in plan.active.contains(.kraken) ? [kraken] : [binance] }
        let daemon = try await run.daemon(sources: sources, plan: DaemonRun.plan(["BTCPRICED_SOURCES": "binance"]))
        try await testGracefulShutdown { trigger in
            let task = Task { try await DaemonApplication(daemon: daemon, logger: Logger(label: "btcpriced.services")).run() }
            try await run.advance(by: .seconds(3), sleepers: Self.sleepers)
            let asked = binance.callCount
            let cycles = run.cycleCount
            daemon.apply(try DaemonRun.plan(["BTCPRICED_SOURCES": "kraken", "BTCPRICED_STALE_AFTER": "1m"]))
            await run.cycles.until { $0.count > cycles }
            #expect(kraken.callCount == 1, "the new loop asks the new plan's source at once")
            try await run.advance(by: .seconds(3), sleepers: Self.sleepers)
            #expect(binance.callCount == asked, "the old plan's sources are not asked after the reload")
            #expect(daemon.board.current.quote?.source == .kraken)
            #expect(daemon.board.current.staleLimit >= .seconds(60), "the new staleness policy applies at once: \(daemon.board.current.staleLimit)")
            trigger.triggerGracefulShutdown()
            try await task.value
        }
    }
}
