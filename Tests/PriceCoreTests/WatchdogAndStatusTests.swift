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

@Suite("STATUS= throttle")
struct StatusThrottleTests {
    typealias Instant = ManualClock.Instant

    /// Offers each (kind, text, milliseconds) in turn; returns which went out.
    func sent(_ offers: [(StatusKind, String, Int64)]) -> [Bool] {
        var throttle = StatusThrottle<Instant>()
        return offers.map { throttle.admit(DaemonStatus(kind: $0.0, text: $0.1), at: Instant(offset: .milliseconds($0.2))) }
    }

    /// The bug it replaces: kinds were told apart by an 8-character prefix, so "STALE 42s" and
    /// "STALE 43s" looked like different kinds and a stale daemon sent every age update.
    @Test func ageUpdatesOfTheSameKindGoOutAtMostOnceASecond() {
        #expect(sent([(.stale, "STALE 42s: binance: timeout", 0), (.stale, "STALE 43s: binance: timeout", 100),
                      (.stale, "STALE 43s: binance: timeout", 900), (.stale, "STALE 43s: binance: timeout", 1000),
                      (.stale, "STALE 1m40s: binance: timeout", 1100)]) == [true, false, false, true, false])
    }

    @Test func aChangeOfKindGoesOutAtOnceAndRepeatsDoNot() {
        #expect(sent([(.waiting, "waiting for first quote", 0), (.failing, "waiting for first quote; binance: HTTP 451", 10),
                      (.fresh, "BTC/USDT 1.00 via binance (BTCUSDT), 0.1s old", 20), (.stale, "STALE 10s: no new quote", 30),
                      (.stale, "STALE 10s: no new quote", 5000)]) == [true, true, true, true, false])
    }
}
