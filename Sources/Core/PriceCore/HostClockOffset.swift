/// How far the host's wall clock is from the venues' clocks, estimated from direct answers (no
/// cache between): the smallest (receipt − origin) over a recent window, which is the offset
/// plus the quickest answer's travel time.
///
/// Each answer is kept as its origin minus the monotonic time it came at, not against the wall
/// clock: a step of the host clock (NTP, a user's `date -s`) then moves the estimate at once,
/// without waiting for answers, while the venues' clocks, which did not step, keep their samples.
/// A venue whose clock steps back, or a cache that lags, only adds samples the estimate ignores.
/// After a suspend that stopped the monotonic clock, the first answer's larger sample wins.
public struct HostClockOffset: Sendable {
    /// How long an answer's sample counts.
    public static let window: Duration = .seconds(600)
    /// Offsets this small are travel time and the one-second resolution of HTTP `Date`, not a
    /// wrong clock: answers are dated against the host clock as it is.
    public static let tolerance: Duration = .seconds(2)

    /// Per minute of monotonic time, the largest origin − monotonic receipt, in milliseconds:
    /// at most one sample per minute of the window, whatever the answer rate.
    private var minutes: [(minute: Int64, venueAhead: Int64)] = []

    public init() {}

    /// A direct answer made at `origin` (the venue's clock) that came at `monotonic` on the daemon's
    /// clock, counted from any fixed point.
    public mutating func observe(origin: Timestamp, atMonotonic monotonic: Duration) {
        let now = monotonic.wholeMilliseconds, minute = now / 60_000
        let sample = origin.millisecondsSinceEpoch - now
        minutes.removeAll { now - ($0.minute + 1) * 60_000 > Self.window.wholeMilliseconds }
        if let last = minutes.indices.last, minutes[last].minute == minute {
            minutes[last].venueAhead = max(minutes[last].venueAhead, sample)
        } else {
            minutes.append((minute, sample))
        }
    }

    /// The host clock's offset at this moment, positive when it is ahead of the venues; nil
    /// without an answer in the window.
    public func estimate(wallTime: Timestamp, atMonotonic monotonic: Duration) -> Duration? {
        let now = monotonic.wholeMilliseconds
        var venueAhead: Int64?
        for sample in minutes where now - (sample.minute + 1) * 60_000 <= Self.window.wholeMilliseconds {
            venueAhead = max(venueAhead ?? sample.venueAhead, sample.venueAhead)
        }
        guard let venueAhead else { return nil }
        return .milliseconds(wallTime.millisecondsSinceEpoch - (now + venueAhead))
    }

    /// What to take off the wall clock to date an answer in the venues' time: the estimate
    /// when it is beyond the tolerance, otherwise nothing.
    public func correction(wallTime: Timestamp, atMonotonic monotonic: Duration) -> Duration {
        guard let offset = estimate(wallTime: wallTime, atMonotonic: monotonic), Self.isWrong(offset) else { return .zero }
        return offset
    }

    /// Whether an offset is a wrong clock rather than travel time.
    public static func isWrong(_ offset: Duration) -> Bool { offset > tolerance || offset < .zero - tolerance }

}
