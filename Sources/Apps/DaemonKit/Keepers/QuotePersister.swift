import CoreMetrics
import Logging
import PriceCore
import Synchronization

/// Writes quotes to the store at the configured rate without ever holding up the fetch loop.
/// The newest offer waits in one slot; the writer is woken only when a write is due, so a quote
/// (or a streamed trade) inside the interval costs no thread a wakeup. One writer means at most
/// one write at a time; while it writes, newer offers replace the waiting one. Writes run off
/// the cooperative pool (fsync can block), and a broken disk is reported once, not every second:
/// in the log, and as a change on `problems`, which the price intake follows.
public final class QuotePersister: Sendable {
    private let store: any QuoteStore
    private let work: any BlockingWork
    private let minimumInterval: Duration
    private let logger: Logger
    private let problemsContinuation: AsyncStream<String?>.Continuation
    private let wakeups: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    private let slot = Mutex(Slot())
    private let duration: CoreMetrics.Timer
    private let failures: Counter

    private struct Slot {
        /// The newest quote not written yet.
        var waiting: Quote?
        var lastSaved: Timestamp?
        /// The writer was woken and has not taken `waiting` yet.
        var woken = false
    }

    /// The problem when saving starts failing, and nil when it works again; it ends when `run`
    /// does. Only changes are sent, at most one per write, and the follower (the price intake)
    /// runs beside the writer, so a few slots are plenty; a follower far behind loses the
    /// oldest changes, never where saving stands now.
    public let problems: AsyncStream<String?>

    /// `work` runs the writes (fsync blocks).
    public init(store: any QuoteStore, work: any BlockingWork, minimumInterval: Duration, logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.work = work
        duration = CoreMetrics.Timer(label: "btcpriced_persist_duration_seconds", factory: metrics)
        failures = Counter(label: "btcpriced_persist_failures_total", factory: metrics)
        self.store = store
        self.minimumInterval = minimumInterval
        self.logger = logger
        (wakeups, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        (problems, problemsContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// Returns at once; the write happens behind.
    public func offer(_ quote: Quote) {
        let interval = minimumInterval.wholeMilliseconds
        let wake = slot.withLock { slot in
            slot.waiting = quote
            guard !slot.woken else { return false }
            if let lastSaved = slot.lastSaved, quote.timestamp.milliseconds(since: lastSaved) < interval { return false }
            slot.woken = true
            return true
        }
        if wake { continuation.yield() }
    }

    /// No more offers: `run` writes what is left and returns.
    public func finish() {
        continuation.finish()
    }

    /// Writes offered quotes until `finish`, then whatever the rate limit held back.
    public func run() async {
        defer { problemsContinuation.finish() }
        var outage = OutageLog(logger: logger)
        for await _ in wakeups {
            let taken = slot.withLock { slot in
                slot.woken = false
                defer { slot.waiting = nil }
                return slot.waiting
            }
            guard let quote = taken else { continue }
            if await save(quote, outage: &outage) {
                slot.withLock { $0.lastSaved = quote.timestamp }
            } else {
                // Tried again with the next offer, or at the end.
                slot.withLock { slot in slot.waiting = slot.waiting ?? quote }
            }
        }
        if let heldBack = slot.withLock({ slot in defer { slot.waiting = nil }; return slot.waiting }) {
            _ = await save(heldBack, outage: &outage)
        }
    }

    private func save(_ quote: Quote, outage: inout OutageLog) async -> Bool {
        let store = self.store
        let started = ContinuousClock.now
        do {
            try await work.run { try store.save(quote) }
            duration.recordNanoseconds(started.duration(to: .now).wholeNanoseconds)
            if outage.succeeded("saving quotes works again") { problemsContinuation.yield(nil) }
            return true
        } catch {
            failures.increment()
            if outage.failed(error, "cannot save the quote: \(error); still serving it from memory") { problemsContinuation.yield("\(error)") }
            return false
        }
    }
}
