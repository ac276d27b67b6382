#if canImport(Glibc)
import Glibc
#endif
import CLinux
import DaemonKit
import DaemonConfig
import EventLoopScheduling
import FileStore
import HTTPAPI
import Logging
import MetricsExport
import PriceCore
import SocketServer
import Streams
import Systemd
import TorCircuits
import UnixSignals
import WireProtocol

/// One run of the daemon: restore, listen, arm signals, READY=1, serve until SIGTERM.
struct DaemonRuntime {
    typealias Daemon = PriceDaemon<DaemonClock, SourcePlan>
    let settings: DaemonSettings
    let plan: SourcePlan
    let options: DaemonOptions
    let environment: [String: String]
    let logger: Logger
    let logLevel: LogLevelSwitch
    /// For ServiceLifecycle's own messages, which are only interesting when something breaks.
    let serviceLogger: Logger

    func run() async -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let metrics = PrometheusExporter()
        metrics.bootstrap()
        let resources: RuntimeResources
        do { resources = try await RuntimeResources.open(settings) } catch {
            logger.critical("\(error)")
            return ExitStatus.cannotCreate
        }
        if resources.routes.circuits != nil { logger.info("a Tor circuit per venue: each venue sends its own SOCKS credentials (Tor's IsolateSOCKSAuth)") }
        let status = await serve(on: resources, metrics: metrics)
        await resources.close()
        logger.info("stopped")
        return status
    }

    /// Builds the daemon and its application on `resources` and runs them until they stop.
    private func serve(on resources: RuntimeResources, metrics: PrometheusExporter) async -> Int32 {
        let (settings, routes) = (self.settings, resources.routes)
        let inherited: SocketActivation.Listeners
        do { inherited = try SocketActivation.inheritedListeners() } catch {
            logger.critical("cannot serve the socket: \(error)")
            return ExitStatus.cannotCreate
        }
        let (limits, descriptors, isCapped) = ServerLimits.raisingDescriptorLimit(
            connectionsPerUser: settings.userConnections, watchersPerUser: settings.userWatchers, watchStall: settings.watchStall)
        if isCapped {
            logger.notice("only \(descriptors) file descriptors allowed (LimitNOFILE=); serving at most \(limits.maximumConnections) clients at once")
        }
        let paced = PacedReads(interval: settings.publishInterval)
        let streams = plan.streamLineup(reads: paced, eventLoop: resources.loop, proxy: { routes.route(of: $0, url: $1, in: settings).proxy })
        let reads = streams.isEmpty ? nil : paced
        let notifier = SystemdNotifier()
        let application: DaemonApplication<DaemonClock, SourcePlan>
        do {
            let daemon = try await makeDaemon(resources, unix: inherited.unix, limits: limits, streams: streams, reads: reads, notifier: notifier, metrics: metrics)
            application = try await makeApplication(daemon, resources, inheritedHTTP: inherited.http, limits: limits, reads: reads, notifier: notifier)
        } catch {
            logger.critical("\(error)")
            return error is DaemonStartError ? ExitStatus.cannotCreate : ExitStatus.config
        }
        do {
            try await application.run()
            return ExitStatus.ok
        } catch let error as DaemonStartError {
            logger.critical("\(error)")
            return ExitStatus.cannotCreate
        } catch {
            logger.critical("stopped on an unexpected error: \(error)")
            return ExitStatus.failure
        }
    }

    /// The daemon on its ports: the stores, the socket (the one systemd passed, else our own
    /// path), the venues on their routes, the streams, and the event loop as its executor.
    private func makeDaemon(_ resources: RuntimeResources, unix: Int32?, limits: ServerLimits, streams: [StreamVenue], reads: PacedReads?,
                            notifier: SystemdNotifier, metrics: PrometheusExporter) async throws(DaemonStartError) -> Daemon {
        let (settings, plan, logger, routes) = (self.settings, self.plan, self.logger, resources.routes)
        var ports = try DaemonAssembly.ports(
            clock: DaemonClock(sleepingOn: loopClock(resources)), wallClock: SystemWallClock(),
            plan: plan, sources: { routes.sources($0) }, stateDirectory: settings.stateDirectory,
            listener: unix.map { .inheritedDescriptor($0) } ?? .path(settings.socketPath), serverLimits: limits, group: resources.group, notifier: notifier,
            watchdogInterval: SystemdWatchdog.interval(), logger: logger, serviceLogger: serviceLogger, version: ProductVersion.current,
            persistInterval: settings.persistInterval, metrics: metrics, reads: reads)
        ports.publishInterval = settings.publishInterval
        ports.streams = streams
        ports.streamReadLag = reads?.longestWait ?? .zero
        ports.hostPace = resources.hostPace
        if settings.backfill { ports.candleSources = { routes.candleSources($0) } }
        ports.returnFreedMemory = { _ = btcpriced_malloc_trim() }
        ports.executor = EventLoopExecutor(resources.loop)
        let servingLine = plan.servingLine(on: unix == nil ? settings.socketPath : "the socket passed by systemd", streams: streams.map(\.name))
        ports.onReady = { _ in
            logger.info("\(servingLine)")
            plan.logNotices(logger)
        }
        return await PriceDaemon(ports)
    }

    /// The daemon with its readers (HTTP, the metrics textfile), caught up with the stream's
    /// reads, and the signals: SIGHUP reloads, SIGTERM and SIGINT stop.
    private func makeApplication(_ daemon: Daemon, _ resources: RuntimeResources, inheritedHTTP: Int32?, limits: ServerLimits, reads: PacedReads?,
                                 notifier: SystemdNotifier) async throws -> DaemonApplication<DaemonClock, SourcePlan> {
        var application = DaemonApplication(daemon: daemon, logger: serviceLogger)
        reads?.attach(audience: { daemon.isWatched })
        let replies = CaughtUpReplies.serving(daemon.replies, reads: reads)
        if let http = try await HTTPAPIServer.start(settings, inherited: inheritedHTTP.map { ($0, SocketActivation.boundAddress(of: $0)) },
                                                    replies: replies, limits: limits, logger: logger, group: resources.group) {
            daemon.alsoServe(http.events)
            application.readers.append(ClosingService { await http.shutdown() })
        }
        if let path = settings.metricsTextfile {
            application.readers.append(MetricsTextfileService(
                path: path, interval: settings.metricsTextfileInterval, exposition: { replies.metricsReply() },
                write: { try AtomicTextFile.replace($0, with: $1) }, clock: loopClock(resources), logger: logger))
        }
        let config = ConfigReload(options: options, environment: environment, started: settings)
        let (logger, logLevel) = (logger, logLevel)
        // Armed here, before READY=1: a SIGTERM or SIGHUP from now on is handled, not fatal.
        application.signals = SignalService(signals: await UnixSignalsSequence(trapping: .sigterm, .sigint, .sighup), notifier: notifier, logger: logger) {
            if let outcome = config.reload(logger: logger, setLogLevel: { logLevel.current = $0 }) {
                daemon.apply(outcome.plan)
                logger.notice("\(outcome.summary)", metadata: ["message_id": "\(MessageID.reloaded)"])
            }
            return daemon.board.statusSummary().text
        }
        return application
    }

    /// The event loop's timers, gathered on the publish interval's grid.
    private func loopClock(_ resources: RuntimeResources) -> EventLoopClock {
        EventLoopClock(resources.loop, grid: WakeupGrid(period: settings.publishInterval))
    }
}
