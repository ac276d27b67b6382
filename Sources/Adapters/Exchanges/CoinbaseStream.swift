import JSONText
import PriceCore

/// Coinbase Advanced Trade's market data feed: subscribe to `ticker` for BTC-USD (or BTC-EUR…), and to
/// `heartbeats`, because channels without updates are closed after 60–90 s. A ticker message is
/// `{"channel":"ticker","events":[{"type":"update","tickers":[{"product_id":"BTC-USD","price":"85866.18",…}]}]}`.
/// One subscription carries every product asked (`"product_ids":["BTC-USD","BTC-EUR"]`).
public enum CoinbaseStream {
    public static func subscriptions(productIDs: [String]) -> [String] {
        let products = productIDs.map { "\"\($0)\"" }.joined(separator: ",")
        return [#"{"type":"subscribe","product_ids":[\#(products)],"channel":"ticker"}"#,
                #"{"type":"subscribe","channel":"heartbeats"}"#]
    }

    public static func parse(_ frame: [UInt8], currency: String = "USD") throws(FetchFailure) -> [StreamEvent] {
        try parse(frame, productIDs: [CoinbaseAPI.symbol(currency: currency)])
    }

    /// A message about any of `productIDs`; a ticker of another product is an error.
    public static func parse(_ frame: [UInt8], productIDs: [String]) throws(FetchFailure) -> [StreamEvent] {
        let json = try StreamMessage.json(frame)
        if json["type"]?.stringValue == "error" {
            throw .exchangeError(json["message"]?.stringValue ?? "error without a message")
        }
        switch json["channel"]?.stringValue {
        case "ticker", "ticker_batch":
            guard let events = json["events"]?.arrayElements else { throw .missingField("events") }
            // The message's own time orders it against the ones before.
            let stamp = json["timestamp"]?.stringValue.flatMap { Timestamp(rfc3339: $0) }.map { TradeStamp(time: $0) }
            var found: [StreamEvent] = []
            for event in events {
                for ticker in event["tickers"]?.arrayElements ?? [] {
                    guard let product = ticker["product_id"]?.stringValue else { throw .missingField("tickers[].product_id") }
                    guard productIDs.contains(product) else { throw .wrongSymbol(expected: productIDs.joined(separator: " or "), got: product) }
                    found += try StreamMessage.ticker(ticker, last: "price", high: "high_24_h", low: "low_24_h",
                                                      symbol: product, quoteAsset: String(product.dropFirst(4)), stamp: stamp)
                }
            }
            guard !found.isEmpty else { throw .missingField("events[].tickers") }
            return found
        case "heartbeats", "subscriptions":
            return [.alive]
        case let other:
            throw StreamMessage.unexpected(channel: other)
        }
    }
}
