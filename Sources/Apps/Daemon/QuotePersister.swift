import Logging
import NIOPosix
import PriceCore

/// Writes quotes to the store at the configured rate without ever holding up the fetch loop:
/// the newest quote wins, at most one write is in flight (off the cooperative pool, as fsync can
/// block), and a broken disk is reported once rather than every second.
actor QuotePersister {
    private let store: any QuoteStore
    private let minimumInterval: Duration
    private let logger: Logger
    private let report: @Sendable (String?) -> Void
    /// The newest quote offered and not yet written.
    private var pending: Quote?
    private var lastSaved: Timestamp?
    private var writer: Task<Void, Never>?
    private var failing = false

    /// `report` hears the problem when saving starts failing, and nil when it works again.
    init(store: any QuoteStore, minimumInterval: Duration, logger: Logger, report: @escaping @Sendable (String?) -> Void = { _ in }) {
        self.store = store
        self.minimumInterval = minimumInterval
        self.logger = logger
        self.report = report
    }

    /// Returns at once; the write happens behind.
    nonisolated func offer(_ quote: Quote) {
        Task { await self.accept(quote) }
    }

    /// At shutdown: waits for the write in flight, then writes whatever the rate limit held back,
    /// `latest` included (its own offer may not have arrived yet).
    func flush(latest: Quote?) async {
        if let latest { accept(latest) }
        await writer?.value
        if let pending {
            self.pending = nil
            _ = await save(pending)
        }
    }

    /// Offers may arrive out of order (each is its own task): the newest timestamp wins.
    private func accept(_ quote: Quote) {
        if let newest = pending?.timestamp ?? lastSaved, quote.timestamp < newest { return }
        pending = quote
        if writer == nil, isDue(quote) { writer = Task { await self.writePending() } }
    }

    private func isDue(_ quote: Quote) -> Bool {
        guard let lastSaved else { return true }
        return quote.timestamp.milliseconds(since: lastSaved) >= minimumInterval.wholeMilliseconds
    }

    /// Quotes offered while a write is in flight replace each other; the newest is written next.
    private func writePending() async {
        while let quote = pending, isDue(quote) {
            pending = nil
            // After a failure, the next offer tries again: no retry loop against a broken disk.
            guard await save(quote) else { break }
        }
        writer = nil
    }

    private func save(_ quote: Quote) async -> Bool {
        let store = self.store
        do {
            try await NIOThreadPool.singleton.runIfActive { try store.save(quote) }
            lastSaved = quote.timestamp
            if failing {
                failing = false
                report(nil)
                logger.info("saving quotes works again")
            }
            return true
        } catch {
            // Not written: keep it, unless a newer quote has arrived meanwhile.
            if pending == nil { pending = quote }
            if !failing {
                failing = true
                report("\(error)")
                logger.error("cannot save the quote: \(error); still serving it from memory", metadata: ["error": "\(error)"])
            }
            return false
        }
    }
}
