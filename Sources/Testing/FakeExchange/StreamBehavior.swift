/// How the fake's WebSocket endpoint for one market behaves. Binance streams at
/// `/stream?streams=…`, Coinbase at `/` and Kraken at `/v2`, each with its real message shapes.
public enum StreamBehavior: Sendable, Equatable {
    /// Trades at this rate, cycling through the prices given, with a heartbeat (Coinbase and
    /// Kraken) or a mini ticker (Binance) every second.
    case trades(prices: [String], perSecond: Int)
    /// Accepts and acknowledges the subscription, then sends nothing at all, heartbeats included.
    case silent
    /// Heartbeats every 100 ms (Coinbase and Kraken) and no price at all: a live connection on
    /// which prices do not flow.
    case heartbeatsOnly
    /// Refuses the upgrade with this HTTP status (451 as Binance does from restricted places).
    case refuse(Int)
    /// Accepts the connection and never answers the upgrade request.
    case hangUpgrade
    /// Sends this many trades, then closes cleanly; Binance first sends `serverShutdown` when asked.
    case closeAfter(trades: Int, shutdownNotice: Bool)
    /// Sends these text frames as they are (malformed, oversized, not JSON), then goes quiet.
    case frames([String])
    /// Trades whose price carries the moment they were sent, for latency measurements:
    /// 100000 + (wall-clock microseconds mod 10^8) / 10^6, e.g. 100012.345678.
    case clockTrades(perSecond: Int)
    /// One trade at this price, then pings as fast as the client takes them for this long,
    /// never reading what the client sends (its pongs pile up on its side, if it lets them).
    /// With `readsPongs`, the client's pongs are read (and dropped) as they come.
    case pingFlood(price: String, seconds: Int, readsPongs: Bool = false)

    /// `trades P1,P2 RATE`, `clock RATE`, `pingflood PRICE SECONDS [read]`, `silent`, `refuse STATUS` (the control endpoint's body).
    public init?(command: String) {
        let words = command.split(separator: " ").map(String.init)
        switch (words.first, words.count) {
        case ("trades", 3): guard let rate = Int(words[2]) else { return nil }; self = .trades(prices: words[1].split(separator: ",").map(String.init), perSecond: rate)
        case ("clock", 2): guard let rate = Int(words[1]) else { return nil }; self = .clockTrades(perSecond: rate)
        case ("pingflood", 3), ("pingflood", 4):
            guard let seconds = Int(words[2]), words.count == 3 || words[3] == "read" else { return nil }
            self = .pingFlood(price: words[1], seconds: seconds, readsPongs: words.count == 4)
        case ("silent", 1): self = .silent
        case ("heartbeats", 1): self = .heartbeatsOnly
        case ("hang", 1): self = .hangUpgrade
        case ("refuse", 2): guard let status = Int(words[1]) else { return nil }; self = .refuse(status)
        default: return nil
        }
    }

    public static let defaultTrades = StreamBehavior.trades(prices: ["114459.80", "114460.25"], perSecond: 5)
}
