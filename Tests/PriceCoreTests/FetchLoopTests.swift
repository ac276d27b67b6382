import PriceCore
import Synchronization
import TestClocks
import Testing

/// Collects the loop's reports for assertions.
final class ReportLog: Sendable {
    private let reports = Mutex<[CycleReport]>([])
    func append(_ report: CycleReport) { reports.withLock { $0.append(report) } }
    var all: [CycleReport] { reports.withLock { $0 } }
    var count: Int { reports.withLock { $0.count } }
}

/// Yields until the condition holds; false if it never does.
func yieldUntil(_ condition: () -> Bool, maximumYields: Int = 100_000) async -> Bool {
    for _ in 0..<maximumYields {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

@Suite("Fetch loop: fixed rate, backoff, cool-downs, transitions")
struct FetchLoopTests {
    func makeLoop(_ sources: [StubSource], clock: ManualClock, interval: Duration = .seconds(1), jitter: Double = 1,
                  door: LedgerDoor<ManualClock.Instant> = LedgerDoor(), mode: FetchMode = .fallback) -> FetchLoop<ManualClock> {
        FetchLoop(fetcher: FallbackFetcher(sources: sources, timeout: .milliseconds(800), clock: clock),
                  schedule: FetchSchedule(interval: interval), wallClock: ManualWallClock(), jitter: FixedJitter(jitter),
                  door: door, mode: mode)
    }

    /// Runs the loop for `cycles` reports. After each report the loop's only sleeper is its wait
    /// for the next cycle, so the test advances the clock by exactly what the loop asked for.
    func run(_ loop: FetchLoop<ManualClock>, clock: ManualClock, cycles: Int) async -> [CycleReport] {
        let log = ReportLog()
        let task = Task { await loop.run { log.append($0) } }
        var seen = 0
        while seen < cycles {
            guard await yieldUntil({ log.count > seen }) else { break }
            seen = log.count
            guard seen < cycles, await clock.waitForSleepers(1), let wait = log.all.last?.nextCycleIn else { break }
            clock.advance(by: wait)
        }
        task.cancel()
        await task.value
        return Array(log.all.prefix(cycles))
    }

    @Test func onStandbyTheLoopKeepsItsTicksButAsksNoSource() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.quote("1")])
        var loop = makeLoop([binance], clock: clock)
        // A stream is healthy for the first 3 s, then drops: polling resumes on the next tick.
        let streamUntil = ManualClock.Instant(offset: .seconds(3))
        loop.streamGate = StreamGate { $0 < streamUntil ? $0 : nil }
        let reports = await run(loop, clock: clock, cycles: 6)
        #expect(reports.map { $0.reading != nil } == [false, false, false, true, true, true])
        #expect(reports.allSatisfy { $0.nextCycleIn == .seconds(1) }, "the ticks keep their pace, so the watchdog stays fed")
        #expect(reports.prefix(3).allSatisfy { $0.attempts.isEmpty && $0.events.isEmpty }, "no attempt, no log event while on standby")
        #expect(binance.callCount == 3)
    }

    /// A stream that surely carries the quotes for the next 4.5 s lets the loop rest until that
    /// moment, instead of waking every second; when its connection ends
    /// early, the bell wakes the loop and polling starts at once.
    @Test func onStandbyTheLoopRestsUntilTheStreamCouldFailAndTheBellWakesItEarly() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.quote("1")])
        var loop = makeLoop([binance], clock: clock)
        let bell = StandbyBell()
        let streamUntil = ManualClock.Instant(offset: .milliseconds(4500))
        let carried = Mutex(true)
        loop.streamGate = StreamGate(bell: bell) { now in carried.withLock { $0 } ? streamUntil : nil }
        let log = ReportLog()
        let task = Task { await loop.run { log.append($0) } }
        _ = await yieldUntil { log.count == 1 }
        #expect(log.all.first?.nextCycleIn == .milliseconds(4500), "rests until 4.5 s: \(String(describing: log.all.first?.nextCycleIn))")
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: .seconds(2))
        carried.withLock { $0 = false }
        bell.ring()
        _ = await yieldUntil { log.count == 2 }
        let polled = log.all.dropFirst().first
        #expect(polled?.reading != nil && binance.callCount == 1, "the ring starts polling at 2 s, not at 5 s: \(String(describing: polled))")
        #expect(clock.now.offset == .seconds(2))
        task.cancel()
        await task.value
    }

    /// A rest that ends late (a clock that shares wakeups ends it with the stream's next read)
    /// starts the grid when it ended: the next tick is a whole interval after the first call, so
    /// a venue paced at the interval is asked again then, not passed over for the next venue.
    @Test func aRestThatEndsLateStartsTheGridWhenItEnded() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.quote("1")], limits: SourceLimits(minimumInterval: .seconds(1)))
        let coinbase = StubSource(.coinbase, [.quote("2")], limits: SourceLimits(minimumInterval: .seconds(1)))
        var loop = makeLoop([binance, coinbase], clock: clock)
        let carried = Mutex(true)
        loop.streamGate = StreamGate { _ in carried.withLock { $0 } ? ManualClock.Instant(offset: .milliseconds(4500)) : nil }
        let log = ReportLog()
        let task = Task { await loop.run { log.append($0) } }
        _ = await yieldUntil { log.count == 1 }
        #expect(await clock.waitForSleepers(1))
        carried.withLock { $0 = false }
        clock.advance(by: .milliseconds(4700)) // 200 ms after the gate's moment
        _ = await yieldUntil { log.count == 2 }
        #expect(await clock.waitForSleepers(1))
        clock.advance(by: log.all[1].nextCycleIn)
        _ = await yieldUntil { log.count == 3 }
        let sources = log.all.dropFirst().map { $0.reading?.source.rawValue ?? "-" }
        #expect(sources == ["binance", "binance"] && coinbase.callCount == 0,
                "both polls from binance, a second apart: \(sources), next cycle in \(log.all[1].nextCycleIn)")
        task.cancel()
        await task.value
    }

    /// The loop passes each answer's dating on undated: the intake stamps it on arrival.
    @Test func aReadingCarriesItsAnswersOriginForTheIntakeToStamp() async {
        let clock = ManualClock()
        let wall = ManualWallClock().now()
        let binance = StubSource(.binance, [.dated("1", origin: wall.adding(milliseconds: -3_000), cacheAge: .seconds(1))])
        let reports = await run(makeLoop([binance], clock: clock), clock: clock, cycles: 1)
        #expect(reports.first?.reading?.origins == [AnswerOrigin(time: wall.adding(milliseconds: -3_000), cacheAge: .seconds(1))],
                "\(String(describing: reports.first?.reading))")
    }

    @Test func aConsensusCarriesTheOriginsOfTheAnswersThatAgree() async {
        let clock = ManualClock()
        let wall = ManualWallClock().now()
        let sources = [StubSource(.coinbase, [.dated("100", origin: wall.adding(milliseconds: -2_000), cacheAge: .zero)]),
                       StubSource(.kraken, [.dated("100", origin: wall.adding(milliseconds: -7_000), cacheAge: .zero)]),
                       StubSource(.bitstamp, [.dated("200", origin: wall.adding(milliseconds: -60_000), cacheAge: .zero)])]
        let loop = makeLoop(sources, clock: clock, mode: .consensus(ConsensusRule(maximumDeviation: 0.01, minimumAgreeing: 2)))
        let reading = await run(loop, clock: clock, cycles: 1).first?.reading
        #expect(reading?.origins.map(\.time) == [wall.adding(milliseconds: -2_000), wall.adding(milliseconds: -7_000)],
                "the outlier's minute-old answer does not age the median: \(String(describing: reading))")
        #expect(reading?.stamped(receivedAt: wall).ageOnArrival == .seconds(7))
    }

    @Test func healthyLoopRunsOnAFixedGrid() async {
        let clock = ManualClock()
        let reports = await run(makeLoop([StubSource(.binance, [.quote("1")])], clock: clock), clock: clock, cycles: 5)
        #expect(reports.count == 5)
        #expect(reports.allSatisfy { $0.reading != nil && $0.nextCycleIn == .seconds(1) })
        #expect(clock.now.offset == .seconds(4))
    }

    @Test func slowCycleSkipsMissedTicksInsteadOfOverlapping() {
        let schedule = FetchSchedule(interval: .seconds(1))
        let start = ManualClock.Instant(offset: .zero)
        #expect(schedule.nextTick(after: start, now: start.advanced(by: .milliseconds(300))) == start.advanced(by: .seconds(1)))
        #expect(schedule.nextTick(after: start, now: start.advanced(by: .milliseconds(2500))) == start.advanced(by: .seconds(3)))
    }

    @Test func backoffGrowsWithJitterAndIsCapped() {
        let schedule = FetchSchedule(interval: .seconds(1))
        #expect(schedule.backoff(afterConsecutiveFailures: 1, jitter: 1) == .seconds(2))
        #expect(schedule.backoff(afterConsecutiveFailures: 1, jitter: 0) == .seconds(1))
        #expect(schedule.backoff(afterConsecutiveFailures: 3, jitter: 1) == .seconds(8))
        #expect(schedule.backoff(afterConsecutiveFailures: 10, jitter: 1) == .seconds(30))
        #expect(schedule.backoff(afterConsecutiveFailures: 10, jitter: 0) == .seconds(15))
        #expect(schedule.backoff(afterConsecutiveFailures: 1000, jitter: 0.5) == .milliseconds(22_500))
    }

    @Test func totalOutageBacksOffAndLogsOnceThenRecovers() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.fail(.transport("connection refused")), .fail(.transport("connection refused")),
                                            .fail(.transport("connection refused")), .quote("2")])
        let reports = await run(makeLoop([binance], clock: clock), clock: clock, cycles: 4)
        #expect(reports.map(\.nextCycleIn) == [.seconds(2), .seconds(4), .seconds(8), .seconds(1)])
        let events = reports.flatMap(\.events)
        #expect(events == [.sourceFailing(.binance, .transport("connection refused")), .allSourcesFailing,
                           .sourceRecovered(.binance, failedCycles: 3), .quotesFlowingAgain])
        #expect(reports[2].failureSummary == "binance: connection refused")
        #expect(reports[3].failureSummary == nil)
    }

    /// Binance and coinbase fail, kraken serves; then binance serves again. Coinbase is not
    /// asked since, so its error is older than the quote and no longer reported, while a
    /// failure above the serving source (why it serves) stays as long as it is current.
    @Test func errorsOlderThanTheCurrentQuoteAreNoLongerReported() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.fail(.transport("connection refused")), .quote("2")])
        let coinbase = StubSource(.coinbase, [.fail(.httpStatus(503))])
        let kraken = StubSource(.kraken, [.quote("1")])
        let reports = await run(makeLoop([binance, coinbase, kraken], clock: clock), clock: clock, cycles: 2)
        #expect(reports.map { $0.reading?.source } == [.kraken, .binance])
        #expect(reports[0].failureSummary == "binance: connection refused; coinbase: HTTP 503",
                "while kraken serves, both failures above it explain why: \(String(describing: reports[0].failureSummary))")
        #expect(reports[1].failureSummary == nil,
                "coinbase failed before binance's quote and was not asked since: \(String(describing: reports[1].failureSummary))")
    }

    /// Once the stream carries the quotes, the polling errors from before it are history.
    @Test func errorsFromBeforeTheStreamCarriedQuotesAreNoLongerReported() async {
        let clock = ManualClock()
        var loop = makeLoop([StubSource(.binance, [.fail(.transport("connection refused"))])], clock: clock)
        let streamFrom = ManualClock.Instant(offset: .seconds(1))
        loop.streamGate = StreamGate { $0 >= streamFrom ? $0 : nil }
        let reports = await run(loop, clock: clock, cycles: 2)
        #expect(reports.map(\.failureSummary) == ["binance: connection refused", nil])
    }

    @Test func retryAfterIsHonouredAsACooldown() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.fail(.rateLimited(retryAfter: .seconds(5))), .quote("3")])
        let cryptoCompare = StubSource(.cryptoCompare, [.quote("4")])
        let reports = await run(makeLoop([binance, cryptoCompare], clock: clock), clock: clock, cycles: 6)
        // Cycle 1 is refused by binance; cycles at t=1…4 skip it; at t=5 it is asked again.
        #expect(binance.callCount == 2)
        #expect(reports[1].attempts.first == .coolingDown(.binance))
        #expect(reports[4].attempts.first == .coolingDown(.binance))
        #expect(reports[5].reading?.source == .binance)
        #expect(reports[1].failureSummary == "binance: rate-limited, retry after 5s")
    }

    @Test func whenEverySourceCoolsDownTheLoopWaitsForTheEarliestButAtMostTheBackoffCap() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.fail(.geoRestricted), .quote("5")])
        let reports = await run(makeLoop([binance], clock: clock), clock: clock, cycles: 12)
        #expect(reports[1].attempts == [.coolingDown(.binance)])
        #expect(reports[1].nextCycleIn == .seconds(30))
        // t = 0 (refused), 2, 32, …, 272 (cooling down), then 300 when the 5 minutes are over.
        #expect(reports[10].nextCycleIn == .seconds(28))
        #expect(reports[11].reading?.price.description == "5")
        #expect(binance.callCount == 2)
        #expect(clock.now.offset == .seconds(300))
    }

    @Test func persistentFailureIsReportedOnce() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.fail(.httpStatus(500))])
        let cryptoCompare = StubSource(.cryptoCompare, [.quote("6")])
        let reports = await run(makeLoop([binance, cryptoCompare], clock: clock), clock: clock, cycles: 10)
        #expect(reports.flatMap(\.events) == [.sourceFailing(.binance, .httpStatus(500))])
        #expect(reports.allSatisfy { $0.reading?.source == .cryptoCompare })
    }

    @Test func aSlowOnlySourceIsAskedAtItsPaceWithoutCountingAsAnOutage() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.fail(.geoRestricted)])
        let cryptoCompare = StubSource(.cryptoCompare, [.quote("8")], limits: SourceLimits(minimumInterval: .seconds(10), dailyCalls: 7500))
        let reports = await run(makeLoop([binance, cryptoCompare], clock: clock), clock: clock, cycles: 8)
        // 86 400 s / 7 500 = 11.52 s between calls: t = 0, 11.52, 23.04, …; the loop sleeps through.
        #expect(reports.filter { $0.reading != nil }.count == 4)
        #expect(cryptoCompare.callCount == 4)
        #expect(!reports.flatMap(\.events).contains(.allSourcesFailing))
        #expect(reports[1].attempts == [.coolingDown(.binance), .paced(.cryptoCompare)])
        #expect(reports[1].nextCycleIn == .milliseconds(10_520))
    }

    @Test func aReloadKeepsCooldownsAndBudgetsBecauseTheLedgerIsShared() async {
        let clock = ManualClock()
        let door = LedgerDoor<ManualClock.Instant>()
        let limited = SourceLimits(minimumInterval: .seconds(10), dailyCalls: 7500)
        let first = StubSource(.cryptoCompare, [.quote("9")], limits: limited)
        _ = await run(makeLoop([first], clock: clock, door: door), clock: clock, cycles: 1)
        // 50 reloads in a row: each new loop starts at once, and none may call again yet.
        for _ in 0..<50 {
            let again = StubSource(.cryptoCompare, [.quote("9")], limits: limited)
            let reports = await run(makeLoop([again], clock: clock, door: door), clock: clock, cycles: 1)
            #expect(again.callCount == 0)
            #expect(reports.first?.attempts == [.paced(.cryptoCompare)])
        }
        #expect(door.ledger.statuses(at: clock.now).first?.callsLastDay == 1)
    }

    @Test func consensusTakesTheMedianOfTheVenuesThatAgree() async {
        let clock = ManualClock()
        let sources = [StubSource(.coinbase, [.quote("100000")]), StubSource(.kraken, [.quote("100010")]),
                       StubSource(.bitstamp, [.quote("105000")]), StubSource(.cryptoCompare, [.quote("100030")])]
        let rule = ConsensusRule(maximumDeviation: 0.01, minimumAgreeing: 2)
        let reports = await run(makeLoop(sources, clock: clock, mode: .consensus(rule)), clock: clock, cycles: 2)
        let quote = reports.first?.reading
        #expect(quote?.price.description == "100010")
        #expect(quote?.source == .consensus)
        #expect(quote?.contributors == [.coinbase, .kraken, .cryptoCompare])
        #expect(quote?.spread == 30)
        #expect(quote?.currency == "USD")
        #expect(sources.allSatisfy { $0.callCount == 2 })
        // Logged once as an outlier while it stays one.
        let outlierEvents = reports.flatMap(\.events).filter { if case .sourceOutlier = $0 { true } else { false } }
        #expect(outlierEvents == [.sourceOutlier(.bitstamp, price: try! Price(parsing: "105000"), median: try! Price(parsing: "100010"))])
    }

    @Test func anOutlierAloneInARoundDoesNotAgreeAgain() async {
        let clock = ManualClock()
        // The others time out in the second cycle (a loaded host): bitstamp alone is no consensus.
        let sources = [StubSource(.coinbase, [.quote("100000"), .fail(.timeout(after: .seconds(1))), .quote("100000")]),
                       StubSource(.kraken, [.quote("100010"), .fail(.timeout(after: .seconds(1))), .quote("100010")]),
                       StubSource(.bitstamp, [.quote("105000"), .quote("105000"), .quote("105000")])]
        let rule = ConsensusRule(maximumDeviation: 0.01, minimumAgreeing: 2)
        let reports = await run(makeLoop(sources, clock: clock, mode: .consensus(rule)), clock: clock, cycles: 3)
        let flagged = reports.flatMap(\.events).filter {
            switch $0 {
            case .sourceOutlier, .sourceAgreesAgain: true
            default: false
            }
        }
        #expect(flagged.count == 1, "one outlier line, no flapping: \(flagged)")
    }

    @Test func consensusBelowTheMinimumIsAFailedCycle() async {
        let clock = ManualClock()
        let sources = [StubSource(.coinbase, [.quote("100000")]), StubSource(.kraken, [.fail(.httpStatus(502))])]
        let rule = ConsensusRule(maximumDeviation: 0.01, minimumAgreeing: 2)
        let reports = await run(makeLoop(sources, clock: clock, mode: .consensus(rule)), clock: clock, cycles: 3)
        #expect(reports.allSatisfy { $0.reading == nil })
        let events = reports.flatMap(\.events)
        #expect(events.filter { $0 == .tooFewAgree(agreeing: 1, required: 2) }.count == 1)
        #expect(events.contains(.allSourcesFailing))
        #expect(reports.last?.failureSummary?.contains("consensus: 1 of the 2 required sources agree") == true)
        #expect(reports.last!.nextCycleIn > .seconds(1), "a failed consensus backs off like any failure")
    }

    @Test func lateWakeUpsDoNotHandThePrimarysTurnToTheFallback() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.quote("1")], limits: SourceLimits(minimumInterval: .seconds(1)))
        let coinbase = StubSource(.coinbase, [.quote("2")], limits: SourceLimits(minimumInterval: .seconds(1)))
        let log = ReportLog()
        let task = Task { await makeLoop([binance, coinbase], clock: clock).run { log.append($0) } }
        // Wake-ups 0-7 ms late, alternating, as a real timer's are.
        for cycle in 1...10 {
            guard await yieldUntil({ log.count >= cycle }), await clock.waitForSleepers(1), let wait = log.all.last?.nextCycleIn else { break }
            clock.advance(by: wait + .milliseconds(cycle % 2 == 1 ? 7 : 0))
        }
        _ = await yieldUntil({ log.count >= 11 })
        task.cancel()
        await task.value
        #expect(log.all.count >= 11)
        #expect(log.all.allSatisfy { $0.reading?.source == .binance }, "\(log.all.map { $0.reading?.source.rawValue ?? "-" })")
        #expect(coinbase.callCount == 0)
    }

    /// A wake-up 80 ms late (a loaded host) counts its call 50 ms back; the tick after it comes a
    /// whole interval after that call, so an on-time wake-up then still finds the first venue's
    /// pace kept, and it is asked both times.
    @Test func aLateWakeUpMovesTheGridSoTheFirstVenueIsAskedOnTheNextTick() async {
        let clock = ManualClock()
        let binance = StubSource(.binance, [.quote("1")], limits: SourceLimits(minimumInterval: .seconds(1)))
        let coinbase = StubSource(.coinbase, [.quote("2")], limits: SourceLimits(minimumInterval: .seconds(1)))
        let log = ReportLog()
        let task = Task { await makeLoop([binance, coinbase], clock: clock).run { log.append($0) } }
        var waits: [Duration] = []
        for (cycle, late) in [(1, Duration.milliseconds(80)), (2, .zero), (3, .milliseconds(80)), (4, .zero), (5, .zero)] {
            guard await yieldUntil({ log.count >= cycle }), await clock.waitForSleepers(1), let wait = log.all.last?.nextCycleIn else { break }
            waits.append(wait)
            clock.advance(by: wait + late)
        }
        _ = await yieldUntil({ log.count >= 6 })
        task.cancel()
        await task.value
        #expect(log.all.count >= 6)
        #expect(log.all.prefix(6).allSatisfy { $0.reading?.source == .binance }, "\(log.all.map { $0.reading?.source.rawValue ?? "-" }), waits \(waits)")
        #expect(coinbase.callCount == 0, "coinbase was asked \(coinbase.callCount) times")
        #expect(waits.count > 1 && waits[1] == .milliseconds(950), "woken at 1,080 ms, counted at 1,030: the next tick at 2,030 ms: \(waits)")
    }
}

/// A venue already failing (a timeout) that then asks for a rest (451) gets its own warning,
/// which carries the venue's advice; the same failure again is no news.
@Suite("Source health: warnings on change")
struct SourceHealthWarningTests {
    @Test func aRestAskedForByAFailingVenueIsWarnedAboutOnce() throws {
        let start = ManualClock().now
        var health = SourceHealth<ManualClock.Instant>(sources: [SourceName.binance, SourceName.coinbase])
        let quote = SourceQuote(price: try Price(parsing: "100"), symbol: "BTCUSD", quoteAsset: "USD")
        let timeout = FetchFailure.timeout(after: .milliseconds(800))
        var events = health.record([SourceAttempt.failed(.binance, timeout), .succeeded(.coinbase, quote)], gotQuote: true, at: start)
        events += health.record([SourceAttempt.failed(.binance, .geoRestricted), .succeeded(.coinbase, quote)], gotQuote: true,
                                at: start.advanced(by: .seconds(1)))
        events += health.record([SourceAttempt.failed(.binance, .geoRestricted), .succeeded(.coinbase, quote)], gotQuote: true,
                                at: start.advanced(by: .seconds(400)))
        #expect(events == [HealthEvent.sourceFailing(.binance, timeout), .sourceFailing(.binance, .geoRestricted)], "\(events)")
    }
}
