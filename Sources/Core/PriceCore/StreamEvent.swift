/// What one message on a venue's stream says, reduced to what the daemon acts on. A message
/// can say several things (Binance's mini ticker carries a price and the day's range).
public enum StreamEvent: Sendable, Hashable {
    /// A trade, or a ticker update carrying the last trade's price.
    case trade(SourceQuote)
    /// The venue's own rolling 24 h figures.
    case dayRange(DayRange)
    /// Alive with nothing new: a heartbeat, a subscription acknowledgement, a status message.
    case alive
    /// The venue will drop the connection soon; reconnect now so no trade is missed.
    case closingSoon
}

/// A venue's rolling 24 h figures, exact as sent. The open is nil where the venue sends none.
public struct DayRange: Sendable, Hashable {
    public let open: Price?
    public let high: Price
    public let low: Price

    public init(open: Price?, high: Price, low: Price) {
        self.open = open
        self.high = high
        self.low = low
    }
}
