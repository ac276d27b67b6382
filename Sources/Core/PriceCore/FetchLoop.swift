/// Everything one fetch cycle produced, handed to the daemon to publish, persist and log.
public struct CycleReport: Sendable {
    /// The price it found, undated: the intake stamps it on arrival.
    public let reading: PolledReading?
    /// The answering venue's own 24 h figures, when it stated them (fallback mode only).
    public let day: DayRange?
    public let attempts: [SourceAttempt]
    public let events: [HealthEvent]
    public let failureSummary: String?
    /// How long the loop waits before the next cycle starts.
    public let nextCycleIn: Duration

    public init(reading: PolledReading?, day: DayRange? = nil, attempts: [SourceAttempt] = [], events: [HealthEvent] = [],
                failureSummary: String?, nextCycleIn: Duration) {
        self.reading = reading
        self.day = day
        self.attempts = attempts
        self.events = events
        self.failureSummary = failureSummary
        self.nextCycleIn = nextCycleIn
    }
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

    /// The first slot of the grid through `slot` that is not before `instant` (`slot` itself
    /// when `instant` is not after it).
    public func tick<I: InstantProtocol>(atOrAfter instant: I, onGridOf slot: I) -> I where I.Duration == Duration {
        let gap = slot.duration(to: instant)
        guard gap > .zero else { return slot }
        return slot.advanced(by: interval * Int((gap / interval).rounded(.up)))
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

/// How a cycle turns answers into a quote.
public enum FetchMode: Sendable, Hashable {
    /// The first source in the chain that answers.
    case fallback
    /// The median of every source asked, once enough of them agree.
    case consensus(ConsensusRule)
}

/// Runs fetch cycles at a fixed rate (no drift, no overlap), keeps every source within its
/// limits, and backs off while every source fails.
public struct FetchLoop<C: Clock>: Sendable where C.Duration == Duration {
    public let fetcher: FallbackFetcher<C>
    public let schedule: FetchSchedule
    public let wallClock: any WallClock
    public let jitter: any JitterSource
    /// The loop's way into the ledger: its requests are admitted and recorded there.
    public let door: LedgerDoor<C.Instant>
    /// What the ledger knows, for reading.
    public var ledger: SourceLedger<C.Instant> { door.ledger }
    public let mode: FetchMode
    /// Whether a stream carries the quotes: while it does, the loop asks no source and rests
    /// until the moment the gate gives (at most `maximumBackoff` ahead, so the watchdog stays
    /// fed), instead of waking every interval; the gate's bell ends the rest early.
    public var streamGate = StreamGate<C.Instant>.closed
    /// How late the end of a rest on the gate may be (at most an interval, as the price-silence
    /// limit allows for): a clock that shares wakeups ends it with the stream's next read.
    public var restTolerance: Duration?
    /// Shared with the other instances on this host (other currencies), when there are any.
    public var hostPace: (any HostPace)?

    /// Pass the same `door` to the loop that replaces this one on reload, so health,
    /// cool-downs and call budgets carry over.
    public init(fetcher: FallbackFetcher<C>, schedule: FetchSchedule, wallClock: any WallClock, jitter: any JitterSource = SystemJitter(),
                door: LedgerDoor<C.Instant> = LedgerDoor(), mode: FetchMode = .fallback) {
        self.fetcher = fetcher
        self.schedule = schedule
        self.wallClock = wallClock
        self.jitter = jitter
        self.door = door
        self.mode = mode
        door.configure(fetcher.sources)
    }

    /// What one cycle leaves the next: the grid's next tick and the run of failures.
    struct LoopState {
        var deadline: C.Instant
        var consecutiveFailures = 0
    }

    /// Returns when the task is cancelled.
    public func run(_ handle: @Sendable (CycleReport) async -> Void) async {
        var state = LoopState(deadline: fetcher.clock.now)
        while !Task.isCancelled {
            let started = fetcher.clock.now
            let carried = streamGate.carriedUntil(at: started)
            let goOn = if let carried { await rest(until: carried, started: started, state: &state, handle) }
                else { await cycle(started: started, state: &state, handle) }
            if !goOn { return }
        }
    }

    /// While the stream carries the quotes: no source is asked, and the loop rests until the
    /// gate's moment, its bell or the watchdog's cap. False when cancelled.
    private func rest(until carriedUntil: C.Instant, started: C.Instant, state: inout LoopState,
                      _ handle: @Sendable (CycleReport) async -> Void) async -> Bool {
        let clock = fetcher.clock
        state.consecutiveFailures = 0
        door.quoteArrivedElsewhere(at: started)
        // Never sooner than the next tick, so a gate that answers "until now" cannot spin
        // the loop. The watchdog's cap is kept exactly; the stream's moment may be late.
        let cap = started.advanced(by: schedule.maximumBackoff)
        let deadline = min(max(carriedUntil, schedule.nextTick(after: state.deadline, now: started)), cap)
        let tolerance = deadline == cap ? nil : restTolerance.map { min($0, schedule.interval) }
        await handle(CycleReport(reading: nil, attempts: [], events: [], failureSummary: ledger.failureSummary,
                                 nextCycleIn: started.duration(to: deadline)))
        if let bell = streamGate.bell {
            await bell.rest(until: deadline, tolerance: tolerance, on: clock)
        } else {
            do { try await clock.sleep(until: deadline, tolerance: tolerance) } catch { return false }
        }
        // The grid starts again when the rest ended (early on the bell, or late on a shared
        // wakeup), so polling begins at once if the stream stopped, and its next tick is a
        // whole interval after this first call: never sooner than a venue's pace allows.
        state.deadline = clock.now
        return !Task.isCancelled
    }

    /// One round of asking the chain, its record in the ledger, the report, and the sleep to
    /// the next tick or the backoff's end. False when cancelled.
    private func cycle(started: C.Instant, state: inout LoopState, _ handle: @Sendable (CycleReport) async -> Void) async -> Bool {
        let clock = fetcher.clock
        // Calls count at the tick they were scheduled for when the wake-up was only a little
        // late; otherwise wake-up jitter would make a source whose pace equals the interval
        // look early every other cycle and hand its turn to the next source.
        let countedAt = min(started, max(state.deadline, started.advanced(by: Self.wakeUpSlack * -1)))
        // A wake-up later than that moves the grid with it: the next tick is then a whole
        // interval after the call as counted, never sooner than a venue's pace allows (the old
        // grid's next tick would make the first venue look early and skip it for a cycle).
        state.deadline = max(state.deadline, countedAt)
        let (round, heldByHost) = await ask(countedAt: countedAt)
        if Task.isCancelled { return false }
        let now = clock.now
        let verdict = judge(round, heldByHost: heldByHost)
        let events = door.record(round, reading: verdict.reading, outcome: verdict.outcome, holding: verdict.holding, at: now,
                                   wallTime: wallClock.now())
        state.deadline = nextDeadline(after: round, verdict: verdict, now: now, state: &state)
        let day = mode == .fallback ? (round.answers.first ?? round.lateAnswers.first)?.quote.day : nil
        await handle(CycleReport(reading: verdict.reading, day: day, attempts: round.attempts, events: events,
                                 failureSummary: ledger.failureSummary, nextCycleIn: now.duration(to: state.deadline)))
        do { try await clock.sleep(until: state.deadline, tolerance: nil) } catch { return false }
        return true
    }

    /// Asks the chain, each source only when the ledger and the host's pace admit it. A source
    /// another instance has just asked is a wait for this one, not an outage.
    private func ask(countedAt: C.Instant) async -> (FetchRound, heldByHost: [SourceName]) {
        let door = self.door, hostPace = self.hostPace, wallClock = self.wallClock
        var heldByHost: [SourceName] = []
        let admit: (SourceName) -> SourceAttempt? = { source in
            door.admitPrice(source, at: countedAt) { limits in
                guard let hostPace, !hostPace.claim(source, pace: limits.hostPace, at: wallClock.now()) else { return true }
                heldByHost.append(source)
                return false
            }
        }
        let round = switch mode {
        case .fallback: await fetcher.fetch(admit: admit)
        case .consensus: await fetcher.fetchAll(admit: admit)
        }
        return (round, heldByHost)
    }

    /// What a round gave: a reading, the consensus outcome, and whether its lack is a wait.
    struct Verdict {
        var reading: PolledReading?
        var outcome: ConsensusOutcome?
        var holding: Bool
    }

    private func judge(_ round: FetchRound, heldByHost: [SourceName]) -> Verdict {
        var verdict = Verdict(holding: false)
        switch mode {
        case .fallback:
            // An answer stale on arrival only when no venue did better.
            verdict.reading = (round.answers.first ?? round.lateAnswers.first).map { PolledReading($0.quote, from: $0.source) }
        case .consensus(let rule):
            let evaluated = Consensus.evaluate(round.answers, rule: rule)
            verdict.outcome = evaluated
            verdict.reading = Self.consensusReading(evaluated, round: round)
        }
        // A working source that may not be asked yet is a wait, not an outage; so is a venue
        // that answered with a price held for a second venue's word.
        verdict.holding = verdict.reading == nil && round.attempts.contains { attempt in
            switch attempt {
            case .paced(let source): ledger.isAnswering(source) || heldByHost.contains(source)
            case .failed(_, let failure): failure.sentPrice != nil
            case .succeeded, .coolingDown: false
            }
        }
        return verdict
    }

    /// The next tick after a reading or a wait; after a failure, the backoff. Nothing to ask
    /// before a reopening means sleeping through to it, capped so the watchdog stays fed.
    private func nextDeadline(after round: FetchRound, verdict: Verdict, now: C.Instant, state: inout LoopState) -> C.Instant {
        let onlyWaiting = round.attempts.allSatisfy(\.isWaiting)
        guard verdict.reading != nil || verdict.holding else {
            state.consecutiveFailures += 1
            var wait = schedule.backoff(afterConsecutiveFailures: state.consecutiveFailures, jitter: jitter.unitInterval())
            if let reopening = ledger.earliestReopening(after: now), onlyWaiting {
                wait = min(max(now.duration(to: reopening), schedule.interval), schedule.maximumBackoff)
            }
            return now.advanced(by: wait)
        }
        if verdict.reading != nil { state.consecutiveFailures = 0 }
        let tick = schedule.nextTick(after: state.deadline, now: now)
        if onlyWaiting, let reopening = ledger.earliestReopening(after: now), reopening > tick {
            return min(reopening, now.advanced(by: schedule.maximumBackoff))
        }
        return tick
    }

    /// How late a wake-up may be and still count as on its tick.
    static var wakeUpSlack: Duration { .milliseconds(50) }

    /// Labelled with the venues' common quote asset; USDT venues join only when the operator
    /// chose to count USDT as USD, so a mixed median is labelled USD.
    static func consensusReading(_ outcome: ConsensusOutcome, round: FetchRound) -> PolledReading? {
        guard let price = outcome.price else { return nil }
        let agreeing = round.answers.filter { outcome.agreeing.contains($0.source) }
        let assets = agreeing.map(\.quote.quoteAsset)
        let currency = assets.allSatisfy { $0 == assets.first } ? (assets.first ?? "USD") : "USD"
        return PolledReading(price: price, currency: currency, symbol: "median", source: .consensus, contributors: outcome.agreeing,
                             spread: outcome.spread, origins: agreeing.map { AnswerOrigin($0.quote) })
    }
}

extension SourceAttempt {
    /// Not asked, because of a cool-down or the source's limits.
    var isWaiting: Bool {
        switch self {
        case .coolingDown, .paced: true
        case .succeeded, .failed: false
        }
    }
}
