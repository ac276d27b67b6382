import FoundationEssentials
import PriceCore
import Synchronization
import WireProtocol

/// The minute history (a week) and the daily bars (ten years), as a board of their own. The
/// intake feeds it each live quote the price board keeps, before its other followers; the
/// backfill fills it and the restore starts it, both through the intake; the savers take what
/// changed; the price board reads the change figures from it when it makes a snapshot. Its
/// mutators are internal to DaemonKit, like the price board's.
public final class HistoryBoard: IntakeFollower {
    private struct State {
        var minutes = PriceHistory()
        /// Counts changes to `minutes`, so the saver can tell whether there is anything to write.
        var minutesVersion = 0
        /// One bar per UTC day for ten years, made from the minutes as days end.
        var daily = DailyHistory()
        var dailyVersion = 0
        /// The day's high and low before this minute: a trade then costs no scan of the day.
        var completedDay: CompletedDay?
    }

    private let state = Mutex(State())
    /// The venues' time, which minutes and days are filed under (the host's when it is right).
    public let venueClock: VenueTimeClock
    /// Counts changes the change figures depend on: a price board's snapshot made before the
    /// latest one is made again.
    private let figuresVersion = Atomic<Int>(0)

    public init(wallClock: any WallClock) {
        venueClock = VenueTimeClock(base: wallClock)
    }

    /// A kept live quote goes into its minute, stamped with the venues' time.
    public func follow(_ change: IntakeChange) {
        guard let quote = change.kept else { return }
        let now = venueClock.now()
        let recorded = state.withLock { state in
            guard state.minutes.record(quote.price.value, at: now) else { return false }
            state.minutesVersion += 1
            return true
        }
        if recorded { figuresVersion.add(1, ordering: .releasing) }
    }

    /// The minutes as they stand.
    public var minutes: PriceHistory { state.withLock { $0.minutes } }

    /// The minutes, if they changed since `version`, and the version they have now.
    public func minutes(changedSince version: Int) -> (history: PriceHistory, version: Int)? {
        state.withLock { $0.minutesVersion == version ? nil : ($0.minutes, $0.minutesVersion) }
    }

    /// The daily bars as they stand.
    public var daily: DailyHistory { state.withLock { $0.daily } }

    /// The daily bars, if they changed since `version`, and the version they have now.
    public func daily(changedSince version: Int) -> (daily: DailyHistory, version: Int)? {
        state.withLock { $0.dailyVersion == version ? nil : ($0.daily, $0.dailyVersion) }
    }

    /// The version of what the change figures are made from.
    var figures: Int { figuresVersion.load(ordering: .acquiring) }

    /// The change figures of `quote` against the minutes as of `now`.
    func trend(latest quote: Quote?, venueDay: VenueDay?, now: Timestamp, text: (Decimal) -> String) -> StatusMessage.Trend {
        // The minutes are shared, not copied, out of the lock.
        let (minutes, completedDay) = state.withLock { state in
            if state.completedDay?.minute != MinuteBar.minute(of: now) { state.completedDay = state.minutes.completedDay(now: now) }
            return (state.minutes, state.completedDay)
        }
        return Trend.figures(latest: quote, history: minutes, completedDay: completedDay, venueDay: venueDay, now: now, text: text)
    }

    /// The minutes saved by the previous run, taken before anyone is served. Bars stamped after
    /// now (a clock that was wrong then) are dropped, or they would block recording until the
    /// clock caught up; returns how many.
    @discardableResult
    public func restore(_ minutes: PriceHistory) -> Int {
        let nowMinute = MinuteBar.minute(of: venueClock.now())
        let kept = minutes.bars.filter { $0.minute <= nowMinute }
        state.withLock { state in
            state.minutes = PriceHistory(bars: kept)
            state.completedDay = nil
        }
        figuresVersion.add(1, ordering: .releasing)
        return minutes.bars.count - kept.count
    }

    /// Adds a venue's candles for minutes the history lacks (the backfill); a minute seen here is
    /// never overwritten. Returns how many minutes they filled. Watchers see the new change
    /// figures with their next line; the next request sees them at once.
    public func fill(_ batch: CandleBatch, within minutes: ClosedRange<Int64>, from source: SourceName) -> Int {
        let filled = state.withLock { state in
            let filled = state.minutes.fill(batch.bars, within: minutes, from: source)
            guard !filled.isEmpty else { return 0 }
            state.minutesVersion += 1
            state.completedDay = nil
            return filled.count
        }
        if filled > 0 { figuresVersion.add(1, ordering: .releasing) }
        return filled
    }

    /// The daily bars the previous run saved, taken before anyone is served; the days the
    /// restored minutes cover whole are made at once.
    public func restore(_ daily: DailyHistory) {
        state.withLock { state in
            state.daily = daily
            state.dailyVersion += 1
        }
        completeDays()
    }

    /// Makes each day the minutes now cover whole; returns whether any day changed. Called at
    /// start and with each save of the history, never on a trade's path.
    @discardableResult
    public func completeDays() -> Bool {
        let now = venueClock.now()
        return state.withLock { state in
            guard state.daily.complete(from: state.minutes, now: now) else { return false }
            state.dailyVersion += 1
            return true
        }
    }

    /// Adds a venue's daily candles for days the daily bars lack (the backfill); a day made from
    /// the minutes seen here is never overwritten. Returns how many they filled.
    public func fillDays(_ batch: CandleBatch, within days: ClosedRange<Int64>) -> Int {
        let now = venueClock.now()
        return state.withLock { state in
            let filled = state.daily.fill(batch.bars, within: days, now: now)
            if filled > 0 { state.dailyVersion += 1 }
            return filled
        }
    }

    /// Every venue asked for days gave what it had: the days before the oldest are not asked again.
    public func markDaysBackfilled() {
        state.withLock { state in
            if state.daily.markBackfilled() { state.dailyVersion += 1 }
        }
    }

    /// `currency` names the prices, as the status names them: the latest quote's asset.
    public func daily(_ query: DailyQuery, currency: String) -> DailyReply {
        let since = query.since.flatMap { DailyBar.day(of: $0) }
        // The bars are shared, not copied, out of the lock.
        let daily = self.daily
        return DailyReply(currency: currency, days: daily.since(since).map {
            DailyReply.Day(date: $0.date, open: $0.open.description, high: $0.high.description, low: $0.low.description, close: $0.close.description)
        })
    }

    /// How far from the moment asked a minute's close still answers for it.
    public static let nearestMinuteReach: Int64 = 60

    /// The price at a moment: the close of the nearest minute kept, at most an hour away, else
    /// the close of its UTC day, else none and why. Never a price between bars.
    public func price(at query: PriceAtQuery, currency: String) -> PriceAtReply {
        let asked = Timestamp(millisecondsSinceEpoch: query.seconds * 1000)
        let now = venueClock.now()
        guard asked <= now else {
            return PriceAtReply(at: query.seconds, currency: currency, missing: .future, reason: "\(asked.rfc3339Seconds) is in the future")
        }
        let day = DailyBar.day(of: asked)
        let (bar, dayBar, firstDay) = state.withLock {
            ($0.minutes.nearest(to: MinuteBar.minute(of: asked), within: Self.nearestMinuteReach), $0.daily.bar(on: day), $0.daily.bars.first?.date)
        }
        if let bar {
            return PriceAtReply(at: query.seconds, currency: currency, found: .init(time: bar.minute * 60, price: bar.close.description, basis: .minute))
        }
        if let dayBar {
            return PriceAtReply(at: query.seconds, currency: currency, found: .init(time: dayBar.day * 86_400, price: dayBar.close.description, basis: .day))
        }
        if let firstDay, day < DailyBar.day(of: firstDay) ?? day {
            return PriceAtReply(at: query.seconds, currency: currency, missing: .beforeHistory,
                                reason: "\(asked.rfc3339Seconds) is before the first day kept (\(firstDay))")
        }
        let dayOver = day == DailyBar.day(of: now) ? "its day is not over" : "no close for its day"
        return PriceAtReply(at: query.seconds, currency: currency, missing: .gap,
                            reason: "no minute kept within an hour of \(asked.rfc3339Seconds), and \(dayOver)")
    }

    /// `currency` names the prices, as the status names them: the latest quote's asset.
    public func historyReply(_ query: HistoryQuery, currency: String) -> String { history(query, currency: currency).line }

    /// The closes over the query's range, its summary and what was filled, as a value.
    public func history(_ query: HistoryQuery, currency: String) -> HistoryReply {
        let window = ChangeWindow(query.range)
        let now = venueClock.now()
        let nowMinute = MinuteBar.minute(of: now)
        let (points, summary, filled) = state.withLock {
            ($0.minutes.points(over: window, count: query.points, now: now), $0.minutes.summary(over: window, now: now),
             $0.minutes.filled(from: nowMinute - window.minutes + 1, through: nowMinute))
        }
        func time(_ minute: Int64) -> String { Timestamp(millisecondsSinceEpoch: minute * 60_000).rfc3339Seconds }
        return HistoryReply(range: query.range, currency: currency, points: points.map {
            HistoryReply.Point(time: $0.time.rfc3339Seconds, close: $0.close?.description)
        }, summary: summary.map {
            HistoryReply.Summary(since: time($0.sinceMinute), open: $0.open.description, close: $0.close.description, low: $0.low.description,
                                 lowAt: time($0.lowMinute), high: $0.high.description, highAt: time($0.highMinute))
        }, filled: filled.map { HistoryReply.Filled(from: time($0.minutes.lowerBound), through: time($0.minutes.upperBound), source: $0.source.rawValue) })
    }
}
