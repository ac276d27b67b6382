#if canImport(Glibc)
import Glibc
#endif
import CLinux
import DaemonKit
import DaemonConfig
import EventLoopScheduling
import ExchangeHTTP
import FileStore
import HTTPAPI
import ListenerKit
import Logging
import MQTTPublish
import MetricsExport
import PriceCore
import SocketServer
import Streams
import Systemd
import UnixSignals
import WireProtocol

/// The daemon's composition root: reads the command line and the settings, then wires the
/// adapters to DaemonKit for one run (restore, listen, arm signals, READY=1, serve until SIGTERM).
public struct DaemonRuntime {
    let settings: DaemonSettings
    let plan: SourcePlan
    /// The plans of the currencies served beside the primary (`BTCPRICED_CURRENCIES`).
    let companions: [SourcePlan]
    let options: DaemonOptions
    let environment: [String: String]
    let logger: Logger
    let logLevel: LogLevelSwitch
    /// For ServiceLifecycle's own messages, which are only interesting when something breaks.
    let serviceLogger: Logger

    public static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        switch DaemonLaunch(arguments: arguments, environment: environment) {
        case .exit(let status, let output, let errors):
            for line in errors { StandardError.write("btcpriced: \(line)\n") }
            for line in output { print(line) }
            return status
        case .run(let options, let settings, let plan, let companions):
            let logLevel = LogLevelSwitch(Logger.Level(settings.logLevel))
            func makeLogger(_ level: LogLevelSwitch) -> Logger { DaemonLogging.logger(identifier: "btcpriced", level: level, environment: environment) }
            let logger = makeLogger(logLevel)
            for warning in SettingsLoader.unknownEnvironmentWarnings(environment) { logger.warning("\(warning)") }
            return await DaemonRuntime(settings: settings, plan: plan, companions: companions, options: options, environment: environment, logger: logger, logLevel: logLevel,
                                       serviceLogger: makeLogger(LogLevelSwitch(.warning))).run()
        }
    }

    private func run() async -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let metrics = PrometheusExporter()
        metrics.bootstrap()
        let resources: RuntimeResources
        do { resources = try await RuntimeResources.open(settings) } catch { return exitStatus(error) }
        if resources.routes.circuits != nil { logger.info("a Tor circuit per venue: each venue sends its own SOCKS credentials (Tor's IsolateSOCKSAuth)") }
        let status: Int32
        do {
            try await makeApplication(on: resources, metrics: metrics).run()
            status = ExitStatus.ok
        } catch {
            status = exitStatus(error)
        }
        await resources.close()
        logger.info("stopped")
        return status
    }

    /// Says why the daemon stops on `error`, and with which status: 73 when its state or socket
    /// cannot be used, 78 when the HTTP listener's setting cannot be served, 1 otherwise.
    private func exitStatus(_ error: any Error) -> Int32 {
        switch error {
        case let error as DaemonStartError: logger.critical("\(error)"); return ExitStatus.cannotCreate
        case let error as HTTPAPIServer.ListenError: logger.critical("\(error)"); return ExitStatus.config
        default: logger.critical("stopped on an unexpected error: \(error)"); return ExitStatus.failure
        }
    }

    /// The daemon on its ports, its readers (HTTP, the metrics textfile) caught up with the
    /// stream's reads, and the signals: SIGHUP reloads, SIGTERM and SIGINT stop.
    private func makeApplication(on resources: RuntimeResources, metrics: PrometheusExporter) async throws -> DaemonApplication<DaemonClock, SourcePlan> {
        let (limits, notice) = ServerLimits.raisingDescriptorLimit(
            connectionsPerUser: settings.userConnections, watchersPerUser: settings.userWatchers, watchStall: settings.watchStall)
        if let notice { logger.notice("\(notice)") }
        let (settings, routes, notifier) = (self.settings, resources.routes, SystemdNotifier())
        // Both listeners count their watchers into them, each currency's in its own; the
        // stream's reader and each currency's publisher read them.
        let audience = WatchAudience(), companionAudiences = companions.map { _ in WatchAudience() }
        // One connection per venue carries every currency's pair; each currency's link runs its own.
        let lineups = SourcePlan.streamLineups([plan] + companions, clock: resources.clock, eventLoop: resources.loop, audiences: [audience] + companionAudiences,
                                               proxy: { routes.route(of: $0, url: $1, in: settings).proxy })
        let lineup = lineups[0]
        // Several currencies keep one pace per venue between them, as instances on a host do.
        let shared: (any HostPace)? = resources.hostPace ?? (companions.isEmpty ? nil : ProcessHostPace())
        // A venue that takes a list of pairs is asked once for the currencies that ask it.
        let batches = routes.batches(for: [plan] + companions)
        let hostPace: (any HostPace)? = shared.map { batches.isEmpty ? $0 : BatchedHostPace($0, batches: batches) }
        try carryOverSingleCurrencyState()
        let companionDaemons = try await makeCompanions(resources, lineups: lineups.dropFirst(), audiences: companionAudiences, hostPace: hostPace,
                                                        batches: batches, metrics: metrics, notifier: notifier)
        let companionReplies: [(code: String, replies: any StatusProvider)] = companionDaemons.map { ($0.board.currency, $0.daemon.replies) }
        let served: @Sendable (any StatusProvider) -> CurrencyReplies = { CurrencyReplies(primary: $0, companions: companionReplies) }
        let daemon = try await makeDaemon(resources, limits: limits, lineup: lineup, audience: audience, notifier: notifier, metrics: metrics,
                                          hostPace: hostPace, batches: batches, served: served, companions: companionDaemons)
        var application = DaemonApplication(daemon: daemon, logger: serviceLogger)
        application.companions = companionDaemons.map(\.daemon)
        let replies = CaughtUpReplies.serving(served(daemon.replies), reads: lineup.reads)
        try await addReaders(to: &application, replies: replies, limits: limits, audience: audience, companions: companionDaemons,
                             resources: resources, metrics: metrics)
        let config = ConfigReload(options: options, environment: environment, started: settings)
        let (logger, logLevel) = (logger, logLevel)
        // Armed here, before READY=1: a SIGTERM or SIGHUP from now on is handled, not fatal.
        application.signals = SignalService(signals: await UnixSignalsSequence(trapping: .sigterm, .sigint, .sighup), notifier: notifier, logger: logger) {
            let outcome = config.reload(logger: logger, setLogLevel: { logLevel.current = $0 })
            if let outcome, let plans = try? SourcePlan.companions(of: outcome.settings) {
                for (companion, plan) in zip(companionDaemons, plans) { companion.daemon.apply(plan) }
            }
            return daemon.reloaded(outcome.map { ($0.plan, $0.summary) })
        }
        return application
    }

    /// The readers beside the socket: the HTTP listener and its event streams, an MQTT link for
    /// each currency, the metrics textfile; each currency's publisher also writes to them.
    private func addReaders(to application: inout DaemonApplication<DaemonClock, SourcePlan>, replies: any StatusProvider, limits: ServerLimits,
                            audience: WatchAudience, companions companionDaemons: [Companion], resources: RuntimeResources,
                            metrics: PrometheusExporter) async throws {
        let (settings, daemon) = (self.settings, application.daemon)
        if let http = try await HTTPAPIServer.start(settings, inherited: resources.listeners.http.map { ($0, SocketActivation.boundAddress(of: $0)) },
                                                    replies: replies, limits: limits, audience: audience,
                                                    currencyAudiences: Dictionary(uniqueKeysWithValues: companionDaemons.map { ($0.board.currency, $0.audience) }),
                                                    logger: logger, group: resources.group) {
            daemon.alsoServe(http.events)
            for companion in companionDaemons { companion.daemon.alsoServe(http.events.of(companion.board.currency)) }
            application.readers.append(ClosingService { await http.shutdown() })
        }
        if let broker = settings.mqtt.broker {
            // A link for each currency: its own state topic, availability and sensor.
            for (currency, watching) in [(daemon, audience)] + companionDaemons.map({ ($0.daemon, $0.audience) }) {
                let link = MQTTLink(settings.mqtt.publishing(to: broker, currency: currency.board.currency), audience: watching,
                                    currentLine: { [board = currency.board] in board.current.statusLine }, eventLoop: resources.loop, logger: logger,
                                    metrics: metrics.factory, labelled: !companionDaemons.isEmpty)
                currency.alsoServe(link)
                application.readers.append(MQTTService(link: link, clock: resources.clock))
            }
        }
        if let path = settings.metricsTextfile {
            application.readers.append(MetricsTextfileService(
                path: path, interval: settings.metricsTextfileInterval, exposition: { replies.metricsReply() },
                write: { try AtomicTextFile.replace($0, with: $1) }, clock: resources.clock, logger: logger))
        }
    }

    /// The daemons of the currencies served beside the primary, each on its own files, chain and
    /// `lineups`' streams, with the audience its publisher makes lines for (its MQTT link, when
    /// there is one). A companion never serves a listener of its own (`companion(serving:)`).
    private func makeCompanions(_ resources: RuntimeResources, lineups: ArraySlice<StreamLineup>, audiences: [WatchAudience], hostPace: (any HostPace)?,
                                batches: [SourceName: VenueBatch], metrics: PrometheusExporter, notifier: SystemdNotifier) async throws(DaemonStartError) -> [Companion] {
        var daemons: [Companion] = []
        for ((companion, lineup), audience) in zip(zip(companions, lineups), audiences) {
            var ports = try makePorts(resources, plan: companion, hostPace: hostPace, batches: batches, metrics: metrics, notifier: notifier,
                                      serve: { _ in NoWatchers() })
                .companion(serving: companion.settings.currency.code, streams: lineup.venues)
            ports.streamReadLag = lineup.readLag
            ports.audience = audience
            daemons.append(Companion(daemon: await PriceDaemon(ports), audience: audience))
        }
        return daemons
    }

    /// A currency served beside the primary.
    struct Companion {
        let daemon: PriceDaemon<DaemonClock, SourcePlan>
        let audience: WatchAudience
        var board: PriceBoard<DaemonClock> { daemon.board }
    }

    /// Moves a single-currency install's files into their currency's own directory the first
    /// time several currencies are served.
    private func carryOverSingleCurrencyState() throws(DaemonStartError) {
        guard !companions.isEmpty else { return }
        let directories = Dictionary(uniqueKeysWithValues: settings.servedCurrencies.map { ($0.code, settings.stateDirectory(of: $0)) })
        do {
            if let note = try StateCarryOver.carry(from: settings.stateDirectory, into: directories) { logger.notice("\(note)") }
        } catch { throw DaemonStartError("cannot carry the single-currency state into its currency's directory: \(error)") }
    }

    /// The primary daemon on its ports: the socket (the one systemd passed, else our own path)
    /// answering every currency served (`served`) with the stream read first, its `watch`
    /// lines each currency's publisher's, and the streams.
    private func makeDaemon(_ resources: RuntimeResources, limits: ServerLimits, lineup: StreamLineup, audience: WatchAudience, notifier: SystemdNotifier,
                            metrics: PrometheusExporter, hostPace: (any HostPace)?, batches: [SourceName: VenueBatch],
                            served: @escaping @Sendable (any StatusProvider) -> CurrencyReplies,
                            companions companionDaemons: [Companion]) async throws(DaemonStartError) -> PriceDaemon<DaemonClock, SourcePlan> {
        let companionBoards = companionDaemons.map(\.board)
        let currencyAudiences = Dictionary(uniqueKeysWithValues: companionDaemons.map { ($0.board.currency, $0.audience) })
        let (settings, plan, logger, unix, group) = (self.settings, self.plan, self.logger, resources.listeners.unix, resources.group)
        let listener: QuoteServer.Listener = unix.map { .inheritedDescriptor($0) } ?? .path(settings.socketPath)
        let clock = DaemonClock(sleepingOn: resources.clock)
        var ports = try makePorts(resources, plan: plan, hostPace: hostPace, batches: batches, metrics: metrics, notifier: notifier, serve: { replies in
            let server = try await QuoteServer.start(listener: listener, status: CaughtUpReplies.serving(served(replies), reads: lineup.reads),
                                                     version: ProductVersion.current, limits: limits, clock: clock, audience: audience,
                                                     currencyAudiences: currencyAudiences, logger: logger, group: group)
            for companion in companionDaemons { companion.daemon.alsoServe(QuoteServerWatchers(server, currency: companion.board.currency)) }
            return QuoteServerWatchers(server)
        })
        ports.audience = audience
        (ports.streams, ports.streamReadLag) = (lineup.venues, lineup.readLag)
        if !companionBoards.isEmpty {
            // One exposition for every currency: each scrape reads the companions' boards too.
            ports.exposition = { quote, state, currency, offset in
                metrics.exposition(.init(quote: quote, state: state, currency: currency), companions: companionBoards.map {
                    .init(quote: $0.quote, state: $0.freshness().state, currency: $0.currency)
                }, clockOffset: offset)
            }
        }
        let servingLine = plan.servingLine(on: unix == nil ? settings.socketPath : "the socket passed by systemd", streams: lineup.venues.map(\.name))
        let companions = self.companions
        ports.onReady = { _ in
            logger.info("\(servingLine)")
            for companion in companions { logger.info("also serving \(companion.currencyLine)") }
            plan.logNotices(logger)
        }
        return await PriceDaemon(ports)
    }

    /// The ports of the daemon serving `plan`'s currency: its state directory's files
    /// (prepared), the venues on their routes, the metrics exposition, the event loop as its
    /// executor; `serve` starts its listener.
    private func makePorts(_ resources: RuntimeResources, plan: SourcePlan, hostPace: (any HostPace)?, batches: [SourceName: VenueBatch],
                           metrics: PrometheusExporter, notifier: SystemdNotifier,
                           serve: @escaping @Sendable (DaemonReplies<DaemonClock, SourcePlan>) async throws -> any WatcherServer)
        throws(DaemonStartError) -> DaemonPorts<DaemonClock, SourcePlan> {
        let (settings, logger, routes) = (self.settings, self.logger, resources.routes)
        let (clock, directory) = (DaemonClock(sleepingOn: resources.clock), SourceDirectory<SourcePlan, DaemonClock.Instant>(plan: plan))
        let files = StateFiles(directory: settings.stateDirectory(of: plan.settings.currency), currency: plan.currency, origins: { directory.current.origins },
                               quoteAssets: { directory.current.quoteAssets })
        do {
            let removed = try files.prepare()
            if !removed.isEmpty { logger.notice("removed \(removed.count) leftover temp file(s) from an interrupted write in \(files.directory)") }
        } catch { throw DaemonStartError("cannot use the state directory: \(error)") }
        var ports = DaemonPorts(
            clock: clock, wallClock: SystemWallClock(), directory: directory, sources: { routes.sources($0, batches: batches) },
            quoteStore: files.quote, historyStore: files.history, restraintStore: files.restraints, serve: serve,
            exposition: { metrics.exposition(quote: $0, state: $1, currency: $2, clockOffset: $3) }, notifier: notifier,
            watchdogInterval: SystemdWatchdog.interval(), logger: logger, serviceLogger: serviceLogger, persistInterval: settings.persistInterval, work: ThreadPoolWork())
        ports.dailyStore = files.daily
        ports.publishInterval = settings.publishInterval
        ports.hostPace = hostPace
        ports.executor = EventLoopExecutor(resources.loop)
        if settings.backfill { ports.candleSources = { routes.candleSources($0) } }
        ports.returnFreedMemory = { _ = btcpriced_malloc_trim() }
        return ports
    }
}
