import DaemonKit
import DaemonConfig
import Logging
import PriceCore
import ServiceLifecycle
import SocketServer
import Systemd
import UnixSignals

/// Runs fetch cycles until graceful shutdown, restarting the loop when a reload brings new
/// settings. Generic over its clock, so tests run it on a ManualClock.
struct FetchService<C: Clock>: Service where C.Duration == Duration {
    let makeLoop: @Sendable (SourcePlan) -> FetchLoop<C>
    let initialPlan: SourcePlan
    let reloads: AsyncStream<SourcePlan>
    let intake: PriceIntake<C>
    let ledger: SourceLedger<C.Instant>
    let restraints: RestraintKeeper
    let health: DaemonHealth<C>
    let logger: Logger
    /// Hears every cycle after the service has handled it (tests wait on it).
    var cycleHandled: @Sendable (CycleReport) -> Void = { _ in }
    var metrics = FetchMetrics()
    /// Where the loop runs: the daemon's event loop, which also carries its HTTP connections, so
    /// a cycle wakes one thread instead of handing each step between threads.
    var executor: (any TaskExecutor)?

    func run() async throws {
        let cycleHandled = self.cycleHandled, metrics = self.metrics
        let intake = self.intake, board = intake.board, health = self.health, logger = self.logger
        let restraints = self.restraints, ledger = self.ledger
        let handle: @Sendable (CycleReport, Duration) async -> Void = { report, maximumBackoff in
            health.cycleCompleted()
            metrics.record(report.attempts)
            let hasQuote = board.quote != nil
            for event in report.events { HealthLogging.log(event, report: report, hasQuote: hasQuote, maximumBackoff: maximumBackoff, logger: logger) }
            intake.accept(report)
            await restraints.offer(from: ledger, now: board.clock.now, wallTime: board.wallClock.now())
            cycleHandled(report)
        }
        await cancelWhenGracefulShutdown {
            var plan = initialPlan
            var updates = reloads.makeAsyncIterator()
            while !Task.isCancelled {
                let loop = makeLoop(plan)
                let maximumBackoff = loop.schedule.maximumBackoff
                let running = Task(executorPreference: executor) { await loop.run { await handle($0, maximumBackoff) } }
                let next = await updates.next()
                running.cancel()
                await running.value
                guard let next else { break }
                plan = next
            }
        }
    }
}

/// Tells watchers and systemd when the quote turns stale, without polling: it sleeps until
/// the moment the current quote crosses `staleAfter`.
struct FreshnessMonitor<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    let intake: PriceIntake<C>
    let health: DaemonHealth<C>
    let logger: Logger

    func run() async throws {
        let intake = self.intake, board = intake.board, health = self.health, logger = self.logger
        await cancelWhenGracefulShutdown {
            var lastState = board.freshness().state
            while !Task.isCancelled {
                let wait = board.timeUntilStale()
                // Capped, so a quote stamped far ahead (a wrong clock) cannot put the monitor to sleep for good.
                do { try await board.clock.sleep(for: min(wait ?? .seconds(1), board.current.staleLimit)) } catch { return }
                let state = board.freshness().state
                if state != lastState {
                    intake.timePassed()
                    if state == .stale {
                        let snapshot = board.current
                        logger.warning("the quote is stale: older than \(snapshot.staleLimit.humanReadable)",
                                       metadata: ["error": "\(snapshot.problems ?? "no recent quote")", "message_id": "\(MessageID.stale)"])
                    }
                    lastState = state
                }
                if state != .fresh { health.reportStatus(board.statusSummary()) }
            }
        }
    }
}

/// Keeps the socket open until shutdown, then closes it and ends `watch` streams: the one place
/// the server is shut down, also when the group is cancelled after an error.
struct ServerService: Service {
    let server: QuoteServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.shutdown()
    }
}

/// Feeds systemd's watchdog at half its interval, but only while the fetch loop makes progress.
struct WatchdogService<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    let health: DaemonHealth<C>

    func run() async throws {
        guard let period = health.watchdogPingPeriod else {
            try? await gracefulShutdown()
            return
        }
        let health = self.health
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                health.pingWatchdogIfHealthy()
                do { try await health.clock.sleep(for: period) } catch { return }
            }
        }
    }
}

/// SIGTERM/SIGINT end the service (which shuts the group down gracefully); SIGHUP reloads.
/// The signal sequence is created, and so armed, before READY=1 is sent.
struct SignalService: Service {
    let signals: UnixSignalsSequence
    let reloader: Reloader
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        for await signal in signals.cancelOnGracefulShutdown() {
            switch signal {
            case .sighup:
                await reloader.reload()
            default:
                logger.info("received \(signal), stopping")
                notifier.stopping(status: "stopping")
                return
            }
        }
    }
}
