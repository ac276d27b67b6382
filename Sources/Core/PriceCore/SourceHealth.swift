/// One source's part in one fetch cycle.
public enum SourceAttempt: Sendable, Hashable {
    case succeeded(SourceName, SourceQuote)
    case failed(SourceName, FetchFailure)
    /// Not asked this cycle: it asked us to wait (Retry-After, geo-restriction).
    case coolingDown(SourceName)
}

/// A change worth one log line. The loop reports transitions, never steady states, so an
/// outage costs one warning and its end one info line.
public enum HealthEvent: Sendable, Hashable {
    case sourceFailing(SourceName, FetchFailure)
    case sourceRecovered(SourceName, failedCycles: Int)
    case allSourcesFailing
    case quotesFlowingAgain
}

/// Tracks which sources are failing and which are cooling down.
public struct SourceHealth<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    struct State: Sendable {
        var failure: FetchFailure?
        var failedCycles = 0
        var coolingDownUntil: Instant?
    }

    private var states: [SourceName: State] = [:]
    private var order: [SourceName]
    private var allFailing = false

    public init(sources: [SourceName]) { self.order = sources }

    public func isCoolingDown(_ source: SourceName, at now: Instant) -> Bool {
        guard let until = states[source]?.coolingDownUntil else { return false }
        return now < until
    }

    /// Earliest moment a cooling-down source may be asked again.
    public func earliestCooldownEnd(after now: Instant) -> Instant? {
        states.values.compactMap(\.coolingDownUntil).filter { $0 > now }.min()
    }

    /// Folds one cycle in and returns the transitions it caused.
    public mutating func record(_ attempts: [SourceAttempt], at now: Instant) -> [HealthEvent] {
        var events: [HealthEvent] = []
        var gotQuote = false
        for attempt in attempts {
            switch attempt {
            case .succeeded(let source, _):
                gotQuote = true
                let previous = states[source] ?? State()
                if previous.failure != nil {
                    events.append(.sourceRecovered(source, failedCycles: previous.failedCycles))
                }
                states[source] = State()
            case .failed(let source, let failure):
                var state = states[source] ?? State()
                if state.failure == nil { events.append(.sourceFailing(source, failure)) }
                state.failure = failure
                state.failedCycles += 1
                state.coolingDownUntil = failure.cooldown.map { now.advanced(by: $0) }
                states[source] = state
            case .coolingDown:
                break
            }
        }
        if !gotQuote && !allFailing {
            allFailing = true
            events.append(.allSourcesFailing)
        } else if gotQuote && allFailing {
            allFailing = false
            events.append(.quotesFlowingAgain)
        }
        return events
    }

    /// `binance: HTTP 451 (geo-restricted); cryptocompare: rate-limited`, or nil when all is well.
    public var failureSummary: String? {
        let parts = order.compactMap { source in states[source]?.failure.map { "\(source): \($0)" } }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}
