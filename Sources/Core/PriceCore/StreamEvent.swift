/// What one message on a venue's stream says, reduced to what the daemon acts on. A message
/// can say several things (a mini ticker carries a price and the day's range).
public enum StreamEvent: Sendable, Hashable {
    /// A trade, or a ticker update that the venue sends for every trade; stamped with the
    /// venue's own time (and trade id) where it sends them.
    case trade(SourceQuote, TradeStamp?)
    /// A periodic ticker's last price (a mini ticker's close): never overrides a newer trade.
    case tickerClose(SourceQuote, TradeStamp?)
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

extension StreamEvent {
    /// The price this event carries, if any: what proves that prices flow, not just bytes.
    public var quote: SourceQuote? {
        switch self {
        case .trade(let quote, _), .tickerClose(let quote, _): quote
        case .dayRange, .alive, .closingSoon: nil
        }
    }
}

/// When the venue says a price happened (its trade or event time), and its trade id where it
/// sends one.
public struct TradeStamp: Sendable, Hashable {
    public let time: Timestamp
    public let tradeID: Int64?

    public init(time: Timestamp, tradeID: Int64? = nil) {
        self.time = time
        self.tradeID = tradeID
    }

    /// The venue's milliseconds since the epoch, as venues send trade and event times.
    public init?(milliseconds: Int64?, tradeID: Int64? = nil) {
        guard let milliseconds, milliseconds > 0 else { return nil }
        self.init(time: Timestamp(millisecondsSinceEpoch: milliseconds), tradeID: tradeID)
    }
}
