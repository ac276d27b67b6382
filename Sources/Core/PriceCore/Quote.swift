/// The name of a price source as configured in `BTCPRICED_SOURCES`.
public struct SourceName: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public static let binance: SourceName = "binance"
    public static let cryptoCompare: SourceName = "cryptocompare"
}

/// What a source says, before the daemon stamps it with its receipt time.
public struct SourceQuote: Sendable, Hashable {
    public let price: Price
    /// The source's own market symbol: `BTCUSDT` on Binance, `BTCUSD` on CryptoCompare.
    public let symbol: String

    public init(price: Price, symbol: String) {
        self.price = price
        self.symbol = symbol
    }
}

/// The latest known BTC price, as served and persisted.
public struct Quote: Sendable, Hashable {
    public let price: Price
    public let currency: String
    public let symbol: String
    public let source: SourceName
    /// When the daemon received it (not the exchange's own time).
    public let timestamp: Timestamp

    public init(price: Price, currency: String = "USD", symbol: String, source: SourceName, timestamp: Timestamp) {
        self.price = price
        self.currency = currency
        self.symbol = symbol
        self.source = source
        self.timestamp = timestamp
    }
}
