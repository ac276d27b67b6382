import FoundationEssentials
import PriceCore
import WireProtocol

/// The status object's change and 24 h figures, rendered once per snapshot.
enum Trend {
    /// Changes come from the daemon's own minute history. The 24 h open, high and low do too
    /// once the history covers a day; until then, from the quoting venue's own rolling 24 h
    /// figures when it states them (the 24 h change needs the venue's open). `text` renders a
    /// figure (the board remembers the few that stay the same from trade to trade).
    static func figures(latest quote: Quote?, history: PriceHistory, completedDay: CompletedDay? = nil, venueDay: VenueDay?,
                        now: Timestamp, text: (Decimal) -> String = { $0.description }) -> StatusMessage.Trend {
        guard let quote else { return .unknown }
        let latest = quote.price
        let latestFixed = FixedDecimal(latest.description)
        // Exact integer arithmetic when both fit 18 places (every real price does); else Decimal.
        func change(from reference: Decimal) -> String? {
            if let latestFixed, let from = FixedDecimal(text(reference)),
               let basisPoints = FixedDecimal.basisPoints(from: from, to: latestFixed) {
                return FixedDecimal.wirePercent(basisPoints: basisPoints)
            }
            return DecimalText.percent(PercentChange.between(reference, latest.value).description)
        }
        let measured = history.day(now: now, completed: completedDay).map { (open: Optional($0.open), high: $0.high, low: $0.low) }
        let stated = venueDay.flatMap { $0.source == quote.source ? $0.range : nil }
        // The served price is part of the day, whatever the figures were taken from: a venue's
        // range is refreshed only every minute or so (not at all in an outage), and a range
        // that leaves out the price on the same line reads as a broken feed.
        let day = (measured ?? stated.map { (open: $0.open?.value, high: $0.high.value, low: $0.low.value) })
            .map { (open: $0.open, high: max($0.high, latest.value), low: min($0.low, latest.value)) }
        return StatusMessage.Trend(
            change1h: history.reference(for: .hour, now: now).flatMap(change(from:)),
            change24h: day?.open.flatMap(change(from:)),
            change7d: history.reference(for: .week, now: now).flatMap(change(from:)),
            open24h: day?.open.map(text), high24h: day.map { text($0.high) }, low24h: day.map { text($0.low) },
            dayFrom: measured != nil ? "recorded" : stated != nil ? "venue" : nil)
    }
}

/// Decimal's text for the few figures (references, the day's open, high and low) that stay the
/// same over many trades: Decimal's own conversion costs microseconds each time.
struct DecimalTexts: Sendable {
    private var recent: [(value: Decimal, text: String)] = []

    mutating func text(_ value: Decimal) -> String {
        if let known = recent.first(where: { $0.value == value }) { return known.text }
        let text = value.description
        if recent.count == 8 { recent.removeFirst() }
        recent.append((value, text))
        return text
    }
}

/// 24 h figures as a venue stated them; only used while that venue gives the quote.
struct VenueDay: Sendable, Hashable {
    let source: SourceName
    let range: DayRange
}

extension ChangeWindow {
    init(_ range: HistoryRange) {
        switch range {
        case .hour: self = .hour
        case .day: self = .day
        case .week: self = .week
        }
    }
}
