import Logging
import PriceCore
import ServiceLifecycle

/// Fills the minutes of the last week the restored history lacks (a first start, or the time
/// the daemon was down) from venues' one-minute candles, once, after the first live quote; then
/// waits for the shutdown, as a service that returned would end the daemon. Each venue it asks
/// gets one log line saying what came of it.
public struct BackfillService<C: Clock>: Service where C.Duration == Duration, C.Instant: Sendable {
    let backfill: Backfill<C>
    let intake: PriceIntake<C>
    let restraints: RestraintKeeper
    let logger: Logger
    /// Called once the backfill is done, whatever came of it.
    public var finished: @Sendable () -> Void = {}

    public init(backfill: Backfill<C>, intake: PriceIntake<C>, restraints: RestraintKeeper, logger: Logger) {
        self.backfill = backfill
        self.intake = intake
        self.restraints = restraints
        self.logger = logger
    }

    public func run() async throws {
        let board = intake.board, intake = self.intake, logger = self.logger, backfill = self.backfill
        let missing = BackfillPlan.missing(in: board.history, now: board.wallClock.now())
        if missing > 0, !backfill.sources.isEmpty {
            await cancelWhenGracefulShutdown {
                // The first quote comes from the chain's first venue, as without a backfill; and
                // a venue that answers no price would answer no candles either.
                await intake.firstLiveQuote.wait()
                guard !Task.isCancelled else { return }
                await backfill.run(history: { board.history }, fill: { intake.filled($0, within: $1, from: $2) }) { report in
                    Self.log(report, logger: logger)
                }
            }
            await restraints.offer(from: backfill.ledger, now: board.clock.now, wallTime: board.wallClock.now())
            // The days the filled week covers whole are made now, not at the next save.
            intake.completeDays()
            finished()
        }
        try? await gracefulShutdown()
    }

    static func log(_ report: Backfill<C>.VenueReport, logger: Logger) {
        let source = report.source, metadata: Logger.Metadata = ["source": "\(source)"]
        let requests = report.requests == 1 ? "1 request" : "\(report.requests) requests"
        if report.filled > 0 {
            logger.info("filled \(report.filled) minutes of the last week's price history from \(source) candles (\(requests))", metadata: metadata)
        }
        if report.skipped > 0 {
            logger.notice("\(source) sent \(report.skipped) candles that could not be used (malformed or inconsistent); filled the minutes it could",
                          metadata: metadata)
        }
        if let failure = report.failure {
            logger.warning("cannot fill the price history from \(source) candles: \(failure); the next venue with candles is asked for the rest",
                           metadata: metadata)
        } else if let reason = report.passedOver {
            logger.notice("not filling the price history from \(source) candles now: \(reason); the next venue with candles is asked instead",
                          metadata: metadata)
        } else if report.filled == 0 {
            logger.notice("\(source) had no usable candles for the minutes the price history lacks (\(requests))", metadata: metadata)
        }
    }
}
