import WireProtocol

/// The dashboard's chart as an SVG path, scaled exactly (FixedDecimal, no Double near a price):
/// the same drawing as the page's script makes from `/api/v1/history`, so the first render
/// and the live one agree. Gaps (minutes the daemon was not running) break the line.
enum ChartPath {
    /// The chart's drawing area, in the SVG's own units.
    static let width: Int128 = 1000
    static let height: Int128 = 300
    static let margin: Int128 = 10

    /// `M0 290h0L4 120…` for closes oldest first; nil closes are gaps. Each piece starts with
    /// `h0`, so a lone minute between gaps shows as a dot (the line's round cap).
    static func path(of closes: [String?]) -> String {
        let values = closes.map { $0.flatMap { FixedDecimal($0) } }
        let known = values.compactMap { $0?.units }
        guard let low = known.min(), let high = known.max(), values.count > 1 else { return "" }
        let span = high - low
        var path = "", drawing = false
        for (index, value) in values.enumerated() {
            guard let units = value?.units else {
                drawing = false
                continue
            }
            let x = Int128(index) * width / Int128(values.count - 1)
            let y = span == 0 ? height / 2 : margin + (high - units) * (height - 2 * margin) / span
            path += drawing ? "L\(x) \(y)" : "M\(x) \(y)h0"
            drawing = true
        }
        return path
    }

    /// `24h closes: $111,600.00 – $114,990.00`: the range of the closes drawn (minute bars
    /// sampled, not their highs and lows), or why there is nothing to draw.
    static func summary(of reply: HistoryReply, currency: String) -> String {
        let known = reply.points.compactMap { point in point.close.flatMap { close in FixedDecimal(close).map { (close, $0) } } }
        guard let low = known.min(by: { $0.1 < $1.1 }), let high = known.max(by: { $0.1 < $1.1 }) else {
            return "no history over \(reply.range.rawValue) yet"
        }
        return "\(reply.range.rawValue) closes: \(MoneyText.money(low.0, currency: currency)) – \(MoneyText.money(high.0, currency: currency))"
    }
}
