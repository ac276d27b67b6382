/// Notices a step of the host's wall clock (NTP correcting a clock that ran ahead, a user's
/// `date -s`, a VM restored from a snapshot) against the monotonic clock, which never steps.
/// Every deadline runs on the monotonic clock, so a step changes nothing the daemon waits for;
/// it is worth one line in the journal, because the times the daemon shows move with it.
/// NTP's slewing (at most 0.5 ms a second) never adds up to a step between two looks.
public struct ClockStep: Sendable {
    /// A jump smaller than this between two looks is drift or slewing, not a step.
    public static let threshold: Duration = .seconds(1)

    /// The wall clock's reading less the monotonic one, in milliseconds, at the last look.
    private var baseline: Int64?

    public init() {}

    /// Looks at both clocks; returns how far the wall clock stepped since the last look
    /// (negative: back), or nil when it did not.
    public mutating func observe(wallTime: Timestamp, atMonotonic monotonic: Duration) -> Duration? {
        let difference = wallTime.millisecondsSinceEpoch - monotonic.wholeMilliseconds
        defer { baseline = difference }
        guard let baseline else { return nil }
        let step = difference - baseline
        return abs(step) >= Self.threshold.wholeMilliseconds ? .milliseconds(step) : nil
    }
}
