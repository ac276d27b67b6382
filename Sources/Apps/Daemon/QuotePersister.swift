import Logging
import NIOPosix
import PriceCore

/// Writes quotes to the store at the configured rate, off the cooperative thread pool (fsync
/// can block), and reports a broken disk once rather than every second.
actor QuotePersister {
    private let store: any QuoteStore
    private let minimumInterval: Duration
    private let logger: Logger
    private var lastSaved: Timestamp?
    private var unsaved: Quote?
    private var failing = false
    private let report: @Sendable (String?) -> Void

    /// `report` hears the problem when saving starts failing, and nil when it works again.
    init(store: any QuoteStore, minimumInterval: Duration, logger: Logger, report: @escaping @Sendable (String?) -> Void = { _ in }) {
        self.store = store
        self.minimumInterval = minimumInterval
        self.logger = logger
        self.report = report
    }

    func offer(_ quote: Quote) async {
        unsaved = quote
        if let lastSaved, quote.timestamp.milliseconds(since: lastSaved) < minimumInterval.wholeMilliseconds { return }
        await save(quote)
    }

    /// Writes whatever the rate limit held back; called at shutdown.
    func flush() async {
        if let unsaved { await save(unsaved) }
    }

    private func save(_ quote: Quote) async {
        let store = self.store
        do {
            try await NIOThreadPool.singleton.runIfActive { try store.save(quote) }
            lastSaved = quote.timestamp
            unsaved = nil
            if failing {
                failing = false
                report(nil)
                logger.info("saving quotes works again")
            }
        } catch {
            if !failing {
                failing = true
                report("\(error)")
                logger.error("cannot save the quote: \(error); still serving it from memory", metadata: ["error": "\(error)"])
            }
        }
    }
}
