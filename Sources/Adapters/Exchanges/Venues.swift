import AsyncHTTPClient
import PriceCore

/// Every venue btcpriced can ask, with what each needs to be built. A closed set, so the
/// wiring's switch is exhaustive.
public enum Venue: String, CaseIterable, Sendable {
    case binance, coinbase, kraken, bitstamp, cryptocompare

    public var sourceName: SourceName { SourceName(rawValue) }
}

/// The settings a venue's source is built from.
public struct VenueSettings: Sendable {
    public var baseURL: String
    public var binanceSymbol: String = "BTCUSDT"
    public var cryptoCompareAPIKey: String?
    public var cryptoCompareDailyCalls: Int = CryptoCompareAPI.defaultDailyCalls

    public init(baseURL: String) { self.baseURL = baseURL }
}

extension Venue {
    /// The quote asset this venue will answer in, known before asking.
    public func quoteAsset(binanceSymbol: String) -> String {
        switch self {
        case .binance: BinanceAPI.quoteAsset(symbol: binanceSymbol)
        case .coinbase: CoinbaseAPI.quoteAsset
        case .kraken: KrakenAPI.quoteAsset
        case .bitstamp: BitstampAPI.quoteAsset
        case .cryptocompare: CryptoCompareAPI.quoteAsset
        }
    }

    public func limits(cryptoCompareDailyCalls: Int) -> SourceLimits {
        switch self {
        case .binance: BinanceAPI.limits
        case .coinbase: CoinbaseAPI.limits
        case .kraken: KrakenAPI.limits
        case .bitstamp: BitstampAPI.limits
        case .cryptocompare: CryptoCompareAPI.limits(dailyCalls: cryptoCompareDailyCalls)
        }
    }

    /// The full request URL for a base URL.
    public func requestURL(baseURL: String, binanceSymbol: String) -> String {
        let base = baseURL.trimmingTrailingSlash
        return switch self {
        case .binance: base + BinanceAPI.path(symbol: binanceSymbol)
        case .coinbase: base + CoinbaseAPI.path
        case .kraken: base + KrakenAPI.path
        case .bitstamp: base + BitstampAPI.path
        case .cryptocompare: base + CryptoCompareAPI.path
        }
    }

    public func source(_ settings: VenueSettings, client: HTTPClient, timeout: Duration, userAgent: String) -> HTTPPriceSource {
        let symbol = settings.binanceSymbol
        var headers: [String: String] = [:]
        if self == .cryptocompare, let key = settings.cryptoCompareAPIKey {
            headers["authorization"] = CryptoCompareAPI.authorizationHeader(apiKey: key)
        }
        let parse: @Sendable (ExchangeResponse) throws(FetchFailure) -> SourceQuote = switch self {
        case .binance: { response throws(FetchFailure) in try BinanceAPI.parse(response, expectedSymbol: symbol) }
        case .coinbase: { response throws(FetchFailure) in try CoinbaseAPI.parse(response) }
        case .kraken: { response throws(FetchFailure) in try KrakenAPI.parse(response) }
        case .bitstamp: { response throws(FetchFailure) in try BitstampAPI.parse(response) }
        case .cryptocompare: { response throws(FetchFailure) in try CryptoCompareAPI.parse(response) }
        }
        let occasional = self == .binance ? OccasionalRequest(
            url: settings.baseURL.trimmingTrailingSlash + BinanceAPI.dayPath(symbol: symbol), every: BinanceAPI.dayFiguresEvery
        ) { response throws(FetchFailure) in try BinanceAPI.parseDay(response, expectedSymbol: symbol) } : nil
        return HTTPPriceSource(name: sourceName, quoteAsset: quoteAsset(binanceSymbol: symbol),
                               limits: limits(cryptoCompareDailyCalls: settings.cryptoCompareDailyCalls),
                               url: requestURL(baseURL: settings.baseURL, binanceSymbol: symbol), client: client,
                               requestTimeout: timeout, userAgent: userAgent, extraHeaders: headers, occasional: occasional, parse: parse)
    }
}
