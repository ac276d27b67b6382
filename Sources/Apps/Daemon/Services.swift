import Logging
import PriceCore
import ServiceLifecycle
import SocketServer

/// Runs fetch cycles until graceful shutdown, then persists the last quote.
struct FetchService: Service {
    let loop: FetchLoop<ContinuousClock>
    let board: PriceBoard
    let persister: QuotePersister
    let server: QuoteServer
    let logger: Logger

    func run() async throws {
        let board = self.board, persister = self.persister, server = self.server, logger = self.logger
        let firstQuoteLogged = FirstQuoteFlag(alreadySeen: board.snapshot.quote != nil)
        await cancelWhenGracefulShutdown {
            await loop.run { report in
                for event in report.events { HealthLogging.log(event, report: report, logger: logger) }
                if board.record(report) { server.broadcast(board.currentStatus().json) }
                if let quote = report.quote {
                    if await firstQuoteLogged.markSeen() {
                        logger.info("first quote: \(quote.price) \(quote.currency) via \(quote.source) (\(quote.symbol))",
                                    metadata: ["source": "\(quote.source)", "price": "\(quote.price)"])
                    }
                    await persister.offer(quote)
                }
            }
        }
        await persister.flush()
    }
}

actor FirstQuoteFlag {
    private var seen: Bool
    init(alreadySeen: Bool) { seen = alreadySeen }
    func markSeen() -> Bool {
        defer { seen = true }
        return !seen
    }
}

/// Tells watchers when the quote turns stale, without polling: it sleeps until the moment
/// the current quote crosses `staleAfter`.
struct FreshnessMonitor: Service {
    let board: PriceBoard
    let server: QuoteServer
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var lastState = board.freshness().state
            while !Task.isCancelled {
                let wait = Freshness.timeUntilStale(of: board.snapshot.quote, at: board.wallClock.now(), staleAfter: board.staleAfter)
                do { try await Task.sleep(for: wait ?? board.staleAfter) } catch { return }
                let state = board.freshness().state
                if state != lastState {
                    if state == .stale {
                        logger.warning("the quote is stale: older than \(board.staleAfter.humanReadable)",
                                       metadata: ["error": "\(board.snapshot.failureSummary ?? "no recent quote")"])
                        server.broadcast(board.currentStatus().json)
                    }
                    lastState = state
                }
            }
        }
    }
}

/// Keeps the socket open until shutdown, then closes it and ends `watch` streams.
struct ServerService: Service {
    let server: QuoteServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.shutdown()
    }
}
