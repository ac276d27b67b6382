/// One source's part in one fetch cycle.
public enum SourceAttempt: Sendable, Hashable {
    case succeeded(SourceName, SourceQuote)
    case failed(SourceName, FetchFailure)
    /// Not asked this cycle: it asked us to wait (Retry-After, geo-restriction).
    case coolingDown(SourceName)
    /// Not asked this cycle: its published limits allow no call yet.
    case paced(SourceName)
}

/// A change worth one log line. The loop reports transitions, never steady states, so an
/// outage costs one warning and its end one info line.
public enum HealthEvent: Sendable, Hashable {
    case sourceFailing(SourceName, FetchFailure)
    case sourceRecovered(SourceName, failedCycles: Int)
    case allSourcesFailing
    case quotesFlowingAgain
    /// The venue said it is near its rate limit (a used request weight); it rests this long.
    case sourceNearRateLimit(SourceName, pause: Duration)
    /// In consensus mode: this venue's price is too far from the others' median.
    case sourceOutlier(SourceName, price: Price, median: Price)
    case sourceAgreesAgain(SourceName)
    /// In consensus mode: fewer venues agreed than required.
    case tooFewAgree(agreeing: Int, required: Int)
}

/// Tracks which sources are failing and which are cooling down.
public struct SourceHealth<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    struct State: Sendable {
        var failure: FetchFailure?
        var failedAt: Instant?
        var failedCycles = 0
        var coolingDownUntil: Instant?
    }

    /// When the last quote came, and the chain position of the first source that gave it (0 for
    /// a quote from elsewhere, such as the stream): failures older than it are history, unless
    /// their source ranks above it and is still why the quote comes from further down.
    private var lastQuote: (at: Instant, rank: Int)?

    private var states: [SourceName: State] = [:]
    private var order: [SourceName]
    private var allFailing = false

    public init(sources: [SourceName]) { self.order = sources }

    /// A reload may change the chain; what is known about each source is kept.
    public mutating func reorder(_ sources: [SourceName]) { order = sources }

    public func isFailing(_ source: SourceName) -> Bool { states[source]?.failure != nil }

    /// Its last answer is a price held for confirmation.
    public func isUnconfirmed(_ source: SourceName) -> Bool {
        if case .unconfirmedPrice = states[source]?.failure { true } else { false }
    }


    public func coolingDownUntil(_ source: SourceName) -> Instant? { states[source]?.coolingDownUntil }

    /// A cool-down carried over from before a restart.
    public mutating func rest(_ source: SourceName, until instant: Instant) {
        states[source, default: State()].coolingDownUntil = instant
    }

    public func isCoolingDown(_ source: SourceName, at now: Instant) -> Bool {
        guard let until = states[source]?.coolingDownUntil else { return false }
        return now < until
    }

    /// Earliest moment a cooling-down source may be asked again.
    public func earliestCooldownEnd(after now: Instant) -> Instant? {
        states.values.compactMap(\.coolingDownUntil).filter { $0 > now }.min()
    }

    /// Folds one cycle in and returns the transitions it caused.
    /// `gotQuote` says whether the cycle produced a quote; `holding` that it produced none only
    /// because a working source may not be asked yet, which is no failure.
    public mutating func record(_ attempts: [SourceAttempt], gotQuote: Bool, holding: Bool = false, at now: Instant) -> [HealthEvent] {
        var events: [HealthEvent] = []
        for attempt in attempts {
            switch attempt {
            case .succeeded(let source, let quote):
                let previous = states[source] ?? State()
                // A held price is logged by the check that held it, not as an outage.
                if let failure = previous.failure, failure.sentPrice == nil {
                    events.append(.sourceRecovered(source, failedCycles: previous.failedCycles))
                }
                var state = State()
                if let pause = quote.pauseRequested {
                    let alreadyPaused = previous.coolingDownUntil.map { $0 > now } ?? false
                    if !alreadyPaused { events.append(.sourceNearRateLimit(source, pause: pause)) }
                    state.coolingDownUntil = now.advanced(by: pause)
                }
                states[source] = state
            case .failed(let source, let failure):
                var state = states[source] ?? State()
                // A new outage is news; so is a venue that was failing (a timeout) and now asks
                // for a rest (451, 429): the warning then carries its advice.
                let startsRest = failure.cooldown != nil && state.failure?.cooldown == nil
                if failure.sentPrice == nil, state.failure?.sentPrice != nil || state.failure == nil || startsRest {
                    events.append(.sourceFailing(source, failure))
                }
                state.failure = failure
                state.failedAt = now
                state.failedCycles += 1
                state.coolingDownUntil = failure.cooldown.map { now.advanced(by: $0) }
                states[source] = state
            case .coolingDown, .paced:
                break
            }
        }
        if gotQuote {
            let ranks = attempts.compactMap { attempt -> Int? in
                guard case .succeeded(let source, _) = attempt else { return nil }
                return order.firstIndex(of: source)
            }
            lastQuote = (now, ranks.min() ?? 0)
        }
        if !gotQuote && !holding && !allFailing {
            allFailing = true
            events.append(.allSourcesFailing)
        } else if gotQuote && allFailing {
            allFailing = false
            events.append(.quotesFlowingAgain)
        }
        return events
    }

    /// A quote came from outside the chain (the stream carries them): every older failure is
    /// history now.
    public mutating func quoteArrived(at now: Instant) {
        lastQuote = (now, 0)
    }

    /// `<venue>: HTTP 451 (geo-restricted); <venue>: rate-limited`, or nil when all is well.
    /// Only failures that still matter: since the last quote, or of a source ranked above the
    /// one that gave it (why the quote comes from further down the chain).
    public var failureSummary: String? {
        let parts = order.enumerated().compactMap { rank, source -> String? in
            guard let state = states[source], let failure = state.failure else { return nil }
            if let lastQuote, rank >= lastQuote.rank, let failedAt = state.failedAt, failedAt < lastQuote.at { return nil }
            return "\(source): \(failure)"
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
