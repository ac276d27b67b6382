import CoreMetrics
import Logging
import NIOPosix
import PriceCore

/// Writes quotes to the store at the configured rate without ever holding up the fetch loop.
/// Offers go into a one-slot buffer, so while a write is in flight the newest quote replaces
/// older ones; one consumer means at most one write at a time. Writes run off the cooperative
/// pool (fsync can block), and a broken disk is reported once rather than every second.
final class QuotePersister: Sendable {
    private let store: any QuoteStore
    private let minimumInterval: Duration
    private let logger: Logger
    private let report: @Sendable (String?) -> Void
    private let offers: AsyncStream<Quote>
    private let continuation: AsyncStream<Quote>.Continuation
    private let duration: CoreMetrics.Timer
    private let failures: Counter

    /// `report` hears the problem when saving starts failing, and nil when it works again.
    init(store: any QuoteStore, minimumInterval: Duration, logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory,
         report: @escaping @Sendable (String?) -> Void = { _ in }) {
        duration = CoreMetrics.Timer(label: "btcpriced_persist_duration_seconds", factory: metrics)
        failures = Counter(label: "btcpriced_persist_failures_total", factory: metrics)
        self.store = store
        self.minimumInterval = minimumInterval
        self.logger = logger
        self.report = report
        (offers, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Returns at once; the write happens behind.
    func offer(_ quote: Quote) {
        continuation.yield(quote)
    }

    /// No more offers: `run` writes what is left and returns.
    func finish() {
        continuation.finish()
    }

    /// Writes offered quotes until `finish`, then whatever the rate limit held back.
    func run() async {
        var lastSaved: Timestamp?
        var heldBack: Quote?
        var failing = false
        for await quote in offers {
            if let lastSaved, quote.timestamp.milliseconds(since: lastSaved) < minimumInterval.wholeMilliseconds {
                heldBack = quote
                continue
            }
            heldBack = await save(quote, failing: &failing) ? nil : quote
            if heldBack == nil { lastSaved = quote.timestamp }
        }
        if let heldBack { _ = await save(heldBack, failing: &failing) }
    }

    private func save(_ quote: Quote, failing: inout Bool) async -> Bool {
        let store = self.store
        let started = ContinuousClock.now
        do {
            try await NIOThreadPool.singleton.runIfActive { try store.save(quote) }
            duration.recordNanoseconds(started.duration(to: .now).wholeNanoseconds)
            if failing {
                failing = false
                report(nil)
                logger.info("saving quotes works again")
            }
            return true
        } catch {
            failures.increment()
            if !failing {
                failing = true
                report("\(error)")
                logger.error("cannot save the quote: \(error); still serving it from memory", metadata: ["error": "\(error)"])
            }
            return false
        }
    }
}
