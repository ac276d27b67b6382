import Logging
import PriceCore
import ServiceLifecycle
import Synchronization

/// The whole daemon, built from the ports the composition root hands over: restores the saved
/// quote and history through the intake and the restraints through the ledger's keeper; its
/// `services()` serve the socket, call the on-ready hook, then run the fetch loop, the stream,
/// the backfill, the writers and the health services until graceful shutdown, which ends with
/// a final save of each file. `DaemonApplication` runs them, in the one ServiceGroup there is.
public struct PriceDaemon<C: Clock, Plan: ChainPlan>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    public let board: PriceBoard<C>
    public let intake: PriceIntake<C>
    /// The socket's answers (the board's, the sources report, the metrics).
    public let replies: DaemonReplies<C, Plan>
    private let ports: DaemonPorts<C, Plan>
    /// The socket server, once `run` has started it: where the publisher's lines go.
    private let server = ServerSlot()
    private let persister: QuotePersister
    private let firstQuote: FirstQuoteLog
    /// The ledger's keeper: the chain, the saved restraints, the stream's refusals.
    private let keeper: LedgerKeeper<C>
    private let history: HistorySaver
    private let daily: DailySaver?
    private let health: DaemonHealth<C>
    /// The streams' gate, closed while a price waits for a second venue: the fetch loop and
    /// the intake ask this one.
    private let streamGate: StreamGate<C.Instant>
    /// The stream, when a venue in the chain can stream.
    private let streams: StreamSupervisor<C>?
    private let reloads: AsyncStream<Plan>
    private let reloadContinuation: AsyncStream<Plan>.Continuation

    /// Restores what the last run saved.
    public init(_ ports: DaemonPorts<C, Plan>) async {
        self.ports = ports
        let logger = ports.logger, directory = ports.directory, plan = directory.current
        let board = PriceBoard(currency: plan.currency, policy: plan.stalenessPolicy, clock: ports.clock, wallClock: ports.wallClock)
        self.board = board
        let hostClock = HostClockWatch(clock: ports.clock, wallClock: ports.wallClock, logger: logger, correcting: board.history.venueClock)
        replies = DaemonReplies(board: board, directory: directory, hostClock: hostClock, exposition: ports.exposition)
        health = DaemonHealth(notifier: ports.notifier, watchdogInterval: ports.watchdogInterval, clock: ports.clock)
        let server = self.server
        let publisher = WatchPublisher(board: board, interval: ports.publishInterval, executor: ports.executor,
                                       audience: ports.audience) { server.broadcast($0) }
        persister = QuotePersister(store: ports.quoteStore, work: ports.work, minimumInterval: ports.persistInterval, logger: logger)
        let confirmation = PriceConfirmation(confirmMove: plan.confirmMove, logger: logger)
        let check = confirmation.check
        // Timers that may end up to a publish interval late share their wakeups with the reads
        // (with no interval, a tolerance of zero: every timer ends when due).
        let streams = StreamSupervisor(venues: ports.streams, clock: ports.clock, jitter: ports.jitter, logger: logger,
                                       timerTolerance: ports.publishInterval, executor: ports.executor, metrics: ports.streamMetrics)
        self.streams = streams
        streamGate = streams.map { $0.gate.closed { check.awaitsConfirmation } } ?? .closed
        firstQuote = FirstQuoteLog(logger: logger)
        intake = PriceIntake(board: board, followers: [publisher, StatusFollower(health: health, board: board), persister, firstQuote],
                             streamGate: streamGate, hostClock: hostClock, confirmation: confirmation, logger: logger)
        QuoteKeeper(store: ports.quoteStore, logger: logger).restore(into: intake)
        history = HistorySaver(store: ports.historyStore, work: ports.work, logger: logger)
        await history.restore(into: intake)
        daily = ports.dailyStore.map { DailySaver(store: $0, work: ports.work, logger: logger) }
        await daily?.restore(into: intake)
        keeper = LedgerKeeper(LedgerDoor(directory.ledger), chain: plan.descriptors,
                          restraints: RestraintKeeper(store: ports.restraintStore, work: ports.work, logger: logger),
                          clock: ports.clock, wallClock: ports.wallClock, logger: logger)
        await keeper.restore()
        if let streams {
            directory.attach { streams.report(at: $0) }
            for (venue, until) in streams.resumeRefusals(from: keeper.ledger, at: ports.clock.now) {
                logger.notice("not asking \(venue) for its stream for another \(ports.clock.now.duration(to: until).humanReadable): it refused before the restart",
                              metadata: ["source": "\(venue)"])
            }
        }
        (reloads, reloadContinuation) = AsyncStream.makeStream(of: Plan.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Sends `watch` lines to `server` too, for as long as the daemon runs: one publisher, one
    /// line for every server that streams it (the HTTP listener's event streams).
    public func alsoServe(_ server: any WatcherServer) {
        self.server.add(server)
    }

    /// A reload's plan: the staleness policy applies at once, the fetch loop restarts with the
    /// plan's sources (health, cool-downs and budgets carry over in the shared ledger).
    public func apply(_ plan: Plan) {
        ports.directory.current = plan
        keeper.use(chain: plan.descriptors)
        intake.use(plan.stalenessPolicy)
        intake.confirmation?.check.use(confirmMove: plan.confirmMove)
        streams?.use(priceSilenceAfter: plan.priceSilenceAfter)
        reloadContinuation.yield(plan)
    }

    /// A SIGHUP's last step: applies the plan the new settings made, if they made one, and logs
    /// the reload's summary; returns the status READY=1 carries.
    public func reloaded(_ change: (plan: Plan, summary: String)?) -> String {
        if let change {
            apply(change.plan)
            ports.logger.notice("\(change.summary)", metadata: ["message_id": "\(MessageID.reloaded)"])
        }
        return board.statusSummary().text
    }

    /// Serves the socket, calls the on-ready hook and sends READY=1, and returns the services
    /// that run the daemon, in start order (they stop in reverse): each on the daemon's
    /// executor, so that with the event loop's timers as the clock a wakeup at idle is one
    /// thread's.
    public func services() async throws -> [any Service] {
        let server: any WatcherServer
        do {
            server = try await ports.serve(replies)
        } catch {
            reloadContinuation.finish()
            throw DaemonStartError("cannot serve the socket: \(error)")
        }
        self.server.attach(server)
        let slot = self.server, reloadContinuation = self.reloadContinuation
        // Stopped in reverse order: the writers (quote, history) after what feeds them, and
        // last, the publisher's line to the server and the reloads.
        var services: [any Service] = [
            ClosingService {
                slot.attach(nil)
                reloadContinuation.finish()
            },
            ClosingService { await server.shutdown() },
            PersistService(persister: persister, intake: intake),
            historyService(),
            fetchService(),
        ]
        if let candleSources = ports.candleSources {
            var backfill = Backfill(sources: candleSources(ports.directory.current), clock: ports.clock, wallClock: ports.wallClock,
                                    door: keeper.door)
            backfill.hostPace = ports.hostPace
            // The slots it asks for are the venues' minutes and days, as the history files them.
            backfill.slotClock = board.history.venueClock
            var service = BackfillService(backfill: backfill, intake: intake, keeper: keeper, firstLiveQuote: firstQuote.firstLiveQuote,
                                          logger: ports.logger)
            service.finished = ports.returnFreedMemory
            services.append(service)
        }
        // Timers that may end up to a publish interval late share their wakeups with the reads.
        var monitor = FreshnessMonitor(intake: intake, logger: ports.logger)
        monitor.timerTolerance = ports.publishInterval
        monitor.readLag = ports.streamReadLag
        services.append(monitor)
        if let streams {
            let keeper = self.keeper
            services.append(streams.service(feeding: intake, telling: { await keeper.handle($0) }))
        }
        services.append(WatchdogService(health: health))
        // What reading the saved files took (a week of minutes, ten years of days) is freed now.
        ports.returnFreedMemory()
        let status = board.statusSummary()
        ports.onReady(status)
        ports.notifier.ready(status: status.text)
        let executor = ports.executor
        return services.map { ExecutorBoundService($0, executor: executor) }
    }

    private func historyService() -> HistoryService<C> {
        var service = HistoryService(board: board, saver: history, clock: ports.clock)
        service.daily = daily
        let intake = self.intake
        service.completeDays = { intake.board.history.completeDays() }
        return service
    }

    private func fetchService() -> FetchService<C, Plan> {
        let ports = self.ports, door = keeper.door, streamGate = self.streamGate, intake = self.intake
        let maximumBackoff = min(.seconds(30), health.longestIdle ?? .seconds(30))
        let makeLoop: @Sendable (Plan) -> FetchLoop<C> = { plan in
            var fetcher = FallbackFetcher(sources: ports.sources(plan), timeout: plan.timeout, clock: ports.clock)
            let staleAfter = plan.stalenessPolicy.staleAfter, hostClock = intake.hostClock
            // Dated as the intake dates it: an answer already stale is that venue's failure.
            fetcher.staleOnArrival = { answer in
                let age = hostClock.stamp(origin: answer.originTime, cacheAge: answer.cacheAge, venueClock: answer.venueClock).ageOnArrival
                return age > staleAfter ? age : nil
            }
            if plan.mode == .fallback { fetcher.vet = { venue, answer in intake.vet(answer.price, from: venue) } }
            var loop = FetchLoop(
                fetcher: fetcher,
                schedule: FetchSchedule(interval: plan.interval, maximumBackoff: maximumBackoff),
                wallClock: ports.wallClock, jitter: ports.jitter, door: door, mode: plan.mode
            )
            loop.streamGate = streamGate
            loop.restTolerance = ports.publishInterval
            loop.hostPace = ports.hostPace
            return loop
        }
        var fetch = FetchService(makeLoop: makeLoop, initialPlan: ports.directory.current, reloads: reloads, intake: intake, keeper: keeper,
                                 health: health, logger: ports.logger)
        fetch.cycleHandled = ports.cycleHandled
        fetch.executor = ports.executor
        return fetch
    }
}

/// Where `watch` lines go: the socket server while it serves (lines published before it starts
/// or after it stops have no one to go to), and any other server of the same lines, such as the
/// HTTP listener's event streams.
private final class ServerSlot: Sendable {
    private struct Servers {
        var socket: (any WatcherServer)?
        var others: [any WatcherServer] = []
    }
    private let servers = Mutex(Servers())

    func attach(_ server: (any WatcherServer)?) { servers.withLock { $0.socket = server } }
    func add(_ server: any WatcherServer) { servers.withLock { $0.others.append(server) } }

    func broadcast(_ line: String) {
        let (socket, others) = servers.withLock { ($0.socket, $0.others) }
        socket?.broadcast(line)
        for server in others { server.broadcast(line) }
    }

    var watcherCount: Int {
        let (socket, others) = servers.withLock { ($0.socket, $0.others) }
        return others.reduce(socket?.watcherCount ?? 0) { $0 + $1.watcherCount }
    }
}
