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

    /// Where the lowest and the highest close are drawn (the first of each), in the SVG's units,
    /// with their text; nil with fewer than two points or none known.
    struct Extremes: Equatable {
        let lowX: Int128, lowY: Int128, low: String
        let highX: Int128, highY: Int128, high: String
    }

    static func extremes(of closes: [String?]) -> Extremes? {
        let values = closes.map { $0.flatMap { FixedDecimal($0) } }
        let known = values.enumerated().compactMap { index, value in value.map { (index, $0.units) } }
        guard values.count > 1, let low = known.min(by: { $0.1 < $1.1 }), let high = known.max(by: { $0.1 < $1.1 }) else { return nil }
        let span = high.1 - low.1
        func point(_ entry: (Int, Int128)) -> (Int128, Int128) {
            (Int128(entry.0) * width / Int128(values.count - 1), span == 0 ? height / 2 : margin + (high.1 - entry.1) * (height - 2 * margin) / span)
        }
        let (lowX, lowY) = point(low), (highX, highY) = point(high)
        return Extremes(lowX: lowX, lowY: lowY, low: closes[low.0] ?? "", highX: highX, highY: highY, high: closes[high.0] ?? "")
    }

    /// The time axis: the first, middle and last point's time, `16:00` (`11-21` over 7d), in UTC.
    static func axis(of reply: HistoryReply) -> [String] {
        let points = reply.points
        guard points.count > 1 else { return ["", "", ""] }
        let label = { (time: String) in reply.range == .week ? String(time.dropFirst(5).prefix(5)) : String(time.dropFirst(11).prefix(5)) }
        return [label(points[0].time), label(points[(points.count - 1) / 2].time), label(points[points.count - 1].time) + " UTC"]
    }

    /// `left:42.1%;transform:translateX(-42.1%)`: the label at its mark's x, kept inside the
    /// plot (the SVG is 1000 wide, so its units are tenths of a percent).
    static func labelStyle(x: Int128) -> String {
        let percent = "\(x / 10).\(x % 10)%"
        return "left:\(percent);transform:translateX(-\(percent))"
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
