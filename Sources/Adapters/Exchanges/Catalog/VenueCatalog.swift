import PriceCore

extension Venue {
    /// Every venue, in the default chain's order (those in it; mempool is asked only when named,
    /// the reference rate when named or for a currency no market here trades). The settings, defaults, `--check-config`,
    /// `BTCPRICED_STREAM`'s choices, the currencies each quotes and the wiring all derive from
    /// this table.
    public static let catalog: [Venue] = [binance, coinbase, kraken, bitstamp, cryptocompare, mempool, coinbaseRates]

    public static func named(_ name: SourceName) -> Venue? { catalog.named(name) }

    /// Binance's market for USD: a stablecoin stand-in by default.
    public static let binanceSymbolSetting = VenueSetting(key: "BTCPRICED_BINANCE_SYMBOL", defaultValue: "BTCUSDT", kind: .symbol)

    /// Binance's market for the options' currency: the configured symbol for USD (`BTCUSDT`,
    /// labelled USDT), `BTC` + the code otherwise.
    static func binanceSymbol(_ options: VenueOptions) -> String {
        options.currency == "USD" ? options.value(binanceSymbolSetting) : "BTC" + options.currency
    }

    public static let cryptoCompareAPIKey = VenueSetting(key: "BTCPRICED_CRYPTOCOMPARE_API_KEY", kind: .apiKey(credential: "cryptocompare-api-key"))
    /// The key's plan: the calls it may make a day, spread evenly over the day.
    public static let cryptoCompareDailyCalls = VenueSetting(key: "BTCPRICED_CRYPTOCOMPARE_DAILY_CALLS", defaultValue: "\(CryptoCompareAPI.defaultDailyCalls)",
                                                             kind: .wholeNumber(1...1_000_000))

    public static let binance = Venue(
        name: "binance",
        currencies: ["USD", "EUR", "TRY", "BRL"],
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_BINANCE_URL", defaultURL: "https://api.binance.com"),
            symbol: binanceSymbol,
            path: { BinanceAPI.path(symbol: binanceSymbol($0)) },
            quoteAsset: { BinanceAPI.quoteAsset(symbol: binanceSymbol($0)) },
            limits: { _, _ in BinanceAPI.limits },
            occasional: (path: { BinanceAPI.dayPath(symbol: binanceSymbol($0)) }, every: BinanceAPI.dayFiguresEvery,
                         parse: { response, options throws(FetchFailure) in try BinanceAPI.parseDay(response, expectedSymbol: binanceSymbol(options)) }),
            batch: BatchEndpoint(path: { options, currencies in BinanceAPI.path(symbols: currencies.map { binanceSymbol(options.inCurrency($0)) }) },
                                 parse: { response, options, currencies throws(FetchFailure) in
                                     try BinanceAPI.parse(response, symbols: currencies.map { ($0, binanceSymbol(options.inCurrency($0))) })
                                 }),
            parse: { response, options throws(FetchFailure) in try BinanceAPI.parse(response, expectedSymbol: binanceSymbol(options)) }),
        stream: StreamEndpoint(
            url: URLSetting(key: "BTCPRICED_BINANCE_STREAM_URL", defaultURL: "wss://stream.binance.com:9443"),
            symbol: binanceSymbol, path: BinanceStream.path(symbols:), parser: BinanceStream.parser(expectedSymbols:)),
        candles: CandleEndpoint(perRequest: BinanceCandles.perRequest, cost: BinanceCandles.cost, pace: BinanceCandles.pace,
                                path: { BinanceCandles.path(symbol: binanceSymbol($0), interval: $1, slots: $2) },
                                parse: { response, _ throws(FetchFailure) in try BinanceCandles.parse(response) }),
        settings: [binanceSymbolSetting],
        advice: VenueAdvice(
            failure: { failure in
                guard case .geoRestricted = failure else { return nil }
                let others = catalog.keylessDefaults.filter { $0 != "binance" }.map(\.rawValue)
                return "; Binance refuses this location, so the next sources in BTCPRICED_SOURCES are used. To stop asking it, set BTCPRICED_SOURCES=\(others.joined(separator: ",")) (or BTCPRICED_BINANCE_URL=https://api.binance.us)"
            },
            nearRateLimit: " (request weight used this minute is over \(BinanceAPI.weightPauseThreshold) of \(BinanceAPI.weightLimitPerMinute), shared by everything on this IP)"))

    public static let coinbase = Venue(
        name: "coinbase",
        currencies: CoinbaseAPI.currencies,
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_COINBASE_URL", defaultURL: "https://api.coinbase.com"),
            symbol: { CoinbaseAPI.symbol(currency: $0.currency) }, path: { CoinbaseAPI.path(currency: $0.currency) },
            limits: { _, _ in CoinbaseAPI.limits },
            parse: { response, options throws(FetchFailure) in try CoinbaseAPI.parse(response, currency: options.currency) }),
        stream: StreamEndpoint(
            url: URLSetting(key: "BTCPRICED_COINBASE_STREAM_URL", defaultURL: "wss://advanced-trade-ws.coinbase.com"),
            symbol: { CoinbaseAPI.symbol(currency: $0.currency) }, greetings: CoinbaseStream.subscriptions(productIDs:),
            parser: { products in { frame throws(FetchFailure) in try CoinbaseStream.parse(frame, productIDs: products) } }),
        candles: CandleEndpoint(perRequest: CoinbaseCandles.perRequest, cost: CoinbaseCandles.cost, pace: CoinbaseCandles.pace,
                                path: { CoinbaseCandles.path(currency: $0.currency, interval: $1, slots: $2) },
                                parse: { response, _ throws(FetchFailure) in try CoinbaseCandles.parse(response) }))

    public static let kraken = Venue(
        name: "kraken",
        currencies: KrakenAPI.currencies,
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_KRAKEN_URL", defaultURL: "https://api.kraken.com"),
            symbol: { "XBT" + $0.currency }, path: { KrakenAPI.path(currency: $0.currency) },
            limits: { _, _ in KrakenAPI.limits },
            batch: BatchEndpoint(path: { _, currencies in KrakenAPI.path(currencies: currencies) },
                                 parse: { response, _, currencies throws(FetchFailure) in try KrakenAPI.parse(response, currencies: currencies) }),
            parse: { response, options throws(FetchFailure) in try KrakenAPI.parse(response, currency: options.currency) }),
        stream: StreamEndpoint(
            url: URLSetting(key: "BTCPRICED_KRAKEN_STREAM_URL", defaultURL: "wss://ws.kraken.com/v2"),
            symbol: { KrakenStream.symbol(currency: $0.currency) }, greetings: { [KrakenStream.subscription(symbols: $0)] },
            parser: { symbols in { frame throws(FetchFailure) in try KrakenStream.parse(frame, symbols: symbols) } }),
        candles: CandleEndpoint(perRequest: KrakenCandles.perRequest, reachesBack: KrakenCandles.reachesBack, cost: KrakenCandles.cost, pace: KrakenCandles.pace, sharesPriceHostPace: true,
                                path: { KrakenCandles.path(currency: $0.currency, interval: $1, slots: $2) },
                                parse: { response, options throws(FetchFailure) in try KrakenCandles.parse(response, currency: options.currency) }))

    public static let bitstamp = Venue(
        name: "bitstamp",
        currencies: BitstampAPI.currencies,
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_BITSTAMP_URL", defaultURL: "https://www.bitstamp.net"),
            symbol: { BitstampAPI.symbol(currency: $0.currency) }, path: { BitstampAPI.path(currency: $0.currency) },
            limits: { _, _ in BitstampAPI.limits },
            parse: { response, options throws(FetchFailure) in try BitstampAPI.parse(response, currency: options.currency) }),
        candles: CandleEndpoint(perRequest: BitstampCandles.perRequest, cost: BitstampCandles.cost, pace: BitstampCandles.pace,
                                path: { BitstampCandles.path(currency: $0.currency, interval: $1, slots: $2) },
                                parse: { response, options throws(FetchFailure) in try BitstampCandles.parse(response, currency: options.currency) }))

    public static let cryptocompare = Venue(
        name: "cryptocompare",
        currencies: CryptoCompareAPI.currencies,
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_CRYPTOCOMPARE_URL", defaultURL: "https://min-api.cryptocompare.com"),
            symbol: { "BTC" + $0.currency }, path: { CryptoCompareAPI.path(currency: $0.currency) },
            limits: { options, _ in CryptoCompareAPI.limits(dailyCalls: options.number(cryptoCompareDailyCalls)) },
            headers: { options in options.given(cryptoCompareAPIKey).map { ["authorization": CryptoCompareAPI.authorizationHeader(apiKey: $0)] } ?? [:] },
            batch: BatchEndpoint(path: { _, currencies in CryptoCompareAPI.path(currencies: currencies) },
                                 parse: { response, _, currencies throws(FetchFailure) in try CryptoCompareAPI.parse(response, currencies: currencies) }),
            parse: { response, options throws(FetchFailure) in try CryptoCompareAPI.parse(response, currency: options.currency) }),
        settings: [cryptoCompareAPIKey, cryptoCompareDailyCalls])

    /// A self-hosted price source: a node runner's own mempool, on the LAN or as a .onion.
    public static let mempool = Venue(
        name: "mempool",
        currencies: MempoolAPI.currencies,
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_MEMPOOL_URL", defaultURL: "https://mempool.space"),
            symbol: { "BTC" + $0.currency }, path: { _ in MempoolAPI.path },
            limits: { _, baseURL in MempoolAPI.limits(baseURL: baseURL) },
            answerChangesEvery: (MempoolAPI.defaultUpdateInterval, MempoolAPI.updateIntervalReason),
            parse: { response, options throws(FetchFailure) in try MempoolAPI.parse(response, currency: options.currency) }),
        inDefaultChain: false)

    /// Coinbase's reference rates: a currency no market here trades (CZK, HUF, ZAR…) is priced
    /// from them, labelled `coinbase-rates` (`SourcePlan`). Asked only then, or when named.
    public static let coinbaseRates = Venue(
        name: "coinbase-rates",
        currencies: CoinbaseRatesAPI.currencies,
        rest: RestEndpoint(
            url: URLSetting(key: "BTCPRICED_COINBASE_RATES_URL", defaultURL: "https://api.coinbase.com"),
            symbol: { CoinbaseRatesAPI.symbol(currency: $0.currency) }, path: { _ in CoinbaseRatesAPI.path },
            limits: { _, _ in CoinbaseRatesAPI.limits },
            parse: { response, options throws(FetchFailure) in try CoinbaseRatesAPI.parse(response, currency: options.currency) }),
        inDefaultChain: false, isReference: true)
}

extension [Venue] {
    /// The entry called `name` in this catalog.
    public func named(_ name: SourceName) -> Venue? { first { $0.name == name } }

    /// The markets among these venues that trade BTC in `currency` (a reference rate is no market).
    public func markets(for currency: String) -> [Venue] { filter { !$0.isReference && $0.quotes(currency) } }

    /// The reference that prices `currency` when no market does.
    public func reference(for currency: String) -> Venue? { first { $0.isReference && $0.quotes(currency) } }

    /// The default chain's venues that need no key: what a message suggests asking instead.
    public var keylessDefaults: [SourceName] { filter { $0.inDefaultChain && !$0.needsAPIKey }.map(\.name) }

    /// A base URL of this catalog, for examples in messages.
    public var exampleURL: String { first?.rest.url.defaultURL ?? "https://exchange.example" }

    /// A stream URL of this catalog, for examples in messages.
    public var exampleStreamURL: String { lazy.compactMap(\.stream).first?.url.defaultURL ?? "wss://exchange.example" }
}
