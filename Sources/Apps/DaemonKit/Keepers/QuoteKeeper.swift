import Logging
import PriceCore

/// How far in the future a restored quote's stamp may be before its age counts as unknown.
public let restoredFutureTolerance = Duration.seconds(60)

/// Restores the quote the previous run saved, through the door. Corrupt state gives no data,
/// never a failure to serve: whatever is wrong with the file is logged once, and the daemon
/// starts with live prices only.
public struct QuoteKeeper: Sendable {
    public let store: any QuoteStore
    private let logger: Logger

    public init(store: any QuoteStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    public func restore<C>(into intake: PriceIntake<C>) {
        let report = RestoreReport(logger: logger, path: store.path)
        let now = intake.board.wallClock.now()
        do {
            switch try store.load() {
            case .none:
                logger.info("no saved quote in \(store.path) yet")
            case .quote(let quote) where quote.timestamp.milliseconds(since: now) > restoredFutureTolerance.wholeMilliseconds:
                intake.restored(quote: quote, ageKnown: false)
                logger.warning("\(store.path) is stamped \(quote.timestamp.rfc3339), in the future (a wrong clock or a copied file); serving its price as stale, of unknown age, until a fresh quote arrives")
            case .quote(let quote):
                intake.restored(quote: quote, ageKnown: true)
                logger.info("restored \(quote.price) \(quote.currency) via \(quote.source) from \(quote.timestamp.rfc3339)",
                            metadata: ["source": "\(quote.source)", "price": "\(quote.price)"])
            case .foreign(let quote, let reason):
                logger.warning("not restoring \(quote.price) \(quote.currency) from \(store.path): \(reason) (a test or fake exchange?); it is replaced by the next quote")
            case .quarantined(let reason, let movedTo):
                report.ignoring(reason, then: "moved it to \(movedTo) and starting without a saved quote")
            }
        } catch {
            report.cannotRead("the saved quote", error, then: "starting without it and serving live prices")
        }
    }
}
