/// The order rule for one venue's stream: a price whose trade or event time (or, within the same
/// millisecond, trade id) is older than the newest one applied never replaces it, and a ticker's close never overrides a
/// newer trade. Messages without a stamp are applied as they come, in arrival order.
public struct StreamOrder: Sendable, Hashable {
    private var newestTime: Timestamp?
    private var newestTradeID: Int64?
    private var tradeApplied = false

    public init() {}

    /// Whether `event` may be applied; records it when it may.
    public mutating func admits(_ event: StreamEvent) -> Bool {
        switch event {
        case .trade(_, let stamp):
            guard let stamp else {
                tradeApplied = true
                return true
            }
            // The time decides; within one millisecond, the trade id.
            if let newest = newestTime {
                if stamp.time < newest { return false }
                if stamp.time == newest, let id = stamp.tradeID, let newestID = newestTradeID, id <= newestID { return false }
            }
            newestTime = stamp.time
            newestTradeID = stamp.tradeID ?? newestTradeID
            tradeApplied = true
            return true
        case .tickerClose(_, let stamp):
            // Its close is some earlier trade's price: only news when it is newer than every
            // trade applied, which an unstamped trade leaves unknowable.
            guard let stamp else { return !tradeApplied }
            if let newest = newestTime, stamp.time <= newest { return false }
            if tradeApplied && newestTime == nil { return false }
            newestTime = stamp.time
            return true
        case .dayRange, .alive, .closingSoon:
            return true
        }
    }
}

/// Where a streamed quote's age starts: the venue's own time when it sends one, so a trade
/// stamped an hour ago is an hour old on arrival, not fresh.
public enum ExchangeTime {
    /// A stamp this far ahead of the local clock means the local clock is behind the venue's:
    /// the quote is stamped with the local time instead (it cannot be newer than now).
    public static let aheadTolerance: Int64 = 2_000

    /// The quote's timestamp and its age on arrival.
    public static func stamp(_ stamp: TradeStamp?, receivedAt wallTime: Timestamp) -> (timestamp: Timestamp, ageOnArrival: Duration) {
        guard let stamp, stamp.time.millisecondsSinceEpoch <= wallTime.millisecondsSinceEpoch + aheadTolerance else {
            return (wallTime, .zero)
        }
        return (stamp.time, .milliseconds(max(0, wallTime.milliseconds(since: stamp.time))))
    }
}
