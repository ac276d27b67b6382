import CoreMetrics
import FoundationEssentials
import Logging
import PriceCore

/// The daemon's side of `PriceCheck`: asks it before a venue's price may replace the served
/// quote, logs each held price once and each confirmation or rejection, and counts them
/// (`btcpriced_unconfirmed_prices_total`, `btcpriced_rejected_prices_total`).
public final class PriceConfirmation: Sendable {
    public let check: PriceCheck
    private let logger: Logger
    private let metrics: any MetricsFactory

    public init(confirmMove: Decimal?, logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory) {
        check = PriceCheck(confirmMove: confirmMove)
        self.logger = logger
        self.metrics = metrics
    }

    /// Nil when `price` may replace `last`, served now and `age` old (nil: unknown); otherwise why
    /// not, as the venue's failure for this answer.
    func vet(_ price: Price, from venue: SourceName, last: Price?, age: Duration?, now: Timestamp) -> FetchFailure? {
        guard let (failure, isNews) = check.vet(price, from: venue, last: last, age: age, at: now) else { return nil }
        count(failure.isImplausible ? "btcpriced_rejected_prices_total" : "btcpriced_unconfirmed_prices_total", venue)
        if isNews {
            logger.warning("\(venue) \(failure)", metadata: ["source": "\(venue)", "price": "\(price)", "message_id": "\(MessageID.priceHeld)"])
        }
        return failure
    }

    /// `quote` is served now: each held price is confirmed or rejected by it.
    func served(_ quote: Quote) {
        for settlement in check.served(quote.price, from: quote.source) {
            let hold = settlement.hold
            let metadata: Logger.Metadata = ["source": "\(hold.venue)", "price": "\(hold.price)", "message_id": "\(MessageID.priceSettled)"]
            switch settlement.outcome {
            case .confirmed(let venue, let price):
                logger.notice("\(hold.venue)'s price \(hold.price) is confirmed by \(venue) (\(price)); serving it", metadata: metadata)
            case .rejected(let venue, let price):
                if !hold.implausible { count("btcpriced_rejected_prices_total", hold.venue) }
                guard settlement.isNews else { continue }
                logger.warning("\(hold.venue)'s price \(hold.price) is rejected: \(venue) says \(price)", metadata: metadata)
            case .servedUnconfirmed:
                logger.notice("\(hold.venue)'s price \(hold.price) is served unconfirmed: no other venue answered within \(PriceCheck.recentWithin.humanReadable)",
                              metadata: metadata)
            }
        }
    }

    private func count(_ label: String, _ venue: SourceName) {
        Counter(label: label, dimensions: [("source", venue.rawValue)], factory: metrics).increment()
    }
}
