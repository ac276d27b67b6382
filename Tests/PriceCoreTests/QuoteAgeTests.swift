import PriceCore
import TestClocks
import Testing

@Suite("Quote age on the monotonic clock")
struct QuoteAgeTests {
    typealias Instant = ManualClock.Instant
    let received = Timestamp(millisecondsSinceEpoch: 1_795_300_000_000)
    var quote: Quote { Quote(price: try! Price(parsing: "1"), currency: "USD", symbol: "x", source: .coinbase, timestamp: received) }

    @Test func wallClockStepsDuringAnOutageDoNotHideIt() {
        let age = QuoteAge<Instant>(receivedAt: Instant(offset: .seconds(100)))
        // An hour of outage; the wall clock is stepped back an hour in the middle of it.
        let later = Instant(offset: .seconds(100 + 3600))
        let steppedBack = received.adding(milliseconds: 3_600_000 - 3_600_000)
        let freshness = age.freshness(of: quote, now: later, wallTime: steppedBack, staleAfter: .seconds(10))
        #expect(freshness.state == .stale)
        #expect(freshness.ageMilliseconds == 3_600_000)
        #expect(age.timeUntilStale(of: quote, now: later, wallTime: steppedBack, staleAfter: .seconds(10)) == nil)
    }

    @Test func aStepForwardDoesNotAgeAHealthyQuote() {
        let age = QuoteAge<Instant>(receivedAt: Instant(offset: .seconds(100)))
        let freshness = age.freshness(of: quote, now: Instant(offset: .milliseconds(100_400)),
                                      wallTime: received.adding(milliseconds: 3_600_400), staleAfter: .seconds(10))
        #expect(freshness.state == .fresh)
        #expect(freshness.ageMilliseconds == 400)
    }

    @Test func aRestoredQuoteFallsBackToItsWallStamp() {
        let age = QuoteAge<Instant>(receivedAt: nil)
        let freshness = age.freshness(of: quote, now: Instant(offset: .zero), wallTime: received.adding(milliseconds: 60_000),
                                      staleAfter: .seconds(10))
        #expect(freshness.state == .stale && freshness.ageMilliseconds == 60_000)
        #expect(Freshness.unknownAge.state == .stale && Freshness.unknownAge.ageMilliseconds == nil)
    }
}
