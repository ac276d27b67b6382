import Logging
import PriceCore
import Synchronization
import WireProtocol

/// Dates every answer against the venues' clocks (`HostClockOffset`), so that a host clock set
/// minutes or hours wrong neither makes fresh answers stale nor hides a cache's real age. It
/// learns from each direct answer it dates, says once when the host clock is wrong and once
/// when it is right again; a scrape reads its estimate (`btcpriced_clock_offset_seconds`).
/// It also says once, at notice level, when the host clock steps (`ClockStep`), and keeps the
/// history's clock (`VenueTimeClock`) on the venues' time when the host's is a minute or more off.
public final class HostClockWatch<C: Clock>: Sendable where C.Duration == Duration, C.Instant: Sendable {
    private struct State {
        var offset = HostClockOffset()
        var wrong = false
        var step = ClockStep()
    }

    private let state = Mutex(State())
    private let clock: C
    private let wallClock: any WallClock
    /// Where the watch's monotonic time counts from.
    private let start: C.Instant
    private let logger: Logger
    /// The history's clock, kept on the venues' time.
    private let venueClock: VenueTimeClock?

    public init(clock: C, wallClock: any WallClock, logger: Logger, correcting venueClock: VenueTimeClock? = nil) {
        self.clock = clock
        self.wallClock = wallClock
        start = clock.now
        self.logger = logger
        self.venueClock = venueClock
    }

    /// Looks for a step of the host clock since the last look, and says so once per step. Called
    /// with every fetch cycle and every answer dated, so a step is named within a cycle without
    /// a wakeup of its own.
    public func lookForStep() {
        let wallTime = wallClock.now(), monotonic = start.duration(to: clock.now)
        let (step, estimate) = state.withLock { state in
            (state.step.observe(wallTime: wallTime, atMonotonic: monotonic), state.offset.estimate(wallTime: wallTime, atMonotonic: monotonic))
        }
        follow(estimate, step: step)
    }

    private func follow(_ estimate: Duration?, step: Duration?) {
        venueClock?.correct(byHostAhead: estimate)
        guard let step else { return }
        let milliseconds = step.wholeMilliseconds, seconds = abs(milliseconds) / 1000
        logger.notice("the host clock stepped \(milliseconds < 0 ? "back" : "forward") by \(MoneyText.groupedWhole(String(seconds))) s; every deadline (fetches, staleness, the watchdog, rests) runs on the monotonic clock and is unaffected, and ages stay as measured",
                      metadata: ["step_ms": "\(milliseconds)", "message_id": "\(MessageID.clockStepped)"])
    }

    /// An answer made at `origin` (nil: it did not say), held `cacheAge` by caches, dated on
    /// arrival now. Only `venueClock`, the venue's clock as the answer left it (an HTTP `Date`
    /// no cache held, a trade's time), teaches the estimate: an origin may be as old as it likes.
    public func stamp(origin: Timestamp?, cacheAge: Duration = .zero, venueClock: Timestamp?) -> (timestamp: Timestamp, ageOnArrival: Duration) {
        let wallTime = wallClock.now(), monotonic = start.duration(to: clock.now)
        var step: Duration?
        let (estimate, correction, change) = state.withLock { state -> (Duration?, Duration, Bool?) in
            if let venueClock { state.offset.observe(origin: venueClock, atMonotonic: monotonic) }
            let estimate = state.offset.estimate(wallTime: wallTime, atMonotonic: monotonic)
            step = state.step.observe(wallTime: wallTime, atMonotonic: monotonic)
            let wrong = estimate.map(HostClockOffset.isWrong) ?? false
            defer { state.wrong = wrong }
            return (estimate, wrong ? estimate ?? .zero : .zero, wrong == state.wrong ? nil : wrong)
        }
        if let estimate, let change { log(estimate, wrong: change) }
        follow(estimate, step: step)
        return ExchangeTime.stamp(origin: origin, cacheAge: cacheAge, receivedAt: wallTime, hostAhead: correction)
    }

    /// How far the host clock is ahead of the venues' now (negative: behind); nil before any
    /// direct answer in the last `HostClockOffset.window`.
    public var estimate: Duration? {
        let wallTime = wallClock.now(), monotonic = start.duration(to: clock.now)
        return state.withLock { $0.offset.estimate(wallTime: wallTime, atMonotonic: monotonic) }
    }

    private func log(_ offset: Duration, wrong: Bool) {
        // Whole seconds rounded down: the estimate runs up to a second high, as HTTP `Date`
        // drops the fraction, plus the quickest answer's travel.
        let milliseconds = offset.wholeMilliseconds
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (-milliseconds + 999) / 1000
        let metadata: Logger.Metadata = ["offset_ms": "\(milliseconds)"]
        if wrong {
            let side = milliseconds >= 0 ? "ahead of" : "behind"
            logger.warning("the host clock is \(MoneyText.groupedWhole(String(seconds))) s \(side) the venues' clocks; ages are corrected; check NTP (systemd-timesyncd)",
                           metadata: metadata)
        } else {
            logger.notice("the host clock agrees with the venues' clocks again; ages need no correction", metadata: metadata)
        }
    }
}
