import FoundationEssentials

/// Minute bars of the last week and a bit, oldest first, at most one per minute. Minutes the
/// daemon did not see are simply absent: gaps stay gaps, nothing is interpolated.
public struct PriceHistory: Sendable, Equatable {
    /// A week plus the hour a week-old reference may lie before the window (see
    /// `ChangeWindow.referenceTolerance`).
    public static let retainedMinutes: Int64 = ChangeWindow.week.minutes + ChangeWindow.week.referenceTolerance + 1

    public private(set) var bars: [MinuteBar] = []
    /// The minutes filled from venues' candles, in minute order; a handful of spans, not a
    /// mark per bar, so a filled week costs no more memory than a seen one.
    public private(set) var filled: [FilledSpan] = []

    public init() {}

    /// Keeps the bars in minute order, the last of any duplicates, and only the retained span;
    /// `filled` is kept where it covers bars.
    public init(bars: some Sequence<MinuteBar>, filled: [FilledSpan] = []) {
        var byMinute: [Int64: MinuteBar] = [:]
        for bar in bars { byMinute[bar.minute] = bar }
        self.bars = byMinute.values.sorted { $0.minute < $1.minute }
        self.filled = FilledSpan.merged(filled)
        if let last = self.bars.last { prune(before: last.minute - Self.retainedMinutes) }
    }

    public var isEmpty: Bool { bars.isEmpty }

    /// Adds a price seen at `time`. A time before the newest bar's minute (the wall clock stepped
    /// back) is ignored rather than rewriting the past; returns whether the price was kept.
    @discardableResult
    public mutating func record(_ price: Decimal, at time: Timestamp) -> Bool {
        let minute = MinuteBar.minute(of: time)
        if let last = bars.indices.last, bars[last].minute >= minute {
            guard bars[last].minute == minute else { return false }
            bars[last].add(price)
            return true
        }
        bars.append(MinuteBar(minute: minute, price: price))
        // Pruned in batches of an hour so appending stays cheap.
        if let first = bars.first, first.minute < minute - Self.retainedMinutes - 60 { prune(before: minute - Self.retainedMinutes) }
        return true
    }

    /// Adds bars read from `source`'s candles for the minutes in `minutes` that the history
    /// lacks, and marks them filled from it. A minute the daemon saw itself is never
    /// overwritten, and nothing older than the retained span is kept. Returns the minutes
    /// filled, oldest first.
    @discardableResult
    public mutating func fill(_ candles: [MinuteBar], within minutes: ClosedRange<Int64>, from source: SourceName) -> [Int64] {
        let have = Set(bars[firstIndex(after: minutes.lowerBound - 1)..<firstIndex(after: minutes.upperBound)].map(\.minute))
        let newest = max(bars.last?.minute ?? minutes.upperBound, minutes.upperBound)
        let added = candles.filter { minutes.contains($0.minute) && !have.contains($0.minute) && $0.minute >= newest - Self.retainedMinutes }
        guard !added.isEmpty else { return [] }
        let minutesAdded = added.map(\.minute).sorted()
        self = PriceHistory(bars: bars + added, filled: filled + FilledSpan.runs(of: minutesAdded, from: source))
        return minutesAdded
    }

    /// The filled spans that meet the minutes from `first` to `last`, cut to them.
    public func filled(from first: Int64, through last: Int64) -> [FilledSpan] {
        filled.compactMap { span in
            let lower = max(span.minutes.lowerBound, first), upper = min(span.minutes.upperBound, last)
            return lower <= upper ? FilledSpan(minutes: lower...upper, source: span.source) : nil
        }
    }

    private mutating func prune(before minute: Int64) {
        bars.removeFirst(firstIndex(after: minute - 1))
        guard filled.first.map({ $0.minutes.lowerBound < minute }) == true else { return }
        filled = filled.compactMap { span in
            span.minutes.upperBound < minute ? nil : FilledSpan(minutes: max(span.minutes.lowerBound, minute)...span.minutes.upperBound, source: span.source)
        }
    }

    /// The index of the first bar whose minute is greater than `minute`.
    private func firstIndex(after minute: Int64) -> Int {
        var low = 0, high = bars.count
        while low < high {
            let middle = (low + high) / 2
            if bars[middle].minute <= minute { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The last bar starting at or before `minute`, if it starts no earlier than `earliest`.
    private func bar(atOrBefore minute: Int64, notBefore earliest: Int64) -> MinuteBar? {
        let index = firstIndex(after: minute) - 1
        guard index >= 0, bars[index].minute >= earliest else { return nil }
        return bars[index]
    }

    /// The bar nearest `minute`, if one is at most `reach` minutes from it (the earlier of two
    /// as near); never a price made up between bars.
    public func nearest(to minute: Int64, within reach: Int64) -> MinuteBar? {
        let after = firstIndex(after: minute - 1)
        let candidates = [after - 1, after].filter { bars.indices.contains($0) }.map { bars[$0] }
        return candidates.filter { abs($0.minute - minute) <= reach }.min { abs($0.minute - minute) < abs($1.minute - minute) }
    }

    /// The price `window` before `now`: the close of the last minute at or before then, within
    /// the window's tolerance; nil where the history does not reach back or has a gap there.
    public func reference(for window: ChangeWindow, now: Timestamp) -> Decimal? {
        let start = MinuteBar.minute(of: now) - window.minutes
        return bar(atOrBefore: start, notBefore: start - window.referenceTolerance)?.close
    }

    /// Percent change from the reference to `latest`, exact (Decimal's 38 digits); rounding is
    /// the renderer's business.
    public func change(over window: ChangeWindow, to latest: Decimal, now: Timestamp) -> Decimal? {
        reference(for: window, now: now).map { PercentChange.between($0, latest) }
    }

    /// The last 24 h as measured here: open (the reference), high and low; nil until the history
    /// covers the day. `completed`, kept by the caller from `completedDay(now:)` for the same
    /// minute, spares the scan of up to 1,440 bars on every streamed trade.
    public func day(now: Timestamp, completed: CompletedDay? = nil) -> (open: Decimal, high: Decimal, low: Decimal)? {
        guard let open = reference(for: .day, now: now) else { return nil }
        let nowMinute = MinuteBar.minute(of: now)
        let earlier = completed.flatMap { $0.minute == nowMinute ? $0 : nil } ?? completedDay(now: now)
        let current = bars.last.flatMap { $0.minute == nowMinute ? $0 : nil }
        let high = [earlier.high, current?.high].compactMap { $0 }.max() ?? open
        let low = [earlier.low, current?.low].compactMap { $0 }.min() ?? open
        return (open, high, low)
    }

    /// High and low of the day's bars before `now`'s minute, which change only with the minute.
    public func completedDay(now: Timestamp) -> CompletedDay {
        let nowMinute = MinuteBar.minute(of: now)
        let earlier = bars[firstIndex(after: nowMinute - ChangeWindow.day.minutes)..<firstIndex(after: nowMinute - 1)]
        return CompletedDay(minute: nowMinute, high: earlier.lazy.map(\.high).max(), low: earlier.lazy.map(\.low).min())
    }

    /// Every bar of `window` before `now` taken together: the first bar's minute and open, the
    /// last close, and the lowest low and highest high with their minutes. The same whatever
    /// the chart's width, which samples closes only. Nil without a bar in the window.
    public func summary(over window: ChangeWindow, now: Timestamp) -> HistorySummary? {
        let nowMinute = MinuteBar.minute(of: now)
        let inWindow = bars[firstIndex(after: nowMinute - window.minutes)..<firstIndex(after: nowMinute)]
        guard let first = inWindow.first, let last = inWindow.last else { return nil }
        var low = first, high = first
        for bar in inWindow.dropFirst() {
            if bar.low < low.low { low = bar }
            if bar.high > high.high { high = bar }
        }
        return HistorySummary(sinceMinute: first.minute, open: first.open, close: last.close,
                              low: low.low, lowMinute: low.minute, high: high.high, highMinute: high.minute)
    }

    /// `count` evenly spaced points over `window` ending at `now` (whole seconds): each is the
    /// close of the last bar within its step, or nil where the daemon saw no price.
    public func points(over window: ChangeWindow, count: Int, now: Timestamp) -> [(time: Timestamp, close: Decimal?)] {
        guard count > 0 else { return [] }
        let end = now.millisecondsSinceEpoch.floorDivided(by: 1000).quotient * 1000
        let step = window.milliseconds / Int64(count)
        return (0..<Int64(count)).map { index in
            let time = end - (Int64(count) - 1 - index) * step
            let index = firstIndex(after: time.floorDivided(by: 60_000).quotient) - 1
            // The last bar starting within the step (or, for steps under a minute, the bar under the point).
            let close = index >= 0 && bars[index].minute * 60_000 > time - max(step, 60_000) ? bars[index].close : nil
            return (Timestamp(millisecondsSinceEpoch: time), close)
        }
    }
}

public enum PercentChange {
    /// (to − from) × 100 ÷ from.
    public static func between(_ from: Decimal, _ to: Decimal) -> Decimal {
        (to - from) * 100 / from
    }
}

/// A window's bars taken together (`PriceHistory.summary`). Minutes since the Unix epoch.
public struct HistorySummary: Sendable, Equatable {
    public let sinceMinute: Int64
    public let open: Decimal
    public let close: Decimal
    public let low: Decimal
    public let lowMinute: Int64
    public let high: Decimal
    public let highMinute: Int64
}

/// The 24 h high and low of the minutes before `minute`; see `PriceHistory.completedDay(now:)`.
public struct CompletedDay: Sendable, Equatable {
    public let minute: Int64
    let high: Decimal?
    let low: Decimal?
}
