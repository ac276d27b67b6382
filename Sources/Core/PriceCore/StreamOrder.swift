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

/// Where a quote's age starts: the venue's own time when it sends one, so a trade or a cached answer
/// made an hour ago is an hour old on arrival, not fresh.
public enum ExchangeTime {
    /// A stamp this far ahead of the local clock means the local clock is behind the venue's:
    /// the quote is stamped with the local time instead (it cannot be newer than now).
    public static let aheadTolerance: Int64 = 2_000

    /// The quote's timestamp and its age on arrival; `hostAhead` is how far the host clock is
    /// ahead of the venues' (`HostClockOffset.correction`).
    public static func stamp(_ stamp: TradeStamp?, receivedAt wallTime: Timestamp, hostAhead: Duration = .zero) -> (timestamp: Timestamp, ageOnArrival: Duration) {
        self.stamp(origin: stamp?.time, receivedAt: wallTime, hostAhead: hostAhead)
    }

    /// The same for a REST answer: its age is the larger of the time since its origin's date and
    /// how long caches held it (RFC 9111 §4.2.3), so a cached answer is never fresher than it is,
    /// whether the cache kept the origin's `Date` or set its own. The age counts on the venues'
    /// clock (the host's less `hostAhead`); the timestamp is on the host's, as every other time
    /// the daemon shows.
    public static func stamp(origin: Timestamp?, cacheAge: Duration = .zero, receivedAt wallTime: Timestamp,
                             hostAhead: Duration = .zero) -> (timestamp: Timestamp, ageOnArrival: Duration) {
        let cacheMilliseconds = cacheAge.wholeMilliseconds
        let venueTime = wallTime.adding(milliseconds: -hostAhead.wholeMilliseconds)
        guard let origin, origin.millisecondsSinceEpoch <= venueTime.millisecondsSinceEpoch + aheadTolerance else {
            return (wallTime.adding(milliseconds: -cacheMilliseconds), .milliseconds(cacheMilliseconds))
        }
        // Up to the tolerance ahead of the venues' time now is age zero.
        let sinceOrigin = max(0, venueTime.milliseconds(since: origin))
        guard cacheMilliseconds > sinceOrigin else {
            return (origin.adding(milliseconds: hostAhead.wholeMilliseconds), .milliseconds(sinceOrigin))
        }
        return (wallTime.adding(milliseconds: -cacheMilliseconds), .milliseconds(cacheMilliseconds))
    }
}
