import JSONText
import PriceCore

/// Binance's combined market streams: `/stream?streams=btcusdt@aggTrade/btcusdt@miniTicker`, each
/// event wrapped as `{"stream":"btcusdt@aggTrade","data":{"e":"aggTrade","s":"BTCUSDT","p":"85866.18",…}}`.
/// `aggTrade` rather than `trade`: one message per taker order instead of one per fill, and
/// every price change still arrives (the fills of one order at one price are one message).
/// The server pings every 20 s (the client library answers), drops every connection at 24 h,
/// and announces shutdowns with a `serverShutdown` event.
public enum BinanceStream {
    public static func path(symbol: String) -> String {
        let stream = symbol.lowercased()
        return "/stream?streams=\(stream)@aggTrade/\(stream)@miniTicker"
    }

    /// The configured base URL (`BTCPRICED_BINANCE_STREAM_URL`) with the stream path.
    public static func url(base: String, symbol: String) -> String {
        base.trimmingTrailingSlash + path(symbol: symbol)
    }

    public static func parse(_ frame: [UInt8], expectedSymbol: String) throws(FetchFailure) -> [StreamEvent] {
        let json = try StreamMessage.json(frame)
        // Events come wrapped in a combined stream, but a shutdown notice may come bare or, as on
        // Binance's WebSocket API, under "event".
        let event = json["data"] ?? json["event"] ?? json
        if let code = json["code"], let message = json["msg"]?.stringValue {
            throw .exchangeError("\(code.numberLiteral ?? "?"): \(message)")
        }
        if json["result"] != nil, json["id"] != nil { return [.alive] }
        switch event["e"]?.stringValue {
        case "serverShutdown":
            return [.closingSoon]
        case let kind? where kind == "aggTrade" || kind == "trade":
            let quote = SourceQuote(price: try ResponseChecks.price(event["p"], field: "p"),
                                    symbol: try symbol(of: event, expected: expectedSymbol),
                                    quoteAsset: BinanceAPI.quoteAsset(symbol: expectedSymbol))
            // An aggregate's id `a` grows like a trade's `t`; either orders the messages.
            let id = StreamMessage.integer(kind == "aggTrade" ? event["a"] : event["t"])
            return [.trade(quote, TradeStamp(milliseconds: StreamMessage.integer(event["T"]), tradeID: id))]
        case "24hrMiniTicker":
            let symbol = try symbol(of: event, expected: expectedSymbol)
            let prices = try StreamMessage.prices((event["c"], "c"), (event["o"], "o"), (event["h"], "h"), (event["l"], "l"))
            // Its close is the last trade as of the event time `E`: a newer trade wins over it.
            return [.tickerClose(SourceQuote(price: prices[0], symbol: symbol, quoteAsset: BinanceAPI.quoteAsset(symbol: expectedSymbol)),
                                 TradeStamp(milliseconds: StreamMessage.integer(event["E"]))),
                    .dayRange(DayRange(open: prices[1], high: prices[2], low: prices[3]))]
        case let other?:
            throw .exchangeError("unexpected event \"\(other)\"")
        case nil:
            throw .missingField("e")
        }
    }

    private static func symbol(of event: JSONValue, expected: String) throws(FetchFailure) -> String {
        guard let symbol = event["s"]?.stringValue else { throw .missingField("s") }
        guard symbol == expected else { throw .wrongSymbol(expected: expected, got: symbol) }
        return symbol
    }
}
