import FoundationEssentials
import PriceCore
import Synchronization
import TestClocks
import Testing

/// A venue's candles as a test scripts them: every minute asked at `price`, or a failure; each
/// request is recorded with the clock's instant.
final class ScriptedCandles: CandleSource {
    let name: SourceName
    /// The venue's price fetches' limits, which the candles keep apart from.
    let limits: SourceLimits
    let candlePace: Duration
    let perRequest: Int
    let reachesBack: Int64?
    /// Never reached: the test moves the clock only to the backfill's waits.
    let attemptLimit = Duration.seconds(86_400)
    private let clock: ManualClock
    private let answer: @Sendable (ClosedRange<Int64>) throws(FetchFailure) -> CandleBatch
    private let asked = Mutex<[(minutes: ClosedRange<Int64>, at: ManualClock.Instant)]>([])

    init(_ name: SourceName, perRequest: Int, reachesBack: Int64? = nil, pace: Duration = .seconds(1), candlePace: Duration = .milliseconds(250),
         clock: ManualClock,
         answer: @escaping @Sendable (ClosedRange<Int64>) throws(FetchFailure) -> CandleBatch = ScriptedCandles.every("100")) {
        self.name = name
        self.limits = SourceLimits(minimumInterval: pace)
        self.candlePace = candlePace
        self.perRequest = perRequest
        self.reachesBack = reachesBack
        self.clock = clock
        self.answer = answer
    }

    static func every(_ price: String, unusable: Int = 0) -> @Sendable (ClosedRange<Int64>) throws(FetchFailure) -> CandleBatch {
        { minutes in
            let value = Decimal(string: price)!
            return CandleBatch(reading: minutes.map { MinuteBar(minute: $0, open: value, high: value, low: value, close: value) }
                + Array(repeating: nil, count: unusable))
        }
    }

    var requests: [(minutes: ClosedRange<Int64>, at: ManualClock.Instant)] { asked.withLock { $0 } }

    func candles(_ slots: ClosedRange<Int64>, every interval: CandleInterval) async throws -> CandleBatch {
        asked.withLock { $0.append((slots, clock.now)) }
        // A day's candle is a bar at the day's first minute.
        let batch = try answer(slots)
        return interval == .minute ? batch : CandleBatch(reading: batch.bars.map {
            MinuteBar(minute: $0.minute * 1440, open: $0.open, high: $0.high, low: $0.low, close: $0.close)
        })
    }
}

@Suite("Backfill: a week from venues' candles, within their limits", .timeLimit(.minutes(1)))
struct BackfillTests {
    let clock = ManualClock()
    /// 2026-11-01T00:00:00Z, a whole minute.
    let wallClock = ManualWallClock(Timestamp(millisecondsSinceEpoch: 1_793_491_200_000))
    var nowMinute: Int64 { MinuteBar.minute(of: wallClock.now()) }

    final class Outcome: Sendable {
        let history = Mutex(PriceHistory())
        let reports = Mutex<[Backfill<ManualClock>.VenueReport]>([])
    }

    /// Runs the backfill, moving the clock to each wait it sleeps on (the wall clock with it),
    /// until it is done.
    func run(_ sources: [ScriptedCandles], door: LedgerDoor<ManualClock.Instant>, history: PriceHistory = PriceHistory(),
             hostPace: (any HostPace)? = nil) async -> Outcome {
        door.configure(sources.map { SourceDescriptor(name: $0.name, quoteAsset: "USD", limits: $0.limits) })
        let outcome = Outcome()
        outcome.history.withLock { $0 = history }
        var backfill = Backfill(sources: sources, clock: clock, wallClock: wallClock, door: door)
        backfill.hostPace = hostPace
        let task = Task {
            _ = await backfill.run(history: { outcome.history.withLock { $0 } },
                               fill: { batch, minutes, source in outcome.history.withLock { $0.fill(batch.bars, within: minutes, from: source).count } },
                               finished: { report in outcome.reports.withLock { $0.append(report) } })
        }
        let clock = self.clock
        let driver = Task {
            while !Task.isCancelled {
                // The only sleeper with a near deadline is the backfill waiting for a venue's pace.
                if let next = clock.nextDeadline, clock.now.duration(to: next) <= .seconds(3600) {
                    clock.advance(to: next)
                }
                await Task.yield()
            }
        }
        await task.value
        driver.cancel()
        return outcome
    }

    func gaps(_ requests: [(minutes: ClosedRange<Int64>, at: ManualClock.Instant)]) -> [Duration] {
        zip(requests, requests.dropFirst()).map { $0.at.duration(to: $1.at) }
    }

    @Test func theFirstVenueFillsTheWeekInElevenRequestsAtItsCandlePaceBesideThePolls() async {
        let binance = ScriptedCandles("binance", perRequest: 1000, clock: clock), coinbase = ScriptedCandles("coinbase", perRequest: 350, clock: clock)
        let door = LedgerDoor<ManualClock.Instant>()
        door.configure([SourceDescriptor(name: "binance", quoteAsset: "USD", limits: binance.limits)])
        let start = clock.now
        #expect(door.admitPrice("binance", at: start) == nil, "a poll just asked binance")
        let outcome = await run([binance, coinbase], door: door)
        let requests = binance.requests
        #expect(requests.count == 11 && coinbase.requests.isEmpty, "binance \(requests.count), coinbase \(coinbase.requests.count)")
        #expect(requests.first.map { start.duration(to: $0.at) } == .zero, "a poll's turn is not a candle's: \(requests.map(\.at))")
        #expect(gaps(requests).allSatisfy { $0 >= binance.candlePace }, "never faster than the candle pace: \(gaps(requests))")
        #expect(door.ledger.statuses(at: clock.now).first?.candleRequests == 11, "the ledger counts the candles apart")
        let history = outcome.history.withLock { $0 }
        #expect(history.bars.count == 10_080 && history.bars.last?.minute == nowMinute - 1, "\(history.bars.count) bars")
        #expect(history.filled == [FilledSpan(minutes: (nowMinute - 10_080)...(nowMinute - 1), source: "binance")], "\(history.filled)")
        #expect(outcome.reports.withLock { $0.map(\.filled) } == [10_080])
    }

    @Test func whileTheBackfillWaitsForItsCandlePaceTheFetchCyclesKeepEveryTurn() async {
        let binance = ScriptedCandles("binance", perRequest: 1000, candlePace: .seconds(2), clock: clock)
        let door = LedgerDoor<ManualClock.Instant>()
        door.configure([SourceDescriptor(name: "binance", quoteAsset: "USD", limits: binance.limits)])
        let start = clock.now
        let backfill = Backfill(sources: [binance], clock: clock, wallClock: wallClock, door: door)
        let task = Task { _ = await backfill.run(history: { PriceHistory() }, fill: { _, _, _ in 0 }, finished: { _ in }) }
        #expect(await yieldUntil { clock.nextDeadline == start.advanced(by: .seconds(2)) }, "the backfill asked once and waits for its candle pace")
        #expect(binance.requests.map(\.at) == [start], "\(binance.requests.map(\.at))")
        // The cycles' own pace (one a second) is untouched by the candles.
        for second in 0...2 {
            let at = start.advanced(by: .seconds(Int64(second)))
            #expect(door.admitPrice("binance", at: at) == nil, "a cycle at \(second) s gets its turn")
        }
        task.cancel()
        await task.value
        #expect(door.ledger.statuses(at: clock.now).first?.candleRequests == 1)
    }

    @Test func aRestTheVenueAskedForStopsTheCandlesToo() {
        let door = LedgerDoor<ManualClock.Instant>()
        door.configure([SourceDescriptor(name: "binance", quoteAsset: "USD", limits: SourceLimits(minimumInterval: .seconds(1)))])
        let start = clock.now
        door.candlesFailed("binance", .rateLimited(retryAfter: .seconds(60)), at: start)
        #expect(door.admitCandles("binance", pace: .milliseconds(250), at: start.advanced(by: .seconds(59))) == .coolingDown("binance"))
        #expect(door.ledger.nextCandlesAllowed("binance", pace: .milliseconds(250), at: start) == start.advanced(by: .seconds(60)))
        #expect(door.admitCandles("binance", pace: .milliseconds(250), at: start.advanced(by: .seconds(60))) == nil)
    }

    @Test func aVenueThatRefusesRestsAndTheNextFillsTheRest() async {
        let binance = ScriptedCandles("binance", perRequest: 1000, clock: clock) { _ throws(FetchFailure) in throw .geoRestricted }
        let coinbase = ScriptedCandles("coinbase", perRequest: 350, clock: clock)
        let door = LedgerDoor<ManualClock.Instant>()
        let outcome = await run([binance, coinbase], door: door)
        #expect(binance.requests.count == 1 && coinbase.requests.count == 29, "binance \(binance.requests.count), coinbase \(coinbase.requests.count)")
        #expect(gaps(coinbase.requests).allSatisfy { $0 >= coinbase.candlePace }, "\(gaps(coinbase.requests))")
        let binanceState = door.ledger.statuses(at: clock.now).first { $0.name == "binance" }?.state
        #expect(binanceState == .coolingDown, "a 451 rests binance for its prices too: \(String(describing: binanceState))")
        #expect(door.ledger.restraints(at: clock.now, wallTime: wallClock.now())["binance"]?.restingUntil != nil, "and the rest is kept for a restart")
        let reports = outcome.reports.withLock { $0 }
        #expect(reports.map(\.source) == ["binance", "coinbase"] && reports[0].failure == .geoRestricted && reports[1].filled == 10_080, "\(reports)")
        #expect(outcome.history.withLock { $0.filled.map(\.source) } == ["coinbase"])
    }

    @Test func aVenueThatReachesTwelveHoursFillsThemAndTheNextVenueTheRestOfTheWeek() async {
        let kraken = ScriptedCandles("kraken", perRequest: 720, reachesBack: 720, pace: .seconds(2), clock: clock)
        let bitstamp = ScriptedCandles("bitstamp", perRequest: 1000, clock: clock)
        let outcome = await run([kraken, bitstamp], door: LedgerDoor())
        #expect(kraken.requests.map(\.minutes) == [(nowMinute - 720)...(nowMinute - 1)], "\(kraken.requests.map(\.minutes))")
        #expect(bitstamp.requests.count == 10 && bitstamp.requests.allSatisfy { $0.minutes.upperBound < nowMinute - 720 },
                "only what kraken cannot reach: \(bitstamp.requests.map(\.minutes))")
        let history = outcome.history.withLock { $0 }
        #expect(history.bars.count == 10_080, "\(history.bars.count)")
        #expect(history.filled == [FilledSpan(minutes: (nowMinute - 10_080)...(nowMinute - 721), source: "bitstamp"),
                                   FilledSpan(minutes: (nowMinute - 720)...(nowMinute - 1), source: "kraken")], "\(history.filled)")
    }

    @Test func onlyTheGapsAreAskedAndUnusableCandlesAreCountedOnce() async {
        let seen = (1...9_000).map { MinuteBar(minute: nowMinute - Int64($0), open: 7, high: 7, low: 7, close: 7) }
        let binance = ScriptedCandles("binance", perRequest: 1000, clock: clock, answer: ScriptedCandles.every("100", unusable: 4))
        let coinbase = ScriptedCandles("coinbase", perRequest: 350, clock: clock)
        let outcome = await run([binance, coinbase], door: LedgerDoor(), history: PriceHistory(bars: seen))
        #expect(binance.requests.map(\.minutes) == [(nowMinute - 10_000)...(nowMinute - 9_001), (nowMinute - 10_080)...(nowMinute - 10_001)],
                "the 1,080 minutes before the 9,000 seen, newest first: \(binance.requests.map(\.minutes))")
        #expect(coinbase.requests.isEmpty, "a venue that answered is not second-guessed")
        let reports = outcome.reports.withLock { $0 }
        #expect(reports.map(\.skipped) == [8] && reports.map(\.filled) == [1_080], "one report for the venue, its requests summed: \(reports)")
        let closes = outcome.history.withLock { history in Set(history.bars.map(\.close)) }
        #expect(closes == [7, 100], "seen minutes keep their own price: \(closes)")
    }

    /// Another instance on the host (another currency) holds the venue's host-wide pace.
    final class BusyHost: HostPace {
        let refusals = Mutex(2)
        let claims = Mutex<[Timestamp]>([])
        func claim(_ source: SourceName, kind: RequestKind, pace: Duration, at wallTime: Timestamp) -> Bool {
            #expect(kind == .candles, "the backfill claims the candles' host-wide pace")
            let refused = refusals.withLock { left in
                guard left > 0 else { return false }
                left -= 1
                return true
            }
            if !refused { claims.withLock { $0.append(wallTime) } }
            return !refused
        }
    }

    @Test func aCallAnotherInstanceJustMadeIsWaitedForAtTheHostWidePace() async {
        let binance = ScriptedCandles("binance", perRequest: 1000, clock: clock)
        let host = BusyHost()
        let start = clock.now
        _ = await run([binance], door: LedgerDoor(), history: PriceHistory(bars: (2...10_080).map {
            MinuteBar(minute: nowMinute - Int64($0), open: 7, high: 7, low: 7, close: 7)
        }), hostPace: host)
        #expect(binance.requests.count == 1, "one minute missing, one request: \(binance.requests.map(\.minutes))")
        #expect(host.claims.withLock { $0.count } == 1, "every request was claimed from the host-wide pace first")
        #expect(binance.requests.first.map { start.duration(to: $0.at) } == binance.candlePace * 2,
                "refused twice, it waited the host pace each time: \(binance.requests.map(\.at))")
    }

    @Test func aFullWeekAsksNoVenue() async {
        let binance = ScriptedCandles("binance", perRequest: 1000, clock: clock)
        let full = PriceHistory(bars: (1...10_080).map { MinuteBar(minute: nowMinute - Int64($0), open: 7, high: 7, low: 7, close: 7) })
        let outcome = await run([binance], door: LedgerDoor(), history: full)
        #expect(binance.requests.isEmpty && outcome.reports.withLock { $0.isEmpty })
    }

    // MARK: Ten years of days

    /// Runs the daily backfill as `run` does the minutes', on `daily` as it stands.
    func runDays(_ sources: [ScriptedCandles], daily: DailyHistory = DailyHistory()) async -> (daily: DailyHistory, gaveAll: Bool, reports: [Backfill<ManualClock>.VenueReport]) {
        let door = LedgerDoor<ManualClock.Instant>()
        door.configure(sources.map { SourceDescriptor(name: $0.name, quoteAsset: "USD", limits: $0.limits) })
        let kept = Mutex(daily), reports = Mutex<[Backfill<ManualClock>.VenueReport]>([])
        let backfill = Backfill(sources: sources, clock: clock, wallClock: wallClock, door: door), wallClock = self.wallClock
        let task = Task {
            await backfill.run(.day, plan: { now, perRequest in BackfillPlan(daily: kept.withLock { $0 }, now: now, perRequest: perRequest) },
                               fill: { batch, days, _ in kept.withLock { $0.fill(batch.bars, within: days, now: wallClock.now()) } },
                               finished: { report in reports.withLock { $0.append(report) } })
        }
        let clock = self.clock
        let driver = Task {
            while !Task.isCancelled {
                if let next = clock.nextDeadline, clock.now.duration(to: next) <= .seconds(3600) { clock.advance(to: next) }
                await Task.yield()
            }
        }
        let gaveAll = await task.value
        driver.cancel()
        return (kept.withLock { $0 }, gaveAll, reports.withLock { $0 })
    }

    /// A venue's days from its listing (2017-08-17, day 17395) on.
    static func listed(_ price: String) -> @Sendable (ClosedRange<Int64>) throws(FetchFailure) -> CandleBatch {
        { days throws(FetchFailure) in
            days.upperBound < 17395 ? CandleBatch(reading: []) : try ScriptedCandles.every(price)(max(days.lowerBound, 17395)...days.upperBound)
        }
    }

    @Test func tenYearsOfDaysComeInFourRequestsAndTheDaysBeforeTheListingAreNotAskedAgain() async throws {
        let today = DailyBar.day(of: wallClock.now())
        let binance = ScriptedCandles("binance", perRequest: 1000, clock: clock, answer: Self.listed("100"))
        let first = await runDays([binance])
        #expect(binance.requests.count == 4, "3,653 days in requests of 1,000: \(binance.requests.map(\.minutes))")
        #expect(binance.requests.first?.minutes == (today - 1000)...(today - 1), "yesterday first, never today: \(binance.requests.map(\.minutes))")
        #expect(gaps(binance.requests).allSatisfy { $0 >= binance.candlePace }, "\(gaps(binance.requests))")
        #expect(first.daily.bars.count == Int(today - 17395) && first.daily.bars.first?.day == 17395 && first.daily.bars.last?.day == today - 1,
                "\(first.daily.bars.count) days, \(String(describing: first.daily.bars.first?.date)) to \(String(describing: first.daily.bars.last?.date))")
        #expect(first.gaveAll && first.reports.map(\.filled) == [Int(today - 17395)], "\(first.gaveAll) \(first.reports)")

        var settled = first.daily
        #expect(settled.markBackfilled() && settled.firstAvailableDay == 17395)
        #expect(BackfillPlan(daily: settled, now: wallClock.now(), perRequest: 1000).requests.isEmpty, "nothing is left to ask")
        // Two days later, the two days the daemon was down are all it asks.
        wallClock.advance(milliseconds: 2 * 86_400_000)
        let later = BackfillPlan(daily: settled, now: wallClock.now(), perRequest: 1000).requests
        #expect(later == [(today)...(today + 1)], "\(later)")
    }

    @Test func aDayMadeFromTheMinutesSeenIsNeverOverwrittenByACandle() throws {
        let today = DailyBar.day(of: wallClock.now()), seen = Decimal(string: "114000")!
        var daily = DailyHistory(bars: [DailyBar(day: today - 1, open: seen, high: seen, low: seen, close: seen)])
        let candles = try ScriptedCandles.every("1")((today - 3)...today).bars.map {
            MinuteBar(minute: $0.minute * 1440, open: $0.open, high: $0.high, low: $0.low, close: $0.close)
        } + [MinuteBar(minute: (today - 4) * 1440 + 1, open: 1, high: 1, low: 1, close: 1)]
        #expect(daily.fill(candles, within: (today - 4)...today, now: wallClock.now()) == 2, "two days before yesterday; not today, not a bar off midnight")
        #expect(daily.bar(on: today - 1)?.close == seen && daily.bar(on: today) == nil && daily.bar(on: today - 4) == nil, "\(daily.bars)")
    }

    @Test func krakenGivesItsSevenHundredTwentyDaysAndTheNextVenueTheRest() async {
        let today = DailyBar.day(of: wallClock.now())
        let kraken = ScriptedCandles("kraken", perRequest: 720, reachesBack: 720, clock: clock, answer: Self.listed("100"))
        let bitstamp = ScriptedCandles("bitstamp", perRequest: 1000, clock: clock, answer: Self.listed("200"))
        let outcome = await runDays([kraken, bitstamp])
        #expect(kraken.requests.map(\.minutes) == [(today - 720)...(today - 1)], "\(kraken.requests.map(\.minutes))")
        #expect(outcome.daily.bar(on: today - 720)?.close == 100 && outcome.daily.bar(on: today - 721)?.close == 200, "kraken's then bitstamp's")
        #expect(outcome.daily.bars.count == Int(today - 17395) && outcome.gaveAll, "\(outcome.daily.bars.count) \(outcome.gaveAll)")
    }
}
