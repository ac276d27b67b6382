/// The one writer of the venues' ledger: every request asked, answered or refused, of either
/// kind (`RequestKind`), and every fact the rest of the daemon brings (a plan's chain, what the
/// last run saved, a refused stream) goes in here. The fetch loop, the backfill and the daemon's
/// `LedgerKeeper` each hold this door; everyone else reads `ledger`.
public final class LedgerDoor<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// For reading: statuses, restraints, when a venue may next be asked.
    public let ledger: SourceLedger<Instant>

    public init(_ ledger: SourceLedger<Instant> = SourceLedger()) {
        self.ledger = ledger
    }

    // MARK: The chain and the last run

    /// Sets the chain for the next cycles, keeping everything known about sources that stay.
    public func configure(_ chain: [SourceDescriptor]) { ledger.configure(chain) }

    public func configure(_ sources: [any PriceSource]) { ledger.configure(sources) }

    /// Takes back what a previous run left; returns the sources still resting.
    @discardableResult
    public func restore(_ restraints: [SourceName: SourceRestraint], at now: Instant, wallTime: Timestamp) -> [SourceName] {
        ledger.restore(restraints, at: now, wallTime: wallTime)
    }

    // MARK: Price requests (the fetch loop)

    /// Nil when `source` may be asked for a price now, which is then counted; otherwise why not.
    /// `alsoAllowed` is the host-wide pace, asked last; its refusal counts nothing.
    public func admitPrice(_ source: SourceName, at now: Instant, alsoAllowed: (SourceLimits) -> Bool = { _ in true }) -> SourceAttempt? {
        ledger.admit(source, at: now, alsoAllowed: alsoAllowed)
    }

    /// Folds one cycle in; returns the transitions worth a log line.
    public func record(_ round: FetchRound, reading: PolledReading?, outcome: ConsensusOutcome? = nil, holding: Bool,
                       at now: Instant, wallTime: Timestamp) -> [HealthEvent] {
        ledger.record(round, reading: reading, outcome: outcome, holding: holding, at: now, wallTime: wallTime)
    }

    /// The stream carried the quote this cycle: no source was asked, and none is failing for it.
    public func quoteArrivedElsewhere(at now: Instant) { ledger.quoteArrivedElsewhere(at: now) }

    // MARK: Candle requests (the backfill)

    /// Nil when `source` may be asked for candles now, which is then counted; otherwise why not.
    /// Candles keep their own `pace`, so they never take a price request's turn.
    public func admitCandles(_ source: SourceName, pace: Duration, at now: Instant, alsoAllowed: () -> Bool = { true }) -> SourceAttempt? {
        ledger.admitCandles(source, pace: pace, at: now, alsoAllowed: alsoAllowed)
    }

    /// A candle request failed: a rest the venue asked for (429, 418, 451) applies to every
    /// request to it, and outlives a restart.
    public func candlesFailed(_ source: SourceName, _ failure: FetchFailure, at now: Instant) {
        ledger.requestFailed(source, failure, at: now)
    }

    // MARK: Streams

    /// A venue refused its stream: not asked for it again until `until`, across restarts.
    public func refuseStream(_ source: SourceName, until: Instant) { ledger.refuseStream(source, until: until) }
}
