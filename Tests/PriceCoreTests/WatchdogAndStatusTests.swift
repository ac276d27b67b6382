import PriceCore
import TestClocks
import Testing

@Suite("Watchdog gating on an injected clock")
struct WatchdogGateTests {
    typealias Instant = ManualClock.Instant
    let start = Instant(offset: .zero)

    @Test func startUpCountsAsProgressForOneInterval() {
        let gate = WatchdogGate(interval: .seconds(30), startedAt: start)
        #expect(gate.mayPing(at: start.advanced(by: .seconds(30))))
        #expect(!gate.mayPing(at: start.advanced(by: .seconds(31))))
        #expect(gate.pingPeriod == .seconds(15))
    }

    @Test func completedCyclesKeepItFed() {
        var gate = WatchdogGate(interval: .seconds(30), startedAt: start)
        for second in stride(from: 1, through: 300, by: 1) {
            gate.cycleCompleted(at: start.advanced(by: .seconds(second)))
            #expect(gate.mayPing(at: start.advanced(by: .seconds(second) + .milliseconds(500))))
        }
    }

    @Test func aHungLoopStopsThePings() {
        var gate = WatchdogGate(interval: .seconds(30), startedAt: start)
        gate.cycleCompleted(at: start.advanced(by: .seconds(10)))
        #expect(gate.mayPing(at: start.advanced(by: .seconds(40))))
        #expect(!gate.mayPing(at: start.advanced(by: .seconds(41))))
        #expect(!gate.mayPing(at: start.advanced(by: .seconds(3600))))
    }

    @Test func anOutageIsNotAHangBecauseBackoffStaysUnderHalfTheInterval() async {
        // Every source failing, with backoff capped at half the watchdog interval: the loop
        // keeps completing cycles and the gate stays open the whole time.
        let clock = ManualClock()
        var gate = WatchdogGate(interval: .seconds(20), startedAt: clock.now)
        let schedule = FetchSchedule(interval: .seconds(1), maximumBackoff: gate.longestIdle)
        var now = clock.now
        for failures in 1...50 {
            now = now.advanced(by: .milliseconds(1600))  // two timeouts of 800ms
            gate.cycleCompleted(at: now)
            let wait = schedule.backoff(afterConsecutiveFailures: failures, jitter: 1)
            #expect(wait <= .seconds(10))
            #expect(gate.mayPing(at: now.advanced(by: wait)))
            now = now.advanced(by: wait)
        }
    }
}

@Suite("STATUS= summary line")
struct StatusSummaryTests {
    let quote = Quote(price: try! Price(parsing: "114459.8"), currency: "USDT", symbol: "BTCUSDT", source: .binance, timestamp: Timestamp(millisecondsSinceEpoch: 0))

    @Test func fresh() {
        let freshness = Freshness(of: quote, at: Timestamp(millisecondsSinceEpoch: 412), staleAfter: .seconds(10))
        #expect(StatusSummary.line(quote: quote, freshness: freshness, failures: nil) == "BTC/USDT 114459.80 via binance (BTCUSDT), 0.4s old")
    }

    @Test func waiting() {
        let freshness = Freshness(of: nil, at: Timestamp(millisecondsSinceEpoch: 0), staleAfter: .seconds(10))
        #expect(StatusSummary.line(quote: nil, freshness: freshness, failures: "binance: timeout after 800ms")
            == "waiting for first quote; binance: timeout after 800ms")
    }

    @Test func stale() {
        let freshness = Freshness(of: quote, at: Timestamp(millisecondsSinceEpoch: 42_000), staleAfter: .seconds(10))
        #expect(StatusSummary.line(quote: quote, freshness: freshness, failures: "binance: HTTP 451 (geo-restricted)")
            == "STALE 42s: binance: HTTP 451 (geo-restricted); last BTC/USDT 114459.80 via binance")
    }

    @Test func compactAges() {
        #expect(StatusSummary.compactAge(192_000) == "3m12s")
        #expect(StatusSummary.compactAge(7_500_000) == "2h05m")
    }
}
