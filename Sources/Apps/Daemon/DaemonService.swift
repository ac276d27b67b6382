import DaemonConfig
import DaemonKit
import FileStore
import Logging
import MetricsExport
import NIOCore
import PriceCore
import ServiceLifecycle
import SocketServer
import Synchronization

/// What the daemon is made of. Production wires the system clocks, the venues over HTTPS, the
/// state directory, the socket and systemd; tests wire a ManualClock, scripted sources, a
/// temporary directory and a recorder.
struct DaemonParts<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    var clock: C
    var wallClock: any WallClock
    var plan: SourcePlan
    /// The venues a plan asks; called again with each plan a reload brings.
    var sources: @Sendable (SourcePlan) -> [any PriceSource]
    /// The store: quote.json, sources.json and history.txt live here.
    var stateDirectory: String
    var listener: QuoteServer.Listener
    var serverLimits = ServerLimits()
    var group: any EventLoopGroup
    var notifier: any HealthNotifier
    var watchdogInterval: Duration?
    var logger: Logger
    /// For ServiceLifecycle's own messages.
    var serviceLogger: Logger
    /// Called once the socket serves the restored quote, before the first fetch: READY=1 in production.
    var onReady: @Sendable (DaemonStatus) -> Void = { _ in }
    var version: String
    var persistInterval: Duration
    var publishInterval: Duration = .zero
    var streams: StreamLineup<C.Instant>?
    /// The venues' pace shared with the other instances on this host, if any.
    var hostPace: (any HostPace)?
    var jitter: any JitterSource = SystemJitter()
    var metrics = PrometheusExporter()
    /// Where blocking file writes run.
    var work: any BlockingWork = ThreadPoolWork()
    /// Where the services run (the daemon's event loop in production).
    var executor: (any TaskExecutor)?
    /// Hears every fetch cycle after the daemon has handled it (tests step the clock on it).
    var cycleHandled: @Sendable (CycleReport) -> Void = { _ in }
}

/// Why the daemon could not start serving; each maps to a sysexits(3) status.
struct DaemonStartError: Error, CustomStringConvertible {
    let description: String
    let exitStatus: Int32
}

/// The whole daemon as one Service: restores the saved quote, history and restraints, serves
/// the socket, calls the on-ready hook, then runs the fetch loop, the stream, the writers and
/// the health services until graceful shutdown, which ends with a final save of each file.
struct DaemonService<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    let board: PriceBoard<C>
    let intake: PriceIntake<C>
    /// The configured chain and the ledger of every venue's health, rests and budget.
    let directory: SourceDirectory<C.Instant>
    /// The socket's answers (the board's, the sources report, the metrics).
    let replies: SocketReplies<C>
    private let parts: DaemonParts<C>
    /// The socket server, once `run` has started it: where the publisher's lines go.
    private let server = ServerSlot()
    private let persister: QuotePersister
    private let restraints: RestraintKeeper
    private let history: HistorySaver
    private let health: DaemonHealth<C>
    private let reloads: AsyncStream<SourcePlan>
    private let reloadContinuation: AsyncStream<SourcePlan>.Continuation

    /// Prepares the state directory and restores what the last run saved.
    init(_ parts: DaemonParts<C>) async throws(DaemonStartError) {
        self.parts = parts
        let logger = parts.logger
        let directory = SourceDirectory<C.Instant>(plan: parts.plan)
        let board = PriceBoard(currency: parts.plan.settings.currency.code, policy: parts.plan.stalenessPolicy,
                               clock: parts.clock, wallClock: parts.wallClock)
        self.board = board
        self.directory = directory
        replies = SocketReplies(board: board, directory: directory, metrics: parts.metrics)
        let store = FileQuoteStore(directory: parts.stateDirectory, origins: { directory.current.origins },
                                   quoteAssets: { directory.current.quoteAssets })
        do {
            let removed = try store.prepare()
            if !removed.isEmpty { logger.notice("removed \(removed.count) leftover temp file(s) from an interrupted write in \(store.directory)") }
        } catch {
            throw DaemonStartError(description: "cannot use the state directory: \(error)", exitStatus: ExitStatus.cannotCreate)
        }
        health = DaemonHealth(notifier: parts.notifier, watchdogInterval: parts.watchdogInterval, clock: parts.clock)
        let server = self.server
        let publisher = WatchPublisher(board: board, interval: parts.publishInterval, executor: parts.executor,
                                       audience: { server.watcherCount > 0 }) { server.broadcast($0) }
        persister = QuotePersister(store: store, work: parts.work, minimumInterval: parts.persistInterval, logger: logger)
        intake = PriceIntake(board: board, publisher: publisher, health: health, persister: persister,
                             streamGate: parts.streams?.gate ?? .closed, logger: logger)
        QuoteKeeper(store: store, logger: logger).restore(into: intake)
        history = HistorySaver(store: FileHistoryStore(directory: parts.stateDirectory, currency: parts.plan.settings.currency.code), work: parts.work, logger: logger)
        await history.restore(into: intake)
        restraints = RestraintKeeper(store: FileRestraintStore(directory: parts.stateDirectory), work: parts.work, logger: logger)
        await restraints.restore(into: directory.ledger, now: parts.clock.now, wallTime: parts.wallClock.now())
        if let streams = parts.streams {
            directory.attach { streams.report(at: $0) }
            for (venue, until) in streams.resumeRefusals(from: directory.ledger, at: parts.clock.now) {
                logger.notice("not asking \(venue) for its stream for another \(parts.clock.now.duration(to: until).humanReadable): it refused before the restart",
                              metadata: ["source": "\(venue)"])
            }
        }
        (reloads, reloadContinuation) = AsyncStream.makeStream(of: SourcePlan.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// A reload's plan: the staleness policy applies at once, the fetch loop restarts with the
    /// plan's sources (health, cool-downs and budgets carry over in the shared ledger).
    func apply(_ plan: SourcePlan) {
        directory.current = plan
        intake.use(plan.stalenessPolicy)
        parts.streams?.use(priceSilenceAfter: plan.priceSilenceAfter)
        reloadContinuation.yield(plan)
    }

    func run() async throws {
        defer { reloadContinuation.finish() }
        let server: QuoteServer
        defer { self.server.attach(nil) }
        do {
            server = try await QuoteServer.start(listener: parts.listener, status: replies, version: parts.version, limits: parts.serverLimits,
                                                 clock: parts.clock, logger: parts.logger, group: parts.group)
        } catch {
            throw DaemonStartError(description: "cannot serve the socket: \(error)", exitStatus: ExitStatus.cannotCreate)
        }
        self.server.attach(server)
        // Stopped in reverse order: the writers (quote, history) after what feeds them.
        var services: [any Service] = [
            ServerService(server: server),
            PersistService(persister: persister, intake: intake),
            HistoryService(board: board, saver: history, clock: parts.clock),
            fetchService(),
            FreshnessMonitor(intake: intake, logger: parts.logger),
        ]
        if let streams = parts.streams {
            services.append(StreamService(lineup: streams, intake: intake, ledger: directory.ledger, restraints: restraints, clock: parts.clock,
                                          jitter: parts.jitter, logger: parts.logger))
        }
        services.append(WatchdogService(health: health))
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
            logger: parts.serviceLogger
        ))
        parts.onReady(board.statusSummary())
        // Every service's task runs on the daemon's event loop: with the loop's timers as the
        // clock, a wakeup at idle is one thread's.
        try await withTaskExecutorPreference(parts.executor) { try await group.run() }
    }

    private func fetchService() -> FetchService<C, SourcePlan> {
        let parts = self.parts, ledger = directory.ledger
        let maximumBackoff = min(.seconds(30), health.longestIdle ?? .seconds(30))
        let makeLoop: @Sendable (SourcePlan) -> FetchLoop<C> = { plan in
            var loop = FetchLoop(
                fetcher: FallbackFetcher(sources: parts.sources(plan), timeout: plan.settings.timeout, clock: parts.clock),
                schedule: FetchSchedule(interval: plan.settings.interval, maximumBackoff: maximumBackoff),
                wallClock: parts.wallClock, jitter: parts.jitter, ledger: ledger, mode: plan.mode
            )
            if let streams = parts.streams { loop.streamGate = streams.gate }
            loop.hostPace = parts.hostPace
            return loop
        }
        var fetch = FetchService(makeLoop: makeLoop, initialPlan: parts.plan, reloads: reloads, intake: intake, ledger: ledger,
                                 restraints: restraints, health: health, hints: .from(parts.plan.settings.catalog), logger: parts.logger)
        fetch.cycleHandled = parts.cycleHandled
        fetch.executor = parts.executor
        return fetch
    }
}

/// The socket server while it serves; lines published before it starts or after it stops
/// have no one to go to.
private final class ServerSlot: Sendable {
    private let server = Mutex<QuoteServer?>(nil)

    func attach(_ server: QuoteServer?) { self.server.withLock { $0 = server } }
    func broadcast(_ line: String) { server.withLock { $0 }?.broadcast(line) }
    var watcherCount: Int { server.withLock { $0 }?.watcherCount ?? 0 }
}
