import PriceCore
import TestClocks
import Testing

/// Stand-ins with real limits, for ledgers that are only configured, never fetched from.
struct LimitedSource: PriceSource {
    let name: SourceName
    let quoteAsset = "USD"
    let limits: SourceLimits
    func fetchQuote() async throws -> SourceQuote { throw FetchFailure.transport("not used") }
}

@Suite("Restraints: cool-downs and budgets outlive a restart")
struct RestraintTests {
    typealias Instant = ManualClock.Instant
    let wall = Timestamp(millisecondsSinceEpoch: 1_795_300_000_000)
    let budgeted = SourceLimits(minimumInterval: .seconds(10), dailyCalls: 7500)

    func door(_ sources: [any PriceSource]) -> LedgerDoor<Instant> {
        let door = LedgerDoor<Instant>()
        door.configure(sources)
        return door
    }

    @Test func aCooldownAndABudgetCarryIntoTheNextRun() {
        let sources: [any PriceSource] = [LimitedSource(name: .binance, limits: SourceLimits(minimumInterval: .seconds(1))),
                                          LimitedSource(name: .cryptoCompare, limits: budgeted)]
        let before = door(sources)
        let t0 = Instant(offset: .seconds(1000))
        #expect(before.admitPrice(.cryptoCompare, at: t0) == nil)
        _ = before.record(FetchRound(attempts: [.failed(.binance, .rateLimited(retryAfter: .seconds(120)))]), reading: nil,
                          holding: false, at: t0, wallTime: wall)
        let saved = before.ledger.restraints(at: t0.advanced(by: .seconds(2)), wallTime: wall.adding(milliseconds: 2000))
        #expect(saved[.binance]?.restingUntil == wall.adding(milliseconds: 120_000))
        #expect(saved[.cryptoCompare]?.lastCall == wall)
        #expect(saved[.cryptoCompare]?.callsByHourEnd.values.reduce(0, +) == 1)

        // The next run starts 5 s later with a fresh monotonic clock.
        let after = door(sources)
        let start = Instant(offset: .zero)
        let resting = after.restore(saved, at: start, wallTime: wall.adding(milliseconds: 5000))
        #expect(resting == [.binance])
        #expect(after.admitPrice(.binance, at: start) == .coolingDown(.binance))
        #expect(after.admitPrice(.binance, at: start.advanced(by: .seconds(115))) == nil)
        #expect(after.admitPrice(.cryptoCompare, at: start) == .paced(.cryptoCompare))
        #expect(after.admitPrice(.cryptoCompare, at: start.advanced(by: .milliseconds(6519))) == .paced(.cryptoCompare))
        #expect(after.admitPrice(.cryptoCompare, at: start.advanced(by: .milliseconds(6520))) == nil)
        #expect(after.ledger.statuses(at: start.advanced(by: .seconds(7))).last?.callsLastDay == 2)
    }

    @Test func timesFromAWrongClockAreBoundedOnTheSafeSide() {
        let sources: [any PriceSource] = [LimitedSource(name: .binance, limits: SourceLimits(minimumInterval: .seconds(1))),
                                          LimitedSource(name: .cryptoCompare, limits: budgeted)]
        let after = door(sources)
        let start = Instant(offset: .zero)
        let year9999 = Timestamp(rfc3339: "9999-12-31T23:59:59Z")!
        after.restore([.binance: SourceRestraint(restingUntil: year9999), .cryptoCompare: SourceRestraint(lastCall: year9999)],
                      at: start, wallTime: wall)
        // A rest is capped at an hour; a call "in the future" counts as just made.
        #expect(after.admitPrice(.binance, at: start.advanced(by: .seconds(3599))) == .coolingDown(.binance))
        #expect(after.admitPrice(.binance, at: start.advanced(by: .seconds(3600))) == nil)
        #expect(after.admitPrice(.cryptoCompare, at: start.advanced(by: .seconds(11))) == .paced(.cryptoCompare))
        #expect(after.admitPrice(.cryptoCompare, at: start.advanced(by: .milliseconds(11_520))) == nil)
    }

    @Test func aRefusedStreamCarriesIntoTheNextRunForNoMoreThanAnHour() {
        let sources: [any PriceSource] = [LimitedSource(name: .binance, limits: SourceLimits(minimumInterval: .seconds(1)))]
        let before = door(sources)
        let t0 = Instant(offset: .seconds(1000))
        before.refuseStream(.binance, until: t0.advanced(by: .seconds(3600)))
        let saved = before.ledger.restraints(at: t0.advanced(by: .seconds(600)), wallTime: wall)
        #expect(saved[.binance] == SourceRestraint(streamRefusedUntil: wall.adding(milliseconds: 3_000_000)))
        #expect(saved[.binance]?.restingUntil == nil, "REST polling of binance is not held back by its stream's refusal")

        let after = door(sources)
        let start = Instant(offset: .zero)
        after.restore(saved, at: start, wallTime: wall.adding(milliseconds: 60_000))
        #expect(after.ledger.streamRefusal(.binance, at: start) == start.advanced(by: .seconds(2940)))
        #expect(after.ledger.streamRefusal(.binance, at: start.advanced(by: .seconds(2940))) == nil)
        #expect(after.admitPrice(.binance, at: start) == nil)

        let year9999 = Timestamp(rfc3339: "9999-12-31T23:59:59Z")!
        let wrongClock = door(sources)
        wrongClock.restore([.binance: SourceRestraint(streamRefusedUntil: year9999)], at: start, wallTime: wall)
        #expect(wrongClock.ledger.streamRefusal(.binance, at: start) == start.advanced(by: .seconds(3600)), "capped at an hour")
    }
}
