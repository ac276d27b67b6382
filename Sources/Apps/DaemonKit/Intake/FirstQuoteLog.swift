import Logging
import PriceCore
import Synchronization

/// The first live quote, polled or streamed: logged once (unless a restored quote came before
/// it, which makes it no news), and signalled, as the backfill waits for it so that the chain's
/// first venue gives the first quote and is known to answer.
public final class FirstQuoteLog: IntakeFollower {
    /// Fires at the first live quote (not a restored one).
    public let firstLiveQuote = OneTimeSignal()
    /// Whether a live quote came, and whether a restored one came before it. One lock per
    /// kept quote and nothing else after the first.
    private let seen = Mutex((live: false, restored: false))
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func follow(_ change: IntakeChange) {
        if change.restoredQuote { seen.withLock { $0.restored = true } }
        guard let quote = change.kept else { return }
        let restored = seen.withLock { seen -> Bool? in
            guard !seen.live else { return nil }
            seen.live = true
            return seen.restored
        }
        guard let restored else { return }
        firstLiveQuote.fire()
        guard !restored else { return }
        logger.info("first quote: \(quote.price) \(quote.currency) via \(quote.source) (\(quote.symbol))",
                    metadata: ["source": "\(quote.source)", "price": "\(quote.price)", "currency": "\(quote.currency)", "symbol": "\(quote.symbol)", "message_id": "\(MessageID.firstQuote)"])
    }
}
