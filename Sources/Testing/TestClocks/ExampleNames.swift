import PriceCore

/// Venue names for tests of the core, which knows no venue (the daemon's come from `Venue.catalog`).
extension SourceName {
    public static let binance: SourceName = "binance"
    public static let coinbase: SourceName = "coinbase"
    public static let kraken: SourceName = "kraken"
    public static let bitstamp: SourceName = "bitstamp"
    public static let cryptoCompare: SourceName = "cryptocompare"
}
