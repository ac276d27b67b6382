import JSONText
import PriceCore

/// Binance's combined market streams: `/stream?streams=btcusdt@aggTrade/btcusdt@miniTicker`, each
/// event wrapped as `{"stream":"btcusdt@aggTrade","data":{"e":"aggTrade","s":"BTCUSDT","p":"85866.18",…}}`.
/// `aggTrade` rather than `trade`: one message per taker order instead of one per fill, and
/// every price change still arrives (the fills of one order at one price are one message).
/// The server pings every 20 s (the client library answers), drops every connection at 24 h,
/// and announces shutdowns with a `serverShutdown` event.
public enum BinanceStream {
    /// The combined stream of every symbol's trades and mini ticker, on one connection.
    public static func path(symbols: [String]) -> String {
        "/stream?streams=" + symbols.map { symbol in
            let stream = symbol.lowercased()
            return "\(stream)@aggTrade/\(stream)@miniTicker"
        }.joined(separator: "/")
    }

    public static func path(symbol: String) -> String { path(symbols: [symbol]) }

    /// A symbol the connection carries, with its quote asset worked out once.
    struct Market: Sendable {
        let symbol: String
        let quoteAsset: String

        init(_ symbol: String) {
            self.symbol = symbol
            quoteAsset = BinanceAPI.quoteAsset(symbol: symbol)
        }
    }

    /// The parser for one connection carrying `expectedSymbols`.
    public static func parser(expectedSymbols: [String]) -> @Sendable ([UInt8]) throws(FetchFailure) -> [StreamEvent] {
        let markets = expectedSymbols.map(Market.init)
        return { frame throws(FetchFailure) in
            if let trade = quickTrade(frame, among: markets) { return [trade] }
            return try parse(frame, among: markets)
        }
    }

    public static func parser(expectedSymbol: String) -> @Sendable ([UInt8]) throws(FetchFailure) -> [StreamEvent] {
        parser(expectedSymbols: [expectedSymbol])
    }

    public static func parse(_ frame: [UInt8], expectedSymbol: String) throws(FetchFailure) -> [StreamEvent] {
        try parse(frame, among: [Market(expectedSymbol)])
    }

    /// A message read in full (no quick path), as one of `expectedSymbols`' connection reads it.
    public static func parse(_ frame: [UInt8], expectedSymbols: [String]) throws(FetchFailure) -> [StreamEvent] {
        try parse(frame, among: expectedSymbols.map(Market.init))
    }

    static func parse(_ frame: [UInt8], among markets: [Market]) throws(FetchFailure) -> [StreamEvent] {
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
            let market = try market(of: event, among: markets)
            let quote = SourceQuote(price: try ResponseChecks.price(event["p"], field: "p"), symbol: market.symbol, quoteAsset: market.quoteAsset)
            // An aggregate's id `a` grows like a trade's `t`; either orders the messages.
            let id = StreamMessage.integer(kind == "aggTrade" ? event["a"] : event["t"])
            return [.trade(quote, TradeStamp(milliseconds: StreamMessage.integer(event["T"]), tradeID: id))]
        case "24hrMiniTicker":
            let market = try market(of: event, among: markets)
            let prices = try StreamMessage.prices((event["c"], "c"), (event["o"], "o"), (event["h"], "h"), (event["l"], "l"))
            // Its close is the last trade as of the event time `E`: a newer trade wins over it.
            return [.tickerClose(SourceQuote(price: prices[0], symbol: market.symbol, quoteAsset: market.quoteAsset),
                                 TradeStamp(milliseconds: StreamMessage.integer(event["E"]))),
                    .dayRange(DayRange(open: prices[1], high: prices[2], low: prices[3]))]
        case let other?:
            throw .exchangeError("unexpected event \"\(other)\"")
        case nil:
            throw .missingField("e")
        }
    }

    /// A well-formed trade for one of `markets`, read without building a JSON tree: nearly every
    /// message is one. Nil for anything else (another event, an error, a field out of the
    /// ordinary, text the scan does not check), which `parse` then reads in full and judges.
    public static func quickTrade(_ frame: [UInt8], expectedSymbols: [String]) -> StreamEvent? {
        quickTrade(frame, among: expectedSymbols.map(Market.init))
    }

    static func quickTrade(_ frame: [UInt8], among markets: [Market]) -> StreamEvent? {
        guard frame.count <= StreamMessage.largestFrame else { return nil }
        return frame.withUnsafeBufferPointer { bytes -> StreamEvent? in
            var kind: Range<Int>?, symbol: Range<Int>?, price: Range<Int>?, aggregateID: Range<Int>?, tradeID: Range<Int>?, time: Range<Int>?
            let scanned = JSONMemberScan.scan(bytes) { member in
                if member.depth == 0 {
                    // Only the combined stream's wrapper; an error or a reply has other members.
                    return JSONMemberScan.bytes(bytes, at: member.name, equal: "stream") && member.kind == .string
                        || JSONMemberScan.bytes(bytes, at: member.name, equal: "data") && member.kind == .object
                }
                guard member.name.count == 1 else { return true }
                switch (bytes[member.name.lowerBound], member.kind) {
                case (UInt8(ascii: "e"), .string): kind = member.value
                case (UInt8(ascii: "s"), .string): symbol = member.value
                case (UInt8(ascii: "p"), .string): price = member.value
                case (UInt8(ascii: "a"), .number): aggregateID = member.value
                case (UInt8(ascii: "t"), .number): tradeID = member.value
                case (UInt8(ascii: "T"), .number): time = member.value
                case (UInt8(ascii: "e"), _), (UInt8(ascii: "s"), _), (UInt8(ascii: "p"), _): return false
                default: break
                }
                return true
            }
            guard scanned, let kind, let symbol, let price else { return nil }
            let isAggregate = JSONMemberScan.bytes(bytes, at: kind, equal: "aggTrade")
            guard isAggregate || JSONMemberScan.bytes(bytes, at: kind, equal: "trade"),
                  let market = markets.first(where: { bytes[symbol].elementsEqual($0.symbol.utf8) }),
                  let parsed = try? Price(parsing: String(decoding: bytes[price], as: UTF8.self)) else { return nil }
            // An aggregate's id `a` grows like a trade's `t`; either orders the messages.
            let id = isAggregate ? aggregateID : tradeID
            // Read as the full parser reads them (StreamMessage.integer): Int64's own parsing.
            let integer = { (range: Range<Int>) in Int64(String(decoding: bytes[range], as: UTF8.self)) }
            let stamp = TradeStamp(milliseconds: time.flatMap(integer), tradeID: id.flatMap(integer))
            return .trade(SourceQuote(price: parsed, symbol: market.symbol, quoteAsset: market.quoteAsset), stamp)
        }
    }

    private static func market(of event: JSONValue, among markets: [Market]) throws(FetchFailure) -> Market {
        guard let symbol = event["s"]?.stringValue else { throw .missingField("s") }
        guard let market = markets.first(where: { $0.symbol == symbol }) else {
            throw .wrongSymbol(expected: markets.map(\.symbol).joined(separator: " or "), got: symbol)
        }
        return market
    }
}
