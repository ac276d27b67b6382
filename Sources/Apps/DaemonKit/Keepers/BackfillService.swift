import Logging
import PriceCore
import ServiceLifecycle

/// Fills the minutes of the last week the restored history lacks (a first start, or the time
/// the daemon was down) from venues' one-minute candles, then the days of the last ten years the
/// daily prices lack from their daily candles, once, after the first live quote; then waits for
/// the shutdown, as a service that returned would end the daemon. Each venue it asks
/// gets one log line saying what came of it.
public struct BackfillService<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    let backfill: Backfill<C>
    let intake: PriceIntake<C>
    /// Where the budgets its requests used are offered to sources.json.
    let keeper: LedgerKeeper<C>
    /// Fires at the first live quote (`FirstQuoteLog`), which the backfill waits for.
    let firstLiveQuote: OneTimeSignal
    let logger: Logger
    /// Called once the backfill is done, whatever came of it.
    public var finished: @Sendable () -> Void = {}
    /// Where its requests are counted, as `kind="candles"`.
    public var metrics = FetchMetrics()

    public init(backfill: Backfill<C>, intake: PriceIntake<C>, keeper: LedgerKeeper<C>, firstLiveQuote: OneTimeSignal, logger: Logger) {
        self.backfill = backfill
        self.firstLiveQuote = firstLiveQuote
        self.intake = intake
        self.keeper = keeper
        self.logger = logger
    }

    public func run() async throws {
        let board = intake.board, logger = self.logger, backfill = self.backfill, keeper = self.keeper, firstLiveQuote = self.firstLiveQuote, metrics = self.metrics
        let now = board.history.venueClock.now()
        let minutesMissing = BackfillPlan.missing(in: board.history.minutes, now: now) > 0
        let daysMissing = !BackfillPlan(daily: board.history.daily, now: now, perRequest: Int(DailyHistory.retainedDays)).requests.isEmpty
        if minutesMissing || daysMissing, !backfill.sources.isEmpty {
            await cancelWhenGracefulShutdown {
                // The first quote comes from the chain's first venue, as without a backfill; and
                // a venue that answers no price would answer no candles either.
                await firstLiveQuote.wait()
                guard !Task.isCancelled else { return }
                if minutesMissing {
                    await backfill.run(history: { board.history.minutes }, fill: { board.history.fill($0, within: $1, from: $2) }) { report in
                        metrics.requests(report.source, .candles).increment(by: Int64(report.requests))
                        Self.log(report, .minute, logger: logger)
                    }
                    // The days the filled week covers whole are made from its minutes, not asked.
                    board.history.completeDays()
                }
                guard !Task.isCancelled else { return }
                let gaveAll = await backfill.run(.day, plan: { BackfillPlan(daily: board.history.daily, now: $0, perRequest: $1) },
                                                 fill: { batch, days, _ in board.history.fillDays(batch, within: days) }) { report in
                    metrics.requests(report.source, .candles).increment(by: Int64(report.requests))
                    Self.log(report, .day, logger: logger)
                }
                if gaveAll { board.history.markDaysBackfilled() }
            }
            await keeper.saveChanges()
            board.history.completeDays()
            finished()
        }
        try? await gracefulShutdown()
    }

    static func log(_ report: Backfill<C>.VenueReport, _ interval: CandleInterval, logger: Logger) {
        let source = report.source, metadata: Logger.Metadata = ["source": "\(source)"]
        let requests = report.requests == 1 ? "1 request" : "\(report.requests) requests"
        let (history, candles) = interval == .day ? ("the daily prices", "daily candles") : ("the last week's price history", "candles")
        if report.filled > 0 {
            let what = interval == .day ? "days of the daily prices" : "minutes of the last week's price history"
            logger.info("filled \(report.filled) \(what) from \(source) \(candles) (\(requests))", metadata: metadata)
        }
        if report.skipped > 0 {
            logger.notice("\(source) sent \(report.skipped) \(candles) that could not be used (malformed or inconsistent); filled the \(interval.noun)s it could",
                          metadata: metadata)
        }
        if let failure = report.failure {
            logger.warning("cannot fill \(history) from \(source) \(candles): \(failure); the next venue with candles is asked for the rest",
                           metadata: metadata)
        } else if let reason = report.passedOver {
            logger.notice("not filling \(history) from \(source) \(candles) now: \(reason); the next venue with candles is asked instead",
                          metadata: metadata)
        } else if report.filled == 0 {
            logger.notice("\(source) had no usable \(candles) for the \(interval.noun)s \(history) lacks (\(requests))", metadata: metadata)
        }
    }
}
