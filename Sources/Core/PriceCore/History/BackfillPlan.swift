/// Which minutes of the last week to ask a venue's candles for: the minutes the history lacks,
/// cut into requests of at most a venue's candles per request, newest first, so that an
/// interrupted backfill (a limit reached, a venue failing) has filled what matters most, the
/// hour and the day. A request may span minutes the history has, between two gaps it fills at
/// once; those are never overwritten. It never starts or ends on one: ten minutes missing are
/// ten minutes asked.
public struct BackfillPlan: Sendable, Equatable {
    /// The minutes each request asks for, newest request first.
    public let requests: [ClosedRange<Int64>]

    /// `now`'s own minute is the daemon's to record, so the plan ends at the minute before it.
    public init(history: PriceHistory, now: Timestamp, window: ChangeWindow = .week, perRequest: Int) {
        let newest = MinuteBar.minute(of: now) - 1, oldest = newest - window.minutes + 1
        let seen = Set(history.bars.lazy.map(\.minute).filter { $0 >= oldest && $0 <= newest })
        let size = Int64(max(1, perRequest))
        var requests: [ClosedRange<Int64>] = []
        var minute = newest
        while minute >= oldest {
            guard !seen.contains(minute) else {
                minute -= 1
                continue
            }
            var start = max(oldest, minute - size + 1)
            while seen.contains(start) { start += 1 }
            requests.append(start...minute)
            minute = start - 1
        }
        self.requests = requests
    }

    /// Minutes missing in all, for the log and the metrics.
    public static func missing(in history: PriceHistory, now: Timestamp, window: ChangeWindow = .week) -> Int {
        let newest = MinuteBar.minute(of: now) - 1, oldest = newest - window.minutes + 1
        return Int(window.minutes) - history.bars.lazy.filter { $0.minute >= oldest && $0.minute <= newest }.count
    }
}
