#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import DaemonConfig
import Exchanges
import FileStore
import Logging
import MetricsExport
import NIOCore
import NIOPosix
import PriceCore
import ServiceLifecycle
import SocketServer
import Streams
import Systemd
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
        let wallClock = SystemWallClock()
        let metrics = PrometheusExporter()
        metrics.bootstrap()
        // One event loop carries the socket, HTTP, the streams and the daemon's own tasks and timers.
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let directory = SourceDirectory<ContinuousClock.Instant>(plan: plan)
        let board = LiveBoard(directory: directory, clock: ContinuousClock(), wallClock: wallClock, metrics: metrics)
        let store = FileQuoteStore(directory: settings.stateDirectory) { directory.current.origins }
        // Before any file in the state directory is touched: a second daemon stops here.
        let lock: StateDirectoryLock
        do {
            lock = try StateDirectoryLock(directory: settings.stateDirectory)
        } catch {
            logger.critical("cannot use the state directory: \(error)")
            return ExitStatus.cannotCreate
        }
        defer { withExtendedLifetime(lock) {} }
        guard prepare(store) else { return ExitStatus.cannotCreate }
        restore(from: store, into: board, at: wallClock.now())
        let history = HistorySaver(store: FileHistoryStore(directory: settings.stateDirectory), logger: logger)
        await history.restore(into: board)

        let server: QuoteServer
        let listenerDescription: String
        do {
            let listener = try listener()
            listenerDescription = listener == .path(settings.socketPath) ? settings.socketPath : "the socket passed by systemd"
            let descriptors = DescriptorLimit.raiseSoftLimit()
            let limits = ServerLimits(maximumConnections: DescriptorLimit.connectionCap(descriptorLimit: descriptors), watchStall: settings.watchStall)
            if limits.maximumConnections < ServerLimits().maximumConnections {
                logger.notice("only \(descriptors) file descriptors allowed (LimitNOFILE=); serving at most \(limits.maximumConnections) clients at once")
            }
            server = try await QuoteServer.start(listener: listener, status: board, version: ProductVersion.current, limits: limits, group: group)
        } catch {
            logger.critical("cannot serve the socket: \(error)")
            try? await group.shutdownGracefully()
            return ExitStatus.cannotCreate
        }

        let metricsListener: MetricsHTTPServer?
        do {
            metricsListener = try await startMetricsListener(board: board, group: group)
        } catch {
            logger.critical("\(error)")
            await server.shutdown()
            try? await group.shutdownGracefully()
            return ExitStatus.config
        }

        var httpConfiguration = HTTPClient.Configuration(certificateVerification: .fullVerification, redirectConfiguration: .disallow)
        // The core enforces BTCPRICED_TIMEOUT per attempt; these only bound a misbehaving connection.
        httpConfiguration.timeout = .init(connect: .seconds(10), read: .seconds(10))
        // The fetch loop has its own retry (the fallback chain, the next cycle, backoff). AHC's
        // silent connect retries would turn a refused connection into "timeout after 800ms".
        httpConfiguration.connectionPool.retryConnectionEstablishment = false
        let httpClient = HTTPClient(eventLoopGroup: group, configuration: httpConfiguration)
        let health = DaemonHealth(notifier: notifier, watchdogInterval: SystemdWatchdog.interval(), clock: ContinuousClock())
        let longestIdle = health.longestIdle
        let userAgent = "btcpriced/\(ProductVersion.current)"
        let stream = streamLineup(eventLoop: loop)
        if let stream {
            directory.attach { stream.report(at: $0) }
            board.attach { stream.isHealthy(at: $0) }
        }
        let makeLoop: @Sendable (SourcePlan) -> FetchLoop<ContinuousClock> = { plan in
            var loop = FetchLoop(
                fetcher: FallbackFetcher(sources: plan.sources(client: httpClient, userAgent: userAgent), timeout: plan.settings.timeout, clock: ContinuousClock()),
                schedule: FetchSchedule(interval: plan.settings.interval, maximumBackoff: min(.seconds(30), longestIdle ?? .seconds(30))),
                wallClock: wallClock, ledger: directory.ledger, mode: plan.mode
            )
            if let stream { loop.standby = { stream.isHealthy(at: $0) } }
            return loop
        }
        let persister = QuotePersister(store: store, minimumInterval: settings.persistInterval, logger: logger) { board.persistence(failing: $0) }
        let restraints = RestraintKeeper(store: FileRestraintStore(directory: settings.stateDirectory), logger: logger)
        await restraints.restore(into: directory.ledger, now: .now, wallTime: wallClock.now())
        for (venue, until) in stream?.resumeRefusals(from: directory.ledger, at: .now) ?? [] {
            logger.notice("not asking \(venue) for its stream for another \(ContinuousClock.now.duration(to: until).humanReadable): it refused before the restart",
                          metadata: ["source": "\(venue)"])
        }
        let (reloads, reloadContinuation) = AsyncStream.makeStream(of: SourcePlan.self, bufferingPolicy: .bufferingNewest(1))
        let reloader = Reloader(options: options, environment: environment, current: settings, updates: reloadContinuation,
                                board: board, logLevel: logLevel, notifier: notifier, logger: logger)
        // Armed here, before READY=1: a SIGTERM or SIGHUP from now on is handled, not fatal.
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint, .sighup)

        // Stopped in reverse order: the writers (quote, history, metrics) after what feeds them.
        var services: [any Service] = [
            ServerService(server: server),
            PersistService(persister: persister),
            HistoryService(board: board, saver: history, clock: ContinuousClock()),
        ]
        if let path = settings.metricsTextfile {
            services.append(MetricsTextfileService(path: path, interval: settings.metricsTextfileInterval, board: board, clock: ContinuousClock(), logger: logger))
        }
        if let metricsListener { services.append(MetricsHTTPService(server: metricsListener)) }
        var fetch = FetchService(makeLoop: makeLoop, initialPlan: plan, reloads: reloads, board: board,
                                     persister: persister, restraints: restraints, server: server, health: health, logger: logger)
        fetch.executor = EventLoopExecutor(loop)
        services.append(fetch)
        services.append(FreshnessMonitor(board: board, server: server, health: health, logger: logger))
        if let stream {
            services.append(StreamService(lineup: stream, board: board,
                                          publisher: WatchPublisher(clock: ContinuousClock(), interval: settings.publishInterval) { server.broadcast($0) },
                                          persister: persister, restraints: restraints, health: health, clock: ContinuousClock(),
                                          jitter: SystemJitter(), logger: logger))
        }
        services.append(WatchdogService(health: health))
        services.append(SignalService(signals: signals, reloader: reloader, notifier: notifier, logger: logger))
        let serviceGroup = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
            logger: serviceLogger
        ))
        logger.info("btcpriced \(ProductVersion.current) serving on \(listenerDescription); \(settings.mode.rawValue) over \(plan.active.map(\.rawValue).joined(separator: ", ")) every \(settings.interval.humanReadable)\(stream.map { "; streaming from \($0.candidates.map(\.state.venue.rawValue).joined(separator: " or ")) while a stream is healthy" } ?? ""); state in \(settings.stateDirectory)")
        SourcePlanLogging.logSkipped(plan, logger: logger)
        notifier.ready(status: board.statusSummary().text)

        var status = ExitStatus.ok
        do {
            try await serviceGroup.run()
        } catch {
            logger.critical("stopped on an unexpected error: \(error)")
            status = ExitStatus.failure
        }
        reloadContinuation.finish()
        try? await httpClient.shutdown()
        try? await group.shutdownGracefully()
        logger.info("stopped")
        return status
    }

    /// The `GET /metrics` listener BTCPRICED_METRICS_LISTEN asks for, if any. A port in use is a
    /// configuration error: the operator picked it.
    private func startMetricsListener(board: LiveBoard, group: any EventLoopGroup) async throws(ConfigError) -> MetricsHTTPServer? {
        guard let address = settings.metricsListen else { return nil }
        do {
            let listener = try await MetricsHTTPServer.start(host: address.host, port: address.port, group: group) { board.metricsReply() }
            if !address.isLoopback {
                logger.notice("serving metrics on \(address), which is not a loopback address: anyone who can reach this host on that port can read them")
            }
            return listener
        } catch {
            let reason = (error as? IOError).map { String(cString: strerror($0.errnoCode)) } ?? "\(error)"
            throw ConfigError("cannot listen for metrics on \(address) (BTCPRICED_METRICS_LISTEN): \(reason); is another program using that port? Pick another, or leave BTCPRICED_METRICS_LISTEN empty")
        }
    }

    /// The socket systemd passed us, if socket-activated; otherwise our own path.
    private func listener() throws -> QuoteServer.Listener {
        if let descriptor = try SocketActivation.inheritedUnixStreamListener() {
            logger.debug("using the socket passed by systemd (fd \(descriptor))")
            return .inheritedDescriptor(descriptor)
        }
        return .path(settings.socketPath)
    }

    private func prepare(_ store: FileQuoteStore) -> Bool {
        do {
            let removed = try store.prepare()
            if !removed.isEmpty { logger.notice("removed \(removed.count) leftover temp file(s) from an interrupted write in \(store.directory)") }
            return true
        } catch {
            logger.critical("cannot use the state directory: \(error)")
            return false
        }
    }

    /// Corrupt state gives no data, never a failure to serve: whatever is wrong with the file is
    /// logged once and the daemon starts with live prices only.
    private func restore(from store: FileQuoteStore, into board: LiveBoard, at now: Timestamp) {
        do {
            switch try store.load() {
            case .none:
                logger.info("no saved quote in \(store.path) yet")
            case .quote(let quote) where quote.timestamp.milliseconds(since: now) > restoredFutureTolerance.wholeMilliseconds:
                board.restore(quote, ageKnown: false)
                logger.warning("\(store.path) is stamped \(quote.timestamp.rfc3339), in the future (a wrong clock or a copied file); serving its price as stale, of unknown age, until a fresh quote arrives")
            case .quote(let quote):
                board.restore(quote, ageKnown: true)
                logger.info("restored \(quote.price) \(quote.currency) via \(quote.source) from \(quote.timestamp.rfc3339)",
                            metadata: ["source": "\(quote.source)", "price": "\(quote.price)"])
            case .foreign(let quote, let reason):
                logger.warning("not restoring \(quote.price) \(quote.currency) from \(store.path): \(reason) (a test or fake exchange?); it is replaced by the next quote")
            case .quarantined(let reason, let movedTo):
                logger.warning("ignoring unreadable \(store.path) (\(reason)); moved it to \(movedTo) and starting without a saved quote")
            }
        } catch {
            logger.error("cannot read the saved quote: \(error); starting without it and serving live prices. Check \(store.path) (it should be a regular file the daemon can read and replace)")
        }
    }

    /// The streams BTCPRICED_STREAM allows, in the chain's order; nil if no venue in the chain can stream.
    /// Each stream is read on `eventLoop`, the one that serves the watchers.
    private func streamLineup(eventLoop: any EventLoop) -> StreamLineup<ContinuousClock.Instant>? {
        StreamLineup(settings.stream.venues(among: plan.active.map(\.sourceName)).compactMap { name in
            guard let venue = StreamVenue(rawValue: name.rawValue) else { return nil }
            let url = switch venue {
            case .binance: settings.binanceStreamURL
            case .coinbase: settings.coinbaseStreamURL
            case .kraken: settings.krakenStreamURL
            }
            return .init(connection: VenueStream(venue: venue, url: url, binanceSymbol: settings.binanceSymbol, eventLoop: eventLoop),
                         state: StreamState(venue: name, link: StreamLink(now: .now)))
        })
    }

}
