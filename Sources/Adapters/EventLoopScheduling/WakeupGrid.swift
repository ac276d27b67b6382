import NIOCore

/// Points every `period` on NIO's monotonic clock, the same for every timer in the process. A
/// timer that may be a little late is rounded up to the next point, and the stream's paced reads
/// fall on the points too, so they all fire in one wakeup of the loop instead of one each: the
/// kernel's timer slack, applied where we know how late a timer may be.
public struct WakeupGrid: Sendable, Hashable {
    public let period: TimeAmount

    /// Nil for a zero period: every timer then fires when it is due.
    public init?(period: Duration) {
        let nanoseconds = TimeAmount(period).nanoseconds
        guard nanoseconds > 0 else { return nil }
        self.period = .nanoseconds(nanoseconds)
    }

    /// The first point at or after `deadline`.
    public func point(atOrAfter deadline: NIODeadline) -> NIODeadline {
        let time = deadline.uptimeNanoseconds, period = UInt64(self.period.nanoseconds)
        let (quotient, remainder) = time.quotientAndRemainder(dividingBy: period)
        guard remainder != 0 else { return deadline }
        let (point, overflow) = (quotient + 1).multipliedReportingOverflow(by: period)
        return overflow ? deadline : .uptimeNanoseconds(point)
    }

    /// The first point after `deadline`.
    public func point(after deadline: NIODeadline) -> NIODeadline {
        point(atOrAfter: deadline + .nanoseconds(1))
    }

    /// Where a timer due at `deadline` that may be `tolerance` late fires: on the grid when the
    /// tolerance allows a whole period, else when due.
    public func deadline(_ deadline: NIODeadline, tolerance: Duration?) -> NIODeadline {
        guard let tolerance, TimeAmount(tolerance) >= period else { return deadline }
        return point(atOrAfter: deadline)
    }
}
