/// Everything one cycle asked and heard.
public struct FetchRound: Sendable, Hashable {
    public var attempts: [SourceAttempt]
    /// How long each source that was asked took to answer or fail.
    public var latencies: [SourceName: Duration]
    /// Answers already stale when they came, in chain order: each is its venue's failure
    /// (`FetchFailure.staleAnswer`), and the first is served only when no venue answered.
    public var lateAnswers: [VenueAnswer] = []

    public init(attempts: [SourceAttempt], latencies: [SourceName: Duration] = [:]) {
        self.attempts = attempts
        self.latencies = latencies
    }

    public var answers: [VenueAnswer] {
        attempts.compactMap { attempt in
            guard case .succeeded(let source, let quote) = attempt else { return nil }
            return VenueAnswer(source: source, quote: quote)
        }
    }
}

/// Asks sources, each under a timeout: in priority order until one answers (fallback), or all
/// at once (consensus). `admit` says which may be asked now and counts the call.
public struct FallbackFetcher<C: Clock>: Sendable where C.Duration == Duration {
    public let sources: [any PriceSource]
    public let timeout: Duration
    public let clock: C
    /// How old an answer already is when it comes, when that is older than it may be (nil:
    /// fresh enough). Unset, every answer is taken.
    public var staleOnArrival: (@Sendable (SourceQuote) -> Duration?)?
    /// Why a venue's price may not be served now (held for confirmation, or refused), or nil.
    /// Unset, every price is taken. Asked in fallback mode only: a consensus is its own check.
    public var vet: (@Sendable (SourceName, SourceQuote) -> FetchFailure?)?

    public init(sources: [any PriceSource], timeout: Duration, clock: C) {
        self.sources = sources
        self.timeout = timeout
        self.clock = clock
    }

    /// The attempts made, in order; the last one is the success if there was one.
    /// A proxy that is down (it refused, or never finished its handshake) fails every venue
    /// behind it this cycle without asking them through it: each would wait out the same
    /// connect budget, and the cycle would say nothing for minutes.
    public func fetch(admit: (SourceName) -> SourceAttempt?) async -> FetchRound {
        var round = FetchRound(attempts: [])
        var downProxies: [String: FetchFailure] = [:]
        for source in sources {
            if Task.isCancelled { break }
            if let proxy = source.proxy, let failure = downProxies[proxy] {
                round.attempts.append(.failed(source.name, failure))
                continue
            }
            if let skipped = admit(source.name) {
                round.attempts.append(skipped)
                continue
            }
            let started = clock.now
            let attempt = await fetchWithTimeout(source)
            round.latencies[source.name] = started.duration(to: clock.now)
            if case .succeeded(let name, let quote) = attempt, let failure = vet?(name, quote) {
                // The chain moves on: the next venue may confirm or contradict it this cycle.
                round.attempts.append(.failed(name, failure))
                continue
            }
            if case .succeeded(let name, let quote) = attempt, let age = staleOnArrival?(quote) {
                round.attempts.append(.failed(name, .staleAnswer(age: age)))
                round.lateAnswers.append(VenueAnswer(source: name, quote: quote))
                continue
            }
            round.attempts.append(attempt)
            if case .failed(_, .proxy(let trouble)) = attempt, trouble.isProxyDown, let proxy = source.proxy { downProxies[proxy] = .proxy(trouble) }
            if case .succeeded = attempt { break }
        }
        return round
    }

    /// Asks every admitted source concurrently; attempts come back in chain order.
    public func fetchAll(admit: (SourceName) -> SourceAttempt?) async -> FetchRound {
        var skipped: [Int: SourceAttempt] = [:]
        var asked: [(Int, any PriceSource)] = []
        for (index, source) in sources.enumerated() {
            if let skip = admit(source.name) { skipped[index] = skip } else { asked.append((index, source)) }
        }
        let clock = self.clock
        let results = await withTaskGroup(of: (Int, SourceAttempt, Duration).self) { group in
            for (index, source) in asked {
                group.addTask {
                    let started = clock.now
                    let attempt = await self.fetchWithTimeout(source)
                    return (index, attempt, started.duration(to: clock.now))
                }
            }
            var collected: [(Int, SourceAttempt, Duration)] = []
            for await result in group { collected.append(result) }
            return collected
        }
        var round = FetchRound(attempts: [])
        var byIndex = skipped
        for (index, attempt, latency) in results {
            byIndex[index] = attempt
            round.latencies[sources[index].name] = latency
        }
        round.attempts = byIndex.keys.sorted().compactMap { byIndex[$0] }
        return round
    }

    private func fetchWithTimeout(_ source: any PriceSource) async -> SourceAttempt {
        let limit = source.attemptLimit ?? AttemptLimit(self.timeout, failure: .timeout(after: self.timeout))
        let outcome = await TimeLimit.run(limit.duration, on: clock, failure: limit.failure) { try await source.fetchQuote() }
            ?? .failure(limit.failure)
        switch outcome {
        case .success(let quote): return .succeeded(source.name, quote)
        case .failure(let failure): return .failed(source.name, failure)
        }
    }
}
