import JSONText
import PriceCore

public enum StreamLimits {
    /// The largest stream message read: far above any ticker the venues document.
    public static let largestMessage = 64 * 1024
}

/// Shared steps of the stream parsers: each message is one JSON text frame, checked and bounded
/// like a REST body, because it is just as untrusted.
enum StreamMessage {
    /// Binance documents frames far below this; anything bigger is not a ticker.
    static let largestFrame = StreamLimits.largestMessage

    static func json(_ frame: [UInt8]) throws(FetchFailure) -> JSONValue {
        guard frame.count <= largestFrame else { throw .bodyTooLarge(limit: largestFrame) }
        return try ResponseChecks.parse(frame).get()
    }

    static func prices(_ fields: (JSONValue?, String)...) throws(FetchFailure) -> [Price] {
        var prices: [Price] = []
        for (value, name) in fields { prices.append(try ResponseChecks.price(value, field: name)) }
        return prices
    }

    /// A ticker's last price and its rolling 24 h high and low (a venue without an open).
    static func ticker(_ object: JSONValue, last: String, high: String, low: String, symbol: String,
                       quoteAsset: String, stamp: TradeStamp? = nil) throws(FetchFailure) -> [StreamEvent] {
        let prices = try prices((object[last], last), (object[high], high), (object[low], low))
        return [.trade(SourceQuote(price: prices[0], symbol: symbol, quoteAsset: quoteAsset), stamp),
                .dayRange(DayRange(open: nil, high: prices[1], low: prices[2]))]
    }

    /// A whole number of milliseconds (Binance's `T` and `E`) or an id (`t`); nil when absent
    /// or not a plain integer.
    static func integer(_ value: JSONValue?) -> Int64? {
        value?.numberLiteral.flatMap { Int64($0) }
    }

    static func unexpected(channel: String?) -> FetchFailure {
        channel.map { .exchangeError("unexpected channel \"\($0)\"") } ?? .missingField("channel")
    }
}
