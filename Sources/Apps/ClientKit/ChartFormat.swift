import WireProtocol

/// `btcctl chart`: `▁▂▄▆█▇▅  24h  $114,459.80 → $115,000.00  +0.47%  low $113,900.00  high $115,200.00`.
public enum ChartFormat {
    /// Nil when the history has no price at all. With `columns` (a terminal) and no fixed
    /// width, the sparkline is narrowed so the whole line fits.
    public static func line(_ reply: HistoryReply, fixedWidth: Bool, columns: Int?) -> String? {
        var closes = reply.points.map(\.close)
        let known = closes.compactMap { $0 }
        let values = known.compactMap { FixedDecimal($0) }
        guard let first = known.first, let last = known.last, values.count == known.count,
              let low = zip(known, values).min(by: { $0.1 < $1.1 })?.0,
              let high = zip(known, values).max(by: { $0.1 < $1.1 })?.0
        else { return nil }
        // A history younger than the range: its change is over less time than status's 24 h
        // figure (which may come from the venue's own day), so say which span it covers.
        var span = reply.range.rawValue
        if reply.points.first?.close == nil, let since = reply.points.first(where: { $0.close != nil })?.time, since.utf8.count >= 16 {
            span += " (recorded since \(since.dropFirst(11).prefix(5)) UTC)"
        }
        // Without a currency (an older daemon), every digit as before.
        func shown(_ price: String) -> String { reply.currency.map { HumanFormat.money(price, currency: $0) } ?? HumanFormat.groupedPrice(price) }
        var text = "  \(span)  \(shown(first)) → \(shown(last))"
        if let from = values.first, let to = values.last, let change = FixedDecimal.basisPoints(from: from, to: to) {
            text += "  " + FixedDecimal.percentText(basisPoints: change)
        }
        text += "  low \(shown(low))  high \(shown(high))"
        if !fixedWidth, let columns {
            closes = Sparkline.resample(closes, to: max(8, columns - text.count))
        }
        return Sparkline.render(closes) + text
    }
}
