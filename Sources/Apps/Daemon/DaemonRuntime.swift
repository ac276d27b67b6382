#if canImport(Glibc)
import Glibc
#endif
import AsyncHTTPClient
import DaemonConfig
import Exchanges
import FileStore
import Logging
import NIOCore
import NIOPosix
import PriceCore
import ServiceLifecycle
import SocketServer
import WireProtocol

/// One run of the daemon with fixed settings.
struct DaemonRuntime {
    let settings: DaemonSettings
    let logger: Logger

    func run() async -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let wallClock = SystemWallClock()
        let board = PriceBoard(staleAfter: settings.staleAfter, wallClock: wallClock)
        let store = FileQuoteStore(directory: settings.stateDirectory)
        guard restore(from: store, into: board) else { return ExitStatus.failure }

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let server: QuoteServer
        do {
            server = try await QuoteServer.start(listener: .path(settings.socketPath), status: board,
                                                 version: ProductVersion.current, group: group)
        } catch {
            logger.critical("cannot listen on \(settings.socketPath): \(error)")
            try? await group.shutdownGracefully()
            return ExitStatus.failure
        }

        var httpConfiguration = HTTPClient.Configuration(certificateVerification: .fullVerification, redirectConfiguration: .disallow)
        httpConfiguration.timeout = .init(connect: .init(settings.timeout), read: .init(settings.timeout))
        let httpClient = HTTPClient(eventLoopGroup: group, configuration: httpConfiguration)
        let loop = FetchLoop(
            fetcher: FallbackFetcher(sources: makeSources(client: httpClient), timeout: settings.timeout, clock: ContinuousClock()),
            schedule: FetchSchedule(interval: settings.interval),
            wallClock: wallClock
        )
        let persister = QuotePersister(store: store, minimumInterval: settings.persistInterval, logger: logger)
        logger.info("btcpriced \(ProductVersion.current) serving on \(settings.socketPath); sources \(settings.sources.map(\.rawValue).joined(separator: ", ")) every \(settings.interval.humanReadable); state in \(settings.stateDirectory)")

        var serviceLogger = logger
        serviceLogger.logLevel = max(logger.logLevel, .notice)
        let services = ServiceGroup(configuration: .init(
            services: [
                .init(service: ServerService(server: server)),
                .init(service: FetchService(loop: loop, board: board, persister: persister, server: server, logger: logger)),
                .init(service: FreshnessMonitor(board: board, server: server, logger: logger)),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: serviceLogger
        ))
        var status = ExitStatus.ok
        do {
            try await services.run()
        } catch {
            logger.critical("stopped on an unexpected error: \(error)")
            status = ExitStatus.failure
        }
        await server.shutdown()
        try? await httpClient.shutdown()
        try? await group.shutdownGracefully()
        logger.info("stopped")
        return status
    }

    private func restore(from store: FileQuoteStore, into board: PriceBoard) -> Bool {
        do {
            let removed = try store.prepare()
            if !removed.isEmpty { logger.notice("removed \(removed.count) leftover temp file(s) from an interrupted write in \(store.directory)") }
            switch try store.load() {
            case .none:
                logger.info("no saved quote in \(store.path) yet")
            case .quote(let quote):
                board.restore(quote)
                logger.info("restored \(quote.price) \(quote.currency) via \(quote.source) from \(quote.timestamp.rfc3339)")
            case .quarantined(let reason, let movedTo):
                logger.warning("ignoring unreadable \(store.path) (\(reason)); moved it to \(movedTo) and starting without a saved quote")
            }
            return true
        } catch {
            logger.critical("cannot use the state directory: \(error)")
            return false
        }
    }

    private func makeSources(client: HTTPClient) -> [any PriceSource] {
        let userAgent = "btcpriced/\(ProductVersion.current)"
        return settings.sources.map { name -> any PriceSource in
            switch name {
            case .binance:
                HTTPPriceSource.binance(baseURL: settings.binanceURL, symbol: settings.binanceSymbol, client: client,
                                        timeout: settings.timeout, userAgent: userAgent)
            default:
                HTTPPriceSource.cryptoCompare(baseURL: settings.cryptoCompareURL, client: client,
                                              timeout: settings.timeout, userAgent: userAgent)
            }
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        self = .milliseconds(duration.wholeMilliseconds)
    }
}
