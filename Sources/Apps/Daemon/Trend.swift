import PriceCore
import WireProtocol

/// The status object's change and 24 h figures, rendered once per snapshot.
enum Trend {
    /// Changes come from the daemon's own minute history. The 24 h open, high and low do too
    /// once the history covers a day; until then, from the quoting venue's own rolling 24 h
    /// figures when it states them (the 24 h change needs the venue's open).
    static func figures(latest quote: Quote?, history: PriceHistory, completedDay: CompletedDay? = nil, venueDay: VenueDay?,
                        now: Timestamp) -> StatusMessage.Trend {
        guard let quote else { return .unknown }
        let latest = quote.price
        func change(_ window: ChangeWindow) -> String? {
            history.change(over: window, to: latest.value, now: now).flatMap { DecimalText.percent($0.description) }
        }
        let measured = history.day(now: now, completed: completedDay).map { (open: Optional($0.open), high: $0.high, low: $0.low) }
        let stated = venueDay.flatMap { $0.source == quote.source ? $0.range : nil }
        let day = measured ?? stated.map { (open: $0.open?.value, high: $0.high.value, low: $0.low.value) }
        return StatusMessage.Trend(
            change1h: change(.hour),
            change24h: day?.open.flatMap { DecimalText.percent(PercentChange.between($0, latest.value).description) },
            change7d: change(.week),
            open24h: day?.open?.description, high24h: day?.high.description, low24h: day?.low.description)
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
