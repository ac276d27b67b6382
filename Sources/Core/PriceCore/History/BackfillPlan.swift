/// Which candles to ask a venue for: the slots (minutes of the last week, or days of the last
/// ten years) the history lacks, cut into requests of at most a venue's candles per request,
/// newest first, so that an interrupted backfill (a limit reached, a venue failing) has filled
/// what matters most. A request may span slots the history has, between two gaps it fills at
/// once; those are never overwritten. It never starts or ends on one: ten minutes missing are
/// ten minutes asked.
public struct BackfillPlan: Sendable, Equatable {
    /// The slots each request asks for, newest request first.
    public let requests: [ClosedRange<Int64>]

    /// `now`'s own minute is the daemon's to record, so the plan ends at the minute before it.
    public init(history: PriceHistory, now: Timestamp, window: ChangeWindow = .week, perRequest: Int) {
        let newest = MinuteBar.minute(of: now) - 1
        self.init(from: newest - window.minutes + 1, through: newest, seen: history.bars.lazy.map(\.minute), perRequest: perRequest)
    }

    /// The days before today's (which the minute history makes when it ends) back to ten years,
    /// or to the first day the venues had when a backfill last asked them all.
    public init(daily: DailyHistory, now: Timestamp, perRequest: Int) {
        let newest = DailyBar.day(of: now) - 1
        let oldest = max(newest - DailyHistory.retainedDays + 1, daily.firstAvailableDay ?? .min)
        self.init(from: oldest, through: newest, seen: daily.bars.lazy.map(\.day), perRequest: perRequest)
    }

    /// The slots from `oldest` through `newest` not in `seen`, in requests of at most `perRequest`.
    public init(from oldest: Int64, through newest: Int64, seen: some Sequence<Int64>, perRequest: Int) {
        let seen = Set(seen.lazy.filter { $0 >= oldest && $0 <= newest })
        let size = Int64(max(1, perRequest))
        var requests: [ClosedRange<Int64>] = []
        var slot = newest
        while slot >= oldest {
            guard !seen.contains(slot) else {
                slot -= 1
                continue
            }
            var start = max(oldest, slot - size + 1)
            while seen.contains(start) { start += 1 }
            requests.append(start...slot)
            slot = start - 1
        }
        self.requests = requests
    }

    /// Minutes missing in all, for the log and the metrics.
    public static func missing(in history: PriceHistory, now: Timestamp, window: ChangeWindow = .week) -> Int {
        let newest = MinuteBar.minute(of: now) - 1, oldest = newest - window.minutes + 1
        return Int(window.minutes) - history.bars.lazy.filter { $0.minute >= oldest && $0.minute <= newest }.count
    }
}
