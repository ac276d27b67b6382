import JSONText
import PriceCore

/// Kraken's WebSocket v2: subscribe to `ticker` for BTC/USD (or BTC/EUR…); a snapshot, then an update per
/// trade: `{"channel":"ticker","type":"update","data":[{"symbol":"BTC/USD","last":85866.1,…}]}`.
/// Prices are JSON numbers here; their literal text is kept, so no digit is lost to a Double.
public enum KrakenStream {
    public static func symbol(currency: String) -> String { "BTC/\(currency)" }
    /// One subscription for every pair the connection carries.
    public static func subscription(symbols: [String]) -> String {
        let list = symbols.map { "\"\($0)\"" }.joined(separator: ",")
        return #"{"method":"subscribe","params":{"channel":"ticker","symbol":[\#(list)]}}"#
    }

    public static func parse(_ frame: [UInt8], currency: String = "USD") throws(FetchFailure) -> [StreamEvent] {
        try parse(frame, symbols: [symbol(currency: currency)])
    }

    /// A message about any of `symbols`; a ticker of another pair is an error.
    public static func parse(_ frame: [UInt8], symbols: [String]) throws(FetchFailure) -> [StreamEvent] {
        let json = try StreamMessage.json(frame)
        if json["success"]?.boolValue == false {
            throw .exchangeError(json["error"]?.stringValue ?? "request failed without a reason")
        }
        if json["method"] != nil { return [.alive] }
        switch json["channel"]?.stringValue {
        case "ticker":
            guard let data = json["data"]?.arrayElements, !data.isEmpty else { throw .missingField("data") }
            var found: [StreamEvent] = []
            for ticker in data {
                guard let pair = ticker["symbol"]?.stringValue else { throw .missingField("data[].symbol") }
                guard symbols.contains(pair) else { throw .wrongSymbol(expected: symbols.joined(separator: " or "), got: pair) }
                found += try StreamMessage.ticker(ticker, last: "last", high: "high", low: "low", symbol: pair, quoteAsset: String(pair.dropFirst(4)))
            }
            return found
        case "heartbeat", "status":
            return [.alive]
        case let other:
            throw StreamMessage.unexpected(channel: other)
        }
    }
}
