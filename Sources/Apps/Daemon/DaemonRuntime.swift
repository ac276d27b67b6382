#if canImport(Glibc)
import Glibc
#endif
import CLinux
import DaemonKit
import DaemonConfig
import EventLoopScheduling
import ExchangeHTTP
import Exchanges
import FileStore
import HTTPAPI
import Logging
import MetricsExport
import NIOCore
import NIOPosix
import PriceCore
import ServiceLifecycle
import SocketServer
import Streams
import Systemd
import TorCircuits
import UnixSignals
import WireProtocol

/// One run of the daemon: restore, listen, arm signals, READY=1, serve until SIGTERM.
struct DaemonRuntime {
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
        let notifier = SystemdNotifier()
        let metrics = PrometheusExporter()
        metrics.bootstrap()
        // One event loop carries the socket, HTTP, the streams and the daemon's own tasks and timers
        // (EventLoopClock: its sleeps are the loop's timers).
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        // Before any file in the state directory is touched: a second daemon stops here.
        let lock: StateDirectoryLock
        do {
            lock = try StateDirectoryLock(directory: settings.stateDirectory)
        } catch {
            logger.critical("cannot use the state directory: \(error)")
            return ExitStatus.cannotCreate
        }
        defer { withExtendedLifetime(lock) {} }
        var hostPace: FileHostPace?
        if let directory = settings.limitsDirectory {
            do {
                hostPace = try FileHostPace(directory: directory)
            } catch {
                logger.critical("cannot use the shared limits directory (BTCPRICED_LIMITS_DIR): \(error)")
                return ExitStatus.cannotCreate
            }
        }

        let httpClients = HTTPClients(group: group)
        let circuits: VenueCircuits?
        do {
            circuits = try await startCircuits(group: group)
        } catch {
            logger.critical("cannot open the per-venue Tor circuit relays on 127.0.0.1: \(error)")
            await httpClients.shutdown()
            return ExitStatus.cannotCreate
        }
        func stop(_ status: Int32) async -> Int32 {
            await circuits?.shutdown()
            await httpClients.shutdown()
            try? await group.shutdownGracefully()
            return status
        }
        let userAgent = "btcpriced/\(ProductVersion.current)"
        let listener: QuoteServer.Listener, inherited: SocketActivation.Listeners
        do {
            inherited = try SocketActivation.inheritedListeners()
            listener = self.listener(inherited)
        } catch {
            logger.critical("cannot serve the socket: \(error)")
            return await stop(ExitStatus.cannotCreate)
        }
        let (limits, descriptors, isCapped) = ServerLimits.raisingDescriptorLimit(
            connectionsPerUser: settings.userConnections, watchersPerUser: settings.userWatchers, watchStall: settings.watchStall)
        if isCapped {
            logger.notice("only \(descriptors) file descriptors allowed (LimitNOFILE=); serving at most \(limits.maximumConnections) clients at once")
        }
        let paced = PacedReads(interval: settings.publishInterval)
        let streams = streamVenues(eventLoop: loop, reads: paced, circuits: circuits)
        let reads = streams.isEmpty ? nil : paced
        let listenerDescription = listener == .path(settings.socketPath) ? settings.socketPath : "the socket passed by systemd"
        let (settings, plan, logger) = (self.settings, self.plan, self.logger)
        let grid = WakeupGrid(period: settings.publishInterval)
        let daemon: PriceDaemon<DaemonClock, SourcePlan>
        do {
            var ports = try DaemonAssembly.ports(
                clock: DaemonClock(sleepingOn: EventLoopClock(loop, grid: grid)), wallClock: SystemWallClock(), plan: plan, sources: { $0.sources(clients: httpClients, circuits: circuits, userAgent: userAgent) },
                stateDirectory: settings.stateDirectory, listener: listener, serverLimits: limits, group: group, notifier: notifier,
                watchdogInterval: SystemdWatchdog.interval(), logger: logger, serviceLogger: serviceLogger, version: ProductVersion.current,
                persistInterval: settings.persistInterval, metrics: metrics, reads: reads)
            ports.publishInterval = settings.publishInterval
            ports.streams = streams
            ports.streamReadLag = reads?.longestWait ?? .zero
            ports.hostPace = hostPace
            if settings.backfill { ports.candleSources = { $0.candleSources(clients: httpClients, circuits: circuits, userAgent: userAgent) } }
            ports.returnFreedMemory = { _ = btcpriced_malloc_trim() }
            ports.executor = EventLoopExecutor(loop)
            ports.onReady = { _ in
                logger.info("btcpriced \(ProductVersion.current) serving on \(listenerDescription); \(settings.mode.rawValue) over \(plan.active.map(\.name.rawValue).joined(separator: ", ")) every \(settings.interval.humanReadable)\(streams.isEmpty ? "" : "; streaming from \(streams.map(\.name.rawValue).joined(separator: " or ")) while a stream is healthy"); state in \(settings.stateDirectory)")
                plan.logNotices(logger)
            }
            daemon = await PriceDaemon(ports)
        } catch {
            logger.critical("\(error)")
            return await stop(ExitStatus.cannotCreate)
        }

        var application = DaemonApplication(daemon: daemon, logger: serviceLogger)
        reads?.attach(audience: { daemon.isWatched })
        let replies = CaughtUpReplies.serving(daemon.replies, reads: reads)
        do {
            if let http = try await startHTTPListener(replies: replies, inherited: inherited.http, limits: limits, group: group) {
                daemon.alsoServe(http.events)
                application.readers.append(ClosingService { await http.shutdown() })
            }
        } catch {
            logger.critical("\(error)")
            return await stop(ExitStatus.config)
        }
        if let path = settings.metricsTextfile {
            application.readers.append(MetricsTextfileService(path: path, interval: settings.metricsTextfileInterval, exposition: { replies.metricsReply() },
                                                              write: { try AtomicTextFile.replace($0, with: $1) }, clock: EventLoopClock(loop, grid: grid), logger: logger))
        }
        let reloader = Reloader(ConfigReload(options: options, environment: environment, started: settings), daemon: daemon,
                                logLevel: logLevel, logger: logger)
        // Armed here, before READY=1: a SIGTERM or SIGHUP from now on is handled, not fatal.
        application.signals = SignalService(signals: await UnixSignalsSequence(trapping: .sigterm, .sigint, .sighup), notifier: notifier,
                                            logger: logger) { await reloader.reload() }

        var status = ExitStatus.ok
        do {
            try await application.run()
        } catch let error as DaemonStartError {
            logger.critical("\(error)")
            status = ExitStatus.cannotCreate
        } catch {
            logger.critical("stopped on an unexpected error: \(error)")
            status = ExitStatus.failure
        }
        status = await stop(status)
        logger.info("stopped")
        return status
    }

    /// The HTTP listener: the socket systemd passed (btcpriced-http.socket), else the address
    /// BTCPRICED_HTTP_LISTEN (or its older name BTCPRICED_METRICS_LISTEN) names, else none.
    private func startHTTPListener(replies: any StatusProvider, inherited: Int32?, limits: ServerLimits,
                                   group: any EventLoopGroup) async throws -> HTTPAPIServer? {
        let http = settings.http
        let listener: HTTPAPIServer.Listener
        if let inherited {
            listener = .inheritedDescriptor(inherited)
        } else if let address = http.address {
            listener = .address(host: address.host, port: address.port)
        } else {
            return nil
        }
        let origin = ContinuousClock.now
        let server = try await HTTPAPIServer.listen(
            listener, setting: http.setting.rawValue,
            routes: HTTPRoutes(replies: replies, currency: settings.currency, version: ProductVersion.current),
            policy: HostPolicy(listenHost: inherited.flatMap(SocketActivation.boundAddress(of:)) ?? http.address?.host ?? "127.0.0.1",
                               hosts: http.hosts, origins: http.origins),
            limits: limits, logger: logger, group: group, now: { origin.duration(to: .now) })
        let shown = inherited == nil ? http.address.map { "\($0)" } ?? "?" : "the socket passed by systemd (port \(server.port.map(String.init) ?? "?"))"
        logger.info("serving HTTP on \(shown): the dashboard at /, the API under /api/v1/, metrics at /metrics")
        if let address = http.address, inherited == nil, !address.isLoopback {
            logger.notice("serving HTTP on \(address), which is not a loopback address: anyone who can reach this host on that port can read the price, the sources and the metrics")
        }
        return server
    }

    /// A relay per venue whose REST or stream URL goes through a SOCKS proxy without
    /// credentials (Tor), so that each venue gets its own circuit; nil when none does.
    private func startCircuits(group: any EventLoopGroup) async throws -> VenueCircuits? {
        let relayed = settings.venuesNeedingCircuits
        guard !relayed.isEmpty else { return nil }
        let circuits = try await VenueCircuits.start(venues: relayed.map(\.name), group: group,
                                                     connectTimeout: TimeAmount(settings.connectTimeoutThroughProxy))
        logger.info("a Tor circuit per venue: each venue sends its own SOCKS credentials (Tor's IsolateSOCKSAuth)")
        return circuits
    }

    /// The socket systemd passed us, if socket-activated; otherwise our own path.
    private func listener(_ inherited: SocketActivation.Listeners) -> QuoteServer.Listener {
        if let descriptor = inherited.unix {
            logger.debug("using the socket passed by systemd (fd \(descriptor))")
            return .inheritedDescriptor(descriptor)
        }
        return .path(settings.socketPath)
    }

    /// The streams BTCPRICED_STREAM allows, in the chain's order; none if no venue in the chain can stream.
    /// Each stream is read on `eventLoop`, the one that serves the watchers.
    private func streamVenues(eventLoop: any EventLoop, reads: PacedReads?, circuits: VenueCircuits?) -> [StreamVenue] {
        settings.stream.venues(among: plan.active.map(\.name), in: settings.catalog).compactMap { venue in
            guard let url = settings.streamURL(venue) else { return nil }
            guard let connection = VenueStream(venue: venue, url: url, options: plan.options, readInterval: settings.publishInterval,
                                               reads: reads, proxy: settings.route(of: venue.name, url: url, circuits: circuits).proxy,
                                               connectTimeout: settings.timeouts(for: url).connect ?? .seconds(10), eventLoop: eventLoop) else { return nil }
            return StreamVenue(name: venue.name, connection: connection,
                               policy: settings.streamPolicy(for: url, priceSilenceAfter: plan.priceSilenceAfter))
        }
    }

}
