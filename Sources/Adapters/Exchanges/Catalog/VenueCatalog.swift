import PriceCore

extension Venue {
    /// Every venue, in the default chain's order. The settings, defaults, `--check-config`,
    /// `BTCPRICED_STREAM`'s choices and the wiring all derive from this table.
    public static let catalog: [Venue] = [binance, coinbase, kraken, bitstamp, cryptocompare]

    public static func named(_ name: SourceName) -> Venue? { catalog.first { $0.name == name } }

    public static let binance = Venue(
        name: "binance",
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_BINANCE_URL", defaultURL: "https://api.binance.com"),
            path: { BinanceAPI.path(symbol: $0.binanceSymbol) },
            quoteAsset: { BinanceAPI.quoteAsset(symbol: $0.binanceSymbol) },
            limits: { _ in BinanceAPI.limits },
            occasional: (path: { BinanceAPI.dayPath(symbol: $0.binanceSymbol) }, every: BinanceAPI.dayFiguresEvery,
                         parse: { response, options throws(FetchFailure) in try BinanceAPI.parseDay(response, expectedSymbol: options.binanceSymbol) }),
            parse: { response, options throws(FetchFailure) in try BinanceAPI.parse(response, expectedSymbol: options.binanceSymbol) }),
        stream: StreamEndpoint(
            url: URLSetting(key: "BTCPRICED_BINANCE_STREAM_URL", defaultURL: "wss://stream.binance.com:9443"),
            path: { BinanceStream.path(symbol: $0.binanceSymbol) },
            parser: { options in
                let symbol = options.binanceSymbol
                return { frame throws(FetchFailure) in try BinanceStream.parse(frame, expectedSymbol: symbol) }
            }))

    public static let coinbase = Venue(
        name: "coinbase",
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_COINBASE_URL", defaultURL: "https://api.coinbase.com"),
            path: { _ in CoinbaseAPI.path }, quoteAsset: { _ in CoinbaseAPI.quoteAsset }, limits: { _ in CoinbaseAPI.limits },
            parse: { response, _ throws(FetchFailure) in try CoinbaseAPI.parse(response) }),
        stream: StreamEndpoint(
            url: URLSetting(key: "BTCPRICED_COINBASE_STREAM_URL", defaultURL: "wss://advanced-trade-ws.coinbase.com"),
            greetings: { _ in CoinbaseStream.subscriptions },
            parser: { _ in { frame throws(FetchFailure) in try CoinbaseStream.parse(frame) } }))

    public static let kraken = Venue(
        name: "kraken",
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_KRAKEN_URL", defaultURL: "https://api.kraken.com"),
            path: { _ in KrakenAPI.path }, quoteAsset: { _ in KrakenAPI.quoteAsset }, limits: { _ in KrakenAPI.limits },
            parse: { response, _ throws(FetchFailure) in try KrakenAPI.parse(response) }),
        stream: StreamEndpoint(
            url: URLSetting(key: "BTCPRICED_KRAKEN_STREAM_URL", defaultURL: "wss://ws.kraken.com/v2"),
            greetings: { _ in [KrakenStream.subscription] },
            parser: { _ in { frame throws(FetchFailure) in try KrakenStream.parse(frame) } }))

    public static let bitstamp = Venue(
        name: "bitstamp",
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_BITSTAMP_URL", defaultURL: "https://www.bitstamp.net"),
            path: { _ in BitstampAPI.path }, quoteAsset: { _ in BitstampAPI.quoteAsset }, limits: { _ in BitstampAPI.limits },
            parse: { response, _ throws(FetchFailure) in try BitstampAPI.parse(response) }))

    public static let cryptocompare = Venue(
        name: "cryptocompare",
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_CRYPTOCOMPARE_URL", defaultURL: "https://min-api.cryptocompare.com"),
            path: { _ in CryptoCompareAPI.path }, quoteAsset: { _ in CryptoCompareAPI.quoteAsset },
            limits: { CryptoCompareAPI.limits(dailyCalls: $0.cryptoCompareDailyCalls) },
            headers: { options in options.cryptoCompareAPIKey.map { ["authorization": CryptoCompareAPI.authorizationHeader(apiKey: $0)] } ?? [:] },
            parse: { response, _ throws(FetchFailure) in try CryptoCompareAPI.parse(response) }),
        needsAPIKey: true)
}
