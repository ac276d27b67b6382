import FoundationEssentials
import PriceCore
import TestClocks
import Testing

@Suite("Source limits and call budgets on a manual clock")
struct CallBudgetTests {
    typealias Instant = ManualClock.Instant
    let start = Instant(offset: .zero)

    @Test func aDailyBudgetIsSpreadEvenlyOverTheDay() {
        #expect(SourceLimits(minimumInterval: .seconds(10), dailyCalls: 7500).pace == .milliseconds(11_520))
        #expect(SourceLimits(minimumInterval: .seconds(10), dailyCalls: 100_000).pace == .seconds(10))
        #expect(SourceLimits(minimumInterval: .seconds(1)).pace == .seconds(1))
    }

    @Test func aWholeDayNeverExceedsTheBudgetOrTheMinimumInterval() {
        let limits = SourceLimits(minimumInterval: .seconds(10), dailyCalls: 7500)
        var log = CallLog<Instant>()
        var calls: [Instant] = []
        // Ask every 1.44 s (an eighth of the pace) for 24 h of test time; only what the limits allow gets through.
        var now = start
        while now.offset < .seconds(86_400) {
            if log.allows(limits, at: now) {
                log.record(at: now, keepingDayFor: limits)
                calls.append(now)
            }
            now = now.advanced(by: .milliseconds(1440))
        }
        #expect(calls.count == 7500)
        #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.duration(to: $1) >= .seconds(10) })
        #expect(log.calls(inLastDayAt: calls.last!) == calls.count)
        #expect(!log.allows(limits, at: calls.last!.advanced(by: .milliseconds(11_519))))
    }

    @Test func theRollingWindowHoldsEvenWhenThePaceWouldAllowMore() {
        // A budget of 3 with no pace of its own: the fourth call waits until the first is 24 h old.
        let limits = SourceLimits(minimumInterval: .zero, dailyCalls: 3)
        var log = CallLog<Instant>()
        for hour in [0, 8, 16] {
            let at = start.advanced(by: .seconds(hour * 3600))
            #expect(log.allows(limits, at: at))
            log.record(at: at, keepingDayFor: limits)
        }
        let nextDay = start.advanced(by: .seconds(86_400))
        #expect(!log.allows(limits, at: nextDay.advanced(by: .milliseconds(-1))))
        #expect(log.nextAllowed(limits, at: start.advanced(by: .seconds(17 * 3600))) == nextDay)
        #expect(log.allows(limits, at: nextDay))
        #expect(log.calls(inLastDayAt: nextDay) == 2)
    }

    @Test func aLogRestoredOrRecordedOutOfOrderStillCountsTheRightWindow() {
        let limits = SourceLimits(minimumInterval: .zero, dailyCalls: 3)
        let hours = { (hour: Int) in self.start.advanced(by: .seconds(hour * 3600)) }
        var log = CallLog<Instant>(last: hours(20), recent: [hours(20), hours(2), hours(10)])
        log.record(at: hours(5), keepingDayFor: limits)
        #expect(log.recentCalls == [hours(2), hours(5), hours(10), hours(20)])
        #expect(log.calls(inLastDayAt: hours(30)) == 2, "2 h and 5 h are more than a day old at 30 h")
        #expect(log.nextAllowed(limits, at: hours(21)) == hours(29), "the third-newest call (5 h) turns a day old")
    }
}

@Suite("Consensus: exact median, outliers, minimum agreement")
struct ConsensusTests {
    func answers(_ prices: [(SourceName, String)]) -> [VenueAnswer] {
        prices.map { VenueAnswer(source: $0.0, quote: SourceQuote(price: try! Price(parsing: $0.1), symbol: "x", quoteAsset: "USD")) }
    }
    let rule = ConsensusRule(maximumDeviation: Decimal(string: "0.01")!, minimumAgreeing: 2)

    @Test func medianOfOddAndEvenCountsIsExact() {
        let prices = ["85866.1", "85866.185", "85866"].map { try! Price(parsing: $0) }
        #expect(Consensus.median(prices)?.description == "85866.1")
        let even = ["85866.1", "85866.185", "85866", "85870"].map { try! Price(parsing: $0) }
        #expect(Consensus.median(even)?.description == "85866.1425")
        #expect(Consensus.median(["0.00000001", "0.00000002"].map { try! Price(parsing: $0) })?.description == "0.000000015")
        #expect(Consensus.median([]) == nil)
    }

    @Test func aVenueFivePercentOffIsExcluded() {
        let outcome = Consensus.evaluate(answers([(.coinbase, "100000"), (.kraken, "100020"), (.bitstamp, "105000")]), rule: rule)
        #expect(outcome.outliers == [.bitstamp])
        #expect(outcome.agreeing == [.coinbase, .kraken])
        #expect(outcome.price?.description == "100010")
        #expect(outcome.spread == 20)
    }

    @Test func exactlyAtTheDeviationStillAgrees() {
        let outcome = Consensus.evaluate(answers([(.coinbase, "100000"), (.kraken, "101000"), (.bitstamp, "100000")]), rule: rule)
        #expect(outcome.outliers.isEmpty)
        #expect(outcome.price?.description == "100000")
    }

    @Test func tooFewAgreeingGivesNoPrice() {
        let outcome = Consensus.evaluate(answers([(.coinbase, "100000")]), rule: rule)
        #expect(outcome.price == nil)
        #expect(outcome.required == 2)
    }
}

@Suite("Staleness: honest, and no flapping with slow sources")
struct StalenessPolicyTests {
    func quote(from source: SourceName, at ms: Int64) -> Quote {
        Quote(price: try! Price(parsing: "1"), currency: "USD", symbol: "x", source: source, timestamp: Timestamp(millisecondsSinceEpoch: ms))
    }

    @Test func aSlowSourceNeverFlapsBetweenItsPermittedCalls() {
        let policy = StalenessPolicy(staleAfter: .seconds(10), interval: .seconds(1),
                                     paces: [.cryptoCompare: .milliseconds(11_520), .coinbase: .seconds(1)])
        // CryptoCompare answers every 11.52 s: sample every 100 ms across ten of its calls.
        for step in stride(from: Int64(0), to: 115_200, by: 100) {
            let received = step / 11_520 * 11_520
            let freshness = Freshness(of: quote(from: .cryptoCompare, at: received), at: Timestamp(millisecondsSinceEpoch: step),
                                      staleAfter: policy.limit(for: quote(from: .cryptoCompare, at: received)))
            #expect(freshness.state == .fresh, "stale at \(step) ms")
        }
        // Still honest: a missed call plus staleAfter makes it stale.
        let missed = Freshness(of: quote(from: .cryptoCompare, at: 0), at: Timestamp(millisecondsSinceEpoch: 21_521),
                               staleAfter: policy.limit(for: quote(from: .cryptoCompare, at: 0)))
        #expect(missed.state == .stale)
        #expect(policy.limit(for: quote(from: .coinbase, at: 0)) == .seconds(10))
    }
}
