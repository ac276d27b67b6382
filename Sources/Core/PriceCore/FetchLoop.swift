/// Everything one fetch cycle produced, handed to the daemon to publish, persist and log.
public struct CycleReport: Sendable {
    public let quote: Quote?
    public let attempts: [SourceAttempt]
    public let events: [HealthEvent]
    public let failureSummary: String?
    /// How long the loop waits before the next cycle starts.
    public let nextCycleIn: Duration
}

public struct FetchSchedule: Sendable, Hashable {
    public var interval: Duration
    public var maximumBackoff: Duration

    public init(interval: Duration, maximumBackoff: Duration = .seconds(30)) {
        self.interval = interval
        self.maximumBackoff = maximumBackoff
    }

    /// Exponential from twice the interval, capped, with "equal jitter" (half fixed, half random)
    /// so a fleet of daemons does not retry in lockstep.
    public func backoff(afterConsecutiveFailures failures: Int, jitter unit: Double) -> Duration {
        let exponent = min(max(failures, 1), 16)
        let grown = interval * (1 << exponent)
        let capped = min(grown, maximumBackoff)
        return capped / 2 + (capped / 2) * min(max(unit, 0), 1)
    }

    /// The next slot on the fixed grid; slots already missed by a slow cycle are skipped, not replayed.
    public func nextTick<I: InstantProtocol>(after deadline: I, now: I) -> I where I.Duration == Duration {
        var next = deadline.advanced(by: interval)
        if next <= now {
            let missed = Int(next.duration(to: now) / interval) + 1
            next = next.advanced(by: interval * missed)
        }
        return next
    }
}

/// Runs fetch cycles at a fixed rate (no drift, no overlap) and backs off while every source fails.
public struct FetchLoop<C: Clock>: Sendable where C.Duration == Duration {
    public let fetcher: FallbackFetcher<C>
    public let schedule: FetchSchedule
    public let wallClock: any WallClock
    public let jitter: any JitterSource

    public init(fetcher: FallbackFetcher<C>, schedule: FetchSchedule, wallClock: any WallClock, jitter: any JitterSource = SystemJitter()) {
        self.fetcher = fetcher
        self.schedule = schedule
        self.wallClock = wallClock
        self.jitter = jitter
    }

    /// Returns when the task is cancelled.
    public func run(_ handle: @Sendable (CycleReport) async -> Void) async {
        let clock = fetcher.clock
        var health = SourceHealth<C.Instant>(sources: fetcher.sources.map(\.name))
        var consecutiveFailures = 0
        var deadline = clock.now
        while !Task.isCancelled {
            let started = clock.now
            let attempts = await fetcher.fetch { health.isCoolingDown($0, at: started) }
            if Task.isCancelled { return }
            let now = clock.now
            let events = health.record(attempts, at: now)
            let quote = attempts.lazy.compactMap { attempt -> Quote? in
                guard case .succeeded(let source, let quote) = attempt else { return nil }
                return Quote(price: quote.price, symbol: quote.symbol, source: source, timestamp: self.wallClock.now())
            }.first

            if quote != nil {
                consecutiveFailures = 0
                deadline = schedule.nextTick(after: deadline, now: now)
            } else {
                consecutiveFailures += 1
                var wait = schedule.backoff(afterConsecutiveFailures: consecutiveFailures, jitter: jitter.unitInterval())
                if let cooldownEnd = health.earliestCooldownEnd(after: now), attempts.allSatisfy(\.isCoolingDown) {
                    // Capped like any backoff, so the loop keeps proving it is alive to the watchdog.
                    wait = min(max(now.duration(to: cooldownEnd), schedule.interval), schedule.maximumBackoff)
                }
                deadline = now.advanced(by: wait)
            }
            await handle(CycleReport(quote: quote, attempts: attempts, events: events,
                                     failureSummary: health.failureSummary, nextCycleIn: now.duration(to: deadline)))
            do { try await clock.sleep(until: deadline, tolerance: nil) } catch { return }
        }
    }
}

extension SourceAttempt {
    var isCoolingDown: Bool {
        if case .coolingDown = self { return true }
        return false
    }
}
