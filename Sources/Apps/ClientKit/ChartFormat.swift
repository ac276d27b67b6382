import WireProtocol

/// `btcctl chart`: `▁▂▄▆█▇▅  24h  114,459.80 → 115,000.00  +0.47%  low 113,900.00  high 115,200.00`.
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
        var text = "  \(reply.range.rawValue)  \(HumanFormat.groupedPrice(first)) → \(HumanFormat.groupedPrice(last))"
        if let from = values.first, let to = values.last, let change = FixedDecimal.basisPoints(from: from, to: to) {
            text += "  " + FixedDecimal.percentText(basisPoints: change)
        }
        text += "  low \(HumanFormat.groupedPrice(low))  high \(HumanFormat.groupedPrice(high))"
        if !fixedWidth, let columns {
            closes = Sparkline.resample(closes, to: max(8, columns - text.count))
        }
        return Sparkline.render(closes) + text
    }
}
