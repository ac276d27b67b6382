import FoundationEssentials

/// One bar per UTC day for ten years, oldest first: each day the minute history covers whole
/// is made from its minutes; days older than the minute history are kept as they were made.
/// About 60 KB a year as text, 2 MB of bars in memory at most.
public struct DailyHistory: Sendable, Equatable {
    /// Ten years and the leap days in them.
    public static let retainedDays: Int64 = 3653

    public private(set) var bars: [DailyBar] = []
    /// The first day the venues had when a backfill last asked them all (Binance lists BTCUSDT
    /// from 2017-08-17): the days before it are not asked for again at every start.
    public private(set) var firstAvailableDay: Int64?

    public init() {}

    /// In day order, the last of any duplicates, and only the retained span.
    public init(bars: some Sequence<DailyBar>, firstAvailableDay: Int64? = nil) {
        self.firstAvailableDay = firstAvailableDay
        var byDay: [Int64: DailyBar] = [:]
        for bar in bars { byDay[bar.day] = bar }
        self.bars = byDay.values.sorted { $0.day < $1.day }
        if let last = self.bars.last { self.bars.removeAll { $0.day <= last.day - Self.retainedDays } }
    }

    public var isEmpty: Bool { bars.isEmpty }

    /// Makes each day before `now`'s from `history`'s minutes, where the minute history reaches
    /// back to the day's start (a day cut by the week's edge would get a false open, high or
    /// low; the minutes the daemon was down inside a day are only missing). Returns whether any
    /// day changed.
    @discardableResult
    public mutating func complete(from history: PriceHistory, now: Timestamp) -> Bool {
        guard let first = history.bars.first else { return false }
        let (firstDay, minuteOfDay) = first.minute.floorDivided(by: 1440)
        let today = DailyBar.day(of: now), firstWholeDay = firstDay + (minuteOfDay == 0 ? 0 : 1)
        var made: [DailyBar] = []
        var current: (day: Int64, open: Decimal, high: Decimal, low: Decimal, close: Decimal)?
        func finish() {
            if let current, current.day >= firstWholeDay, current.day < today {
                made.append(DailyBar(day: current.day, open: current.open, high: current.high, low: current.low, close: current.close))
            }
        }
        for bar in history.bars {
            let day = bar.minute.floorDivided(by: 1440).quotient
            if current?.day == day {
                current!.high = max(current!.high, bar.high)
                current!.low = min(current!.low, bar.low)
                current!.close = bar.close
            } else {
                finish()
                current = (day, bar.open, bar.high, bar.low, bar.close)
            }
        }
        finish()
        let changed = made.filter { bar in self.bar(on: bar.day) != bar }
        guard !changed.isEmpty else { return false }
        self = DailyHistory(bars: bars + changed, firstAvailableDay: firstAvailableDay)
        return true
    }

    /// Adds a venue's daily candles (each a bar at its day's first minute) for the days of
    /// `days` before `now`'s that have no bar: a day made from the minutes the daemon saw is
    /// never overwritten. Returns how many days they filled.
    public mutating func fill(_ candles: [MinuteBar], within days: ClosedRange<Int64>, now: Timestamp) -> Int {
        let today = DailyBar.day(of: now)
        let added = candles.compactMap { candle -> DailyBar? in
            let (day, minuteOfDay) = candle.minute.floorDivided(by: 1440)
            guard minuteOfDay == 0, days.contains(day), day < today, bar(on: day) == nil else { return nil }
            return DailyBar(day: day, open: candle.open, high: candle.high, low: candle.low, close: candle.close)
        }
        guard !added.isEmpty else { return 0 }
        self = DailyHistory(bars: bars + added, firstAvailableDay: firstAvailableDay)
        return added.count
    }

    /// Every venue asked has given what it had: the days before the oldest kept are not asked
    /// for again. Returns whether that changed anything.
    @discardableResult
    public mutating func markBackfilled() -> Bool {
        guard let oldest = bars.first?.day, firstAvailableDay != oldest else { return false }
        firstAvailableDay = oldest
        return true
    }

    /// The bar of `day`, if kept.
    public func bar(on day: Int64) -> DailyBar? {
        var low = 0, high = bars.count
        while low < high {
            let middle = (low + high) / 2
            if bars[middle].day < day { low = middle + 1 } else { high = middle }
        }
        return low < bars.count && bars[low].day == day ? bars[low] : nil
    }

    /// The bars from `day` on (all with nil).
    public func since(_ day: Int64?) -> ArraySlice<DailyBar> {
        guard let day else { return bars[...] }
        return bars.drop { $0.day < day }
    }
}
