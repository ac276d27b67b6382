import CivilTime
import WireProtocol

/// `btcctl chart`: `▁▂▄▆█▇▅  BTC/USD 24h recorded  $114,459.80 → $115,000.00  +0.47%  low $113,900.00  high $115,200.00`.
/// The figures come from every minute bar of the range (the reply's summary), so they are the
/// same at any width; the sparkline shows each cell's close, and the cells holding the range's
/// low and high show those instead, so an extreme minute is never sampled away.
public enum ChartFormat {
    /// The fewest cells a terminal-wide chart keeps: its summary shortens first.
    public static let minimumCells = 16

    /// Nil when the history has no price at all. With `columns` (a terminal) and no fixed
    /// width, the whole line fits: the summary shortens, then the sparkline narrows.
    public static func line(_ reply: HistoryReply, fixedWidth: Bool, columns: Int?) -> String? {
        guard let figures = Figures(reply) else { return nil }
        // The daemon's own history, unlike status's venue figures early on: "recorded", and
        // since when if it is younger than the range.
        let since = figures.isPartial ? figures.since.flatMap(clock).map { " since \($0) UTC" } ?? "" : ""
        let chart = compose(Layout(range: reply.range.rawValue, kind: reply.filled.isEmpty ? "recorded" : "recorded and filled", since: since,
                                   currency: reply.currency, figures: figures),
                            closes: reply.points.map(\.close), cells: nil, fixedWidth: fixedWidth, columns: columns) { keepingExtremes($0, of: reply) }
        return fillNotes(reply.filled, columns: fixedWidth ? nil : columns).reduce(chart) { $0 + "\n" + $1 }
    }

    /// `btcctl chart --range 1y`: the daily bars from `since` on, a cell a day (or `cells` of
    /// them, each the last day's close it covers); the figures come from every day, so the
    /// year's low and high are its days' lows and highs, in the cells that hold them. Nil
    /// without a day.
    public static func year(_ reply: DailyReply, since: String, cells: Int?, columns: Int?) -> String? {
        guard let first = reply.days.first, let last = reply.days.last else { return nil }
        // The first day with the lowest low, and with the highest high.
        func extreme(_ price: (DailyReply.Day) -> String, _ beats: (FixedDecimal, FixedDecimal) -> Bool) -> Int? {
            var best: (index: Int, price: FixedDecimal)?
            for (index, day) in reply.days.enumerated() {
                guard let number = FixedDecimal(price(day)) else { continue }
                if best.map({ beats(number, $0.price) }) ?? true { best = (index, number) }
            }
            return best?.index
        }
        guard let lowIndex = extreme(\.low, <), let highIndex = extreme(\.high, >) else { return nil }
        let figures = Figures(first: first.open, last: last.close, low: reply.days[lowIndex].low, high: reply.days[highIndex].high,
                              since: first.date, isPartial: first.date > since)
        let layout = Layout(range: "1y", kind: "daily", since: figures.isPartial ? " since \(TerminalText.printable(String(first.date.prefix(10))))" : "",
                            currency: reply.currency, figures: figures)
        return compose(layout, closes: reply.days.map { Optional($0.close) }, cells: cells, fixedWidth: cells != nil, columns: columns) { cells in
            var cells = cells
            for (index, price) in [(lowIndex, figures.low), (highIndex, figures.high)] where !cells.isEmpty {
                cells[min(cells.count - 1, index * cells.count / reply.days.count)] = price
            }
            return cells
        }
    }

    /// What the summary says, whichever history it sums up.
    struct Layout {
        let range: String, kind: String, since: String
        let currency: String?
        let figures: Figures
    }

    /// The sparkline and its summary on one line: with `columns` (a terminal) and no fixed
    /// width, the summary shortens, then the sparkline narrows; `cells` resamples it first.
    static func compose(_ layout: Layout, closes: [String?], cells: Int?, fixedWidth: Bool, columns: Int?,
                        keepingExtremes: ([String?]) -> [String?]) -> String {
        let figures = layout.figures
        // Without a currency (an older daemon), every digit as before.
        func shown(_ price: String) -> String { layout.currency.map { HumanFormat.money(price, currency: $0) } ?? HumanFormat.groupedPrice(price) }
        let change = FixedDecimal(figures.first).flatMap { from in
            FixedDecimal(figures.last).flatMap { FixedDecimal.basisPoints(from: from, to: $0) }
        }.map { "  " + FixedDecimal.percentText(basisPoints: $0) } ?? ""
        // The pair names the quote asset, as status does: `$` only on real dollars, never on USDT.
        let pair = layout.currency.map { "BTC/\(TerminalText.printable(String($0.prefix(8)))) " } ?? ""
        let range = layout.range, extremes = "  low \(shown(figures.low))  high \(shown(figures.high))", kind = layout.kind
        let summaries = [
            "  \(pair)\(range) \(kind)\(layout.since)  \(shown(figures.first)) → \(shown(figures.last))\(change)\(extremes)",
            "  \(pair)\(range) \(kind)  \(shown(figures.last))\(change)\(extremes)",
            "  \(pair)\(range)  \(shown(figures.last))\(change)",
            "  \(range)\(change)",
        ]
        var shownCloses = cells.map { Sparkline.resample(closes, to: $0) } ?? closes
        var text = summaries[0]
        if !fixedWidth, let columns {
            text = summaries.first { columns - $0.count >= minimumCells } ?? summaries[summaries.count - 1]
            shownCloses = Sparkline.resample(closes, to: max(1, columns - text.count))
        }
        return Sparkline.render(keepingExtremes(shownCloses)) + text
    }

    /// One line per venue whose candles filled minutes of the range: `  filled from binance
    /// candles: 2026-11-21 16:24 → 2026-11-28 16:23 UTC`, its times left out where the
    /// terminal is too narrow for them. The venue's name is the daemon's text: made printable.
    static func fillNotes(_ filled: [HistoryReply.Filled], columns: Int?) -> [String] {
        var venues: [String] = []
        var spans: [String: (from: String, through: String)] = [:]
        for span in filled {
            let venue = TerminalText.printable(String(span.source.prefix(32)))
            if let known = spans[venue] {
                spans[venue] = (min(known.from, span.from), max(known.through, span.through))
            } else {
                venues.append(venue)
                spans[venue] = (span.from, span.through)
            }
        }
        // `2026-11-21 16:24` from `2026-11-21T16:24:00Z`.
        func day(_ time: String) -> String { TerminalText.printable(String(time.prefix(16).map { $0 == "T" ? " " : $0 })) }
        return venues.map { venue in
            let short = "  filled from \(venue) candles", span = spans[venue]!
            let long = short + ": \(day(span.from)) → \(day(span.through)) UTC"
            return columns.map { long.count <= $0 } ?? true ? long : short
        }
    }

    /// `cells` (the reply's closes, maybe resampled) with the range's low and high put in the
    /// cells that hold them.
    public static func keepingExtremes(_ cells: [String?], of reply: HistoryReply) -> [String?] {
        guard let summary = reply.summary else { return cells }
        var cells = cells
        place(summary.low, at: summary.lowAt, in: &cells, points: reply.points)
        place(summary.high, at: summary.highAt, in: &cells, points: reply.points)
        return cells
    }

    /// The price shown in the cell whose span holds `time`: each point closes its step, and a
    /// resampled cell covers a stretch of points (`Sparkline.resample`).
    static func place(_ price: String, at time: String, in cells: inout [String?], points: [HistoryReply.Point]) {
        guard !cells.isEmpty, !points.isEmpty else { return }
        let point = points.firstIndex { $0.time >= time } ?? points.count - 1
        let cell = min(cells.count - 1, point * cells.count / points.count)
        cells[cell] = price
    }

    /// Minutes since the Unix epoch of `2026-11-21T16:24:00Z`; nil for anything else.
    public static func epochMinutes(_ time: String) -> Int64? {
        let utf8 = Array(time.utf8)
        guard utf8.count >= 16 else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let digit = utf8[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), (1...12).contains(month) else { return nil }
        return (CivilDate.daysSinceEpoch(year: year, month: month, day: day) * 24 + hour) * 60 + minute
    }

    /// `16:24` from `2026-11-21T16:24:00Z`.
    static func clock(_ time: String) -> String? {
        time.utf8.count >= 16 ? String(time.dropFirst(11).prefix(5)) : nil
    }

    /// First, last, low and high of the range: from the summary, or from the closes of a daemon
    /// older than it.
    struct Figures {
        let first: String, last: String, low: String, high: String
        let since: String?
        /// Whether the history starts later than the range: by the first bar held, so the same
        /// at every width (with a summary); by the first point otherwise.
        let isPartial: Bool

        init(first: String, last: String, low: String, high: String, since: String?, isPartial: Bool) {
            (self.first, self.last, self.low, self.high, self.since, self.isPartial) = (first, last, low, high, since, isPartial)
        }

        init?(_ reply: HistoryReply) {
            if let summary = reply.summary {
                (first, last, low, high, since) = (summary.open, summary.close, summary.low, summary.high, summary.since)
                let range: Int64 = switch reply.range {
                case .hour: 60
                case .day: 1440
                case .week: 10_080
                }
                if let start = epochMinutes(summary.since), let end = reply.points.last.flatMap({ epochMinutes($0.time) }) {
                    isPartial = start - (end - range) > max(1, range / 100)
                } else {
                    isPartial = false
                }
                return
            }
            isPartial = reply.points.first?.close == nil
            let known = reply.points.compactMap { point in point.close.flatMap { close in FixedDecimal(close).map { (close, $0) } } }
            guard let firstKnown = known.first, let lastKnown = known.last,
                  let lowest = known.min(by: { $0.1 < $1.1 }), let highest = known.max(by: { $0.1 < $1.1 }) else { return nil }
            (first, last, low, high) = (firstKnown.0, lastKnown.0, lowest.0, highest.0)
            since = reply.points.first { $0.close != nil }?.time
        }
    }
}
