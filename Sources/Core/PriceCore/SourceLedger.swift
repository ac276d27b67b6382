import FoundationEssentials
import Synchronization

/// How a source stands, as `btcctl sources` shows it.
public enum SourceState: String, Sendable, Hashable {
    /// Answering, or not asked yet with no failure known.
    case ok
    case failing
    /// Resting because the venue asked (Retry-After, geo-restriction, near its rate limit).
    case coolingDown = "cooling-down"
    /// Configured but not used (no API key, or excluded from consensus).
    case disabled
    /// Configured, but it has no market in the chosen currency; never asked.
    case unsupported
    /// It sent a price that moved too far to serve before another venue confirms it.
    case unconfirmed
}

/// What the ledger needs to know of a source before it is ever asked.
public struct SourceDescriptor: Sendable, Hashable {
    public let name: SourceName
    public let quoteAsset: String
    public let limits: SourceLimits

    public init(name: SourceName, quoteAsset: String, limits: SourceLimits) {
        self.name = name
        self.quoteAsset = quoteAsset
        self.limits = limits
    }
}

/// One row of the sources report.
public struct SourceStatus: Sendable, Hashable {
    public var name: SourceName
    public var state: SourceState
    public var quoteAsset: String
    public var lastPrice: Price?
    public var lastPriceAt: Timestamp?
    public var lastError: String?
    public var lastErrorAt: Timestamp?
    public var latency: Duration?
    /// Calls in the last 24 h, counted for sources with a daily budget.
    public var callsLastDay: Int?
    public var dailyBudget: Int?
    /// Whether it supplied the current quote.
    public var selected: Bool
    /// Why it is disabled, when it is.
    public var note: String?
    /// Candle requests made for the history this run, counted apart from the price fetches:
    /// they have their own pace within the venue's limits (`CandleSource.candlePace`).
    public var candleRequests = 0

    public static func disabled(_ name: SourceName, quoteAsset: String, reason: String, state: SourceState = .disabled) -> SourceStatus {
        SourceStatus(name: name, state: state, quoteAsset: quoteAsset, selected: false, note: reason)
    }
}

/// What the daemon knows about each source across fetch cycles and reloads: health and
/// cool-downs, the calls made against each source's limits, and the last answers. Shared by
/// successive fetch loops, so a reload neither forgets a cool-down nor resets a budget. Its
/// writes are internal: they come through `LedgerDoor`, the one writer; everyone reads here.
public final class SourceLedger<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    struct Observation: Sendable {
        var lastPrice: Price?
        var lastPriceAt: Timestamp?
        var lastError: String?
        var lastErrorAt: Timestamp?
        var latency: Duration?
        var outlier = false
    }

    struct State: Sendable {
        var health = SourceHealth<Instant>(sources: [])
        var order: [SourceName] = []
        var limits: [SourceName: SourceLimits] = [:]
        var assets: [SourceName: String] = [:]
        var calls: [SourceName: CallLog<Instant>] = [:]
        var observations: [SourceName: Observation] = [:]
        var selected: [SourceName] = []
        var shortfall: String?
        /// Bumped whenever what `restraints` reports may have changed.
        var restraintVersion = 0
        /// Venues that refused their stream, until when.
        var streamRefusals: [SourceName: Instant] = [:]
        /// The last candle request to each venue, and how many this run: candles have their own
        /// pace, apart from the price fetches', so they never take a fetch's turn.
        var lastCandles: [SourceName: Instant] = [:]
        var candleCounts: [SourceName: Int] = [:]
    }

    let state = Mutex(State())

    public init() {}

    /// Sets the chain for the next cycles, keeping everything known about sources that stay.
    func configure(_ sources: [any PriceSource]) {
        configure(sources.map { SourceDescriptor(name: $0.name, quoteAsset: $0.quoteAsset, limits: $0.limits) })
    }

    func configure(_ sources: [SourceDescriptor]) {
        state.withLock { state in
            state.order = sources.map(\.name)
            state.health.reorder(state.order)
            for source in sources {
                state.limits[source.name] = source.limits
                state.assets[source.name] = source.quoteAsset
            }
        }
    }

    /// Nil when the source may be asked now, which is then counted as a call; otherwise why not.
    /// `alsoAllowed` is asked last with the source's limits, once the ledger allows the call (the
    /// host-wide pace), and its refusal counts no call.
    func admit(_ source: SourceName, at now: Instant, alsoAllowed: (SourceLimits) -> Bool = { _ in true }) -> SourceAttempt? {
        state.withLock { state in
            if state.health.isCoolingDown(source, at: now) { return .coolingDown(source) }
            let limits = state.limits[source] ?? SourceLimits(minimumInterval: .seconds(1))
            var log = state.calls[source] ?? CallLog()
            guard log.allows(limits, at: now), alsoAllowed(limits) else { return .paced(source) }
            log.record(at: now, keepingDayFor: limits)
            state.calls[source] = log
            if limits.dailyCalls != nil { state.restraintVersion += 1 }
            return nil
        }
    }

    /// Nil when a candle request may go to `source` now, which is then counted; otherwise why
    /// not. Candles keep their own `pace` (the spare budget beside the price fetches, which the
    /// catalog sets inside the venue's published limits), so a candle never takes a fetch's turn
    /// and a fetch never waits for a candle; a rest the venue asked for stops both.
    /// `alsoAllowed` is the host-wide candle pace, asked last; its refusal counts nothing.
    func admitCandles(_ source: SourceName, pace: Duration, at now: Instant, alsoAllowed: () -> Bool = { true }) -> SourceAttempt? {
        state.withLock { state in
            if state.health.isCoolingDown(source, at: now) { return .coolingDown(source) }
            if let last = state.lastCandles[source], last.duration(to: now) < pace { return .paced(source) }
            guard alsoAllowed() else { return .paced(source) }
            state.lastCandles[source] = now
            state.candleCounts[source, default: 0] += 1
            return nil
        }
    }

    /// The earliest instant a candle request may go to `source` by its candle pace and rest.
    public func nextCandlesAllowed(_ source: SourceName, pace: Duration, at now: Instant) -> Instant {
        state.withLock { state in
            let paced = state.lastCandles[source].map { $0.advanced(by: pace) } ?? now
            return max(paced, state.health.coolingDownUntil(source) ?? now, now)
        }
    }

    /// The earliest instant `source` may be asked again by its own limits and rest (another
    /// instance's call, the host-wide pace, is not known here).
    public func nextAllowed(_ source: SourceName, at now: Instant) -> Instant {
        state.withLock { state in
            let limits = state.limits[source] ?? SourceLimits(minimumInterval: .seconds(1))
            let paced = state.calls[source]?.nextAllowed(limits, at: now) ?? now
            return max(paced, state.health.coolingDownUntil(source).map { max($0, now) } ?? now)
        }
    }

    /// A request outside the fetch cycles (candles for the history) failed: a rest the venue
    /// asked for (429, 418, 451) applies to every request to it, and outlives a restart.
    func requestFailed(_ source: SourceName, _ failure: FetchFailure, at now: Instant) {
        guard let cooldown = failure.cooldown else { return }
        state.withLock { state in
            let until = now.advanced(by: cooldown)
            state.health.rest(source, until: max(until, state.health.coolingDownUntil(source) ?? until))
            state.restraintVersion += 1
        }
    }

    /// A venue refused its stream: recorded so that it outlives a restart (see `restraints`).
    func refuseStream(_ source: SourceName, until: Instant) {
        state.withLock { state in
            state.streamRefusals[source] = until
            state.restraintVersion += 1
        }
    }

    /// Until when a venue's stream is not to be asked for, as refused in this run or the last.
    public func streamRefusal(_ source: SourceName, at now: Instant) -> Instant? {
        state.withLock { state in state.streamRefusals[source].flatMap { $0 > now ? $0 : nil } }
    }

    /// Changes whenever a cool-down starts or a budgeted call is made, so a caller can skip
    /// rebuilding `restraints` on the cycles (nearly all of them) where nothing changed.
    public var restraintVersion: Int { state.withLock { $0.restraintVersion } }

    /// Whether a source that was not asked is still known to work.
    public func isAnswering(_ source: SourceName) -> Bool {
        state.withLock { $0.health.isFailing(source) == false && $0.observations[source]?.lastPrice != nil }
    }

    /// Folds one cycle in; returns the transitions worth a log line.
    func record(_ round: FetchRound, reading: PolledReading?, outcome: ConsensusOutcome? = nil, holding: Bool,
                       at now: Instant, wallTime: Timestamp) -> [HealthEvent] {
        state.withLock { state in
            var events = state.health.record(round.attempts, gotQuote: reading != nil, holding: holding, at: now)
            if round.attempts.contains(where: \.startsRest) { state.restraintVersion += 1 }
            for attempt in round.attempts {
                switch attempt {
                case .succeeded(let source, let answer):
                    state.observations[source, default: Observation()].lastPrice = answer.price
                    state.observations[source, default: Observation()].lastPriceAt = wallTime
                case .failed(let source, let failure):
                    // A held or refused price is still what the venue said.
                    if let sent = failure.sentPrice {
                        state.observations[source, default: Observation()].lastPrice = sent
                        state.observations[source, default: Observation()].lastPriceAt = wallTime
                    }
                    state.observations[source, default: Observation()].lastError = failure.description
                    state.observations[source, default: Observation()].lastErrorAt = wallTime
                case .coolingDown, .paced:
                    break
                }
            }
            for (source, latency) in round.latencies { state.observations[source, default: Observation()].latency = latency }
            if let outcome {
                // Too few answers to form a consensus say nothing of who is out of line: a lone
                // answer (the others timed out) would "agree" with itself, and flap the flag.
                if round.answers.count >= outcome.required {
                    events += Self.outlierTransitions(outcome, round: round, observations: &state.observations)
                }
                if reading == nil, !outcome.agreeing.isEmpty || !outcome.outliers.isEmpty {
                    if state.shortfall == nil { events.append(.tooFewAgree(agreeing: outcome.agreeing.count, required: outcome.required)) }
                    state.shortfall = "consensus: \(outcome.agreeing.count) of the \(outcome.required) required sources agree"
                } else if reading != nil {
                    state.shortfall = nil
                }
            }
            if let reading { state.selected = reading.contributors }
            return events
        }
    }

    private static func outlierTransitions(_ outcome: ConsensusOutcome, round: FetchRound,
                                           observations: inout [SourceName: Observation]) -> [HealthEvent] {
        var events: [HealthEvent] = []
        // The consensus price when there is one; recomputed only when too few agreed.
        let median = outcome.price
            ?? Consensus.median(round.answers.filter { outcome.agreeing.contains($0.source) }.map(\.quote.price))
            ?? Consensus.median(round.answers.map(\.quote.price))
        for answer in round.answers {
            let isOutlier = outcome.outliers.contains(answer.source)
            let wasOutlier = observations[answer.source]?.outlier ?? false
            if isOutlier, !wasOutlier, let median {
                events.append(.sourceOutlier(answer.source, price: answer.quote.price, median: median))
            } else if !isOutlier, wasOutlier {
                events.append(.sourceAgreesAgain(answer.source))
            }
            observations[answer.source, default: Observation()].outlier = isOutlier
        }
        return events
    }

    /// The earliest instant a source that is resting or paced may be asked again.
    public func earliestReopening(after now: Instant) -> Instant? {
        state.withLock { state in
            let cooldown = state.health.earliestCooldownEnd(after: now)
            let paced = state.order.compactMap { source -> Instant? in
                guard let log = state.calls[source], let limits = state.limits[source], !log.allows(limits, at: now) else { return nil }
                return log.nextAllowed(limits, at: now)
            }.min()
            return [cooldown, paced].compactMap { $0 }.min()
        }
    }

    /// The stream carried this cycle's quotes: failures before now are history.
    func quoteArrivedElsewhere(at now: Instant) {
        state.withLock { $0.health.quoteArrived(at: now) }
    }

    /// `<venue>: HTTP 451 (geo-restricted); <venue>: HTTP 503`, or nil when all is well.
    public var failureSummary: String? {
        state.withLock { state in
            let parts = [state.health.failureSummary, state.shortfall].compactMap { $0 }
            return parts.isEmpty ? nil : parts.joined(separator: "; ")
        }
    }

    /// One row per source of the current chain, in order.
    public func statuses(at now: Instant) -> [SourceStatus] {
        state.withLock { state in
            state.order.map { source in
                let observation = state.observations[source] ?? Observation()
                let limits = state.limits[source]
                let sourceState: SourceState = state.health.isCoolingDown(source, at: now) ? .coolingDown
                    : state.health.isUnconfirmed(source) ? .unconfirmed
                    : state.health.isFailing(source) ? .failing : .ok
                return SourceStatus(
                    name: source, state: sourceState, quoteAsset: state.assets[source] ?? "USD",
                    lastPrice: observation.lastPrice, lastPriceAt: observation.lastPriceAt,
                    lastError: observation.lastError, lastErrorAt: observation.lastErrorAt, latency: observation.latency,
                    callsLastDay: limits?.dailyCalls.map { _ in state.calls[source]?.calls(inLastDayAt: now) ?? 0 },
                    dailyBudget: limits?.dailyCalls, selected: state.selected.contains(source),
                    note: observation.outlier ? "outlier" : nil, candleRequests: state.candleCounts[source] ?? 0)
            }
        }
    }
}

extension SourceAttempt {
    /// Whether this attempt puts its source to rest (a cool-down the venue asked for).
    var startsRest: Bool {
        switch self {
        case .succeeded(_, let quote): quote.pauseRequested != nil
        case .failed(_, let failure): failure.cooldown != nil
        case .coolingDown, .paced: false
        }
    }
}
