import PriceCore
import Synchronization

/// The venues' time, for filing history: the host's wall clock, less how far it is wrong when
/// that is more than a minute (`HostClockWatch` sets it from the venues' answers). A box that
/// boots with its clock days behind, before NTP steps it, files its minute bars and daily
/// closes under the venues' day, not its own.
public final class VenueTimeClock: WallClock {
    /// A smaller error is left alone: a bar a few seconds off its minute is no harm, and a
    /// correction that came and went with each estimate would move bars between minutes.
    public static let smallestCorrection: Duration = .seconds(60)

    private let base: any WallClock
    /// How far the host clock is ahead of the venues', in milliseconds; 0 when within a minute.
    private let hostAhead = Atomic<Int64>(0)

    public init(base: any WallClock) {
        self.base = base
    }

    public func now() -> Timestamp {
        base.now().adding(milliseconds: -hostAhead.load(ordering: .relaxed))
    }

    /// The host clock's error as last estimated; nil when unknown (no recent direct answer).
    func correct(byHostAhead estimate: Duration?) {
        let milliseconds = estimate.map { abs($0.wholeMilliseconds) > Self.smallestCorrection.wholeMilliseconds ? $0.wholeMilliseconds : 0 } ?? 0
        // Called with every dated answer: written only when it changes (nearly never).
        if hostAhead.load(ordering: .relaxed) != milliseconds { hostAhead.store(milliseconds, ordering: .relaxed) }
    }
}
