import PriceCore

/// A venue btcpriced can ask. Its entry in `Venue.catalog` is the one place that says what the
/// rest of the daemon needs to know about it: the settings naming its URLs and its other
/// settings (a symbol, a key), its market, its limits, its parsers and the operator's hints.
/// Adding a venue is one entry plus its adapter files (CONTRIBUTING.md).
public struct Venue: Sendable, Hashable, CustomStringConvertible {
    public let name: SourceName
    /// The ISO 4217 currencies it has a BTC market in, as documented by the venue.
    public let currencies: [String]
    public let rest: RestEndpoint
    /// Nil for a venue without a public trade stream.
    public let stream: StreamEndpoint?
    /// Its one-minute candles, for filling the history's gaps; nil for a venue without them.
    public let candles: CandleEndpoint?
    /// Its settings beyond the URLs; an `.apiKey` one means it is asked only with a key.
    public let settings: [VenueSetting]
    /// In `BTCPRICED_SOURCES`' default. A source the user must point somewhere first (their own
    /// mempool) is asked only when named.
    public let inDefaultChain: Bool
    /// What the operator can do about its failures, beyond what `hint(for:)` says of any venue.
    public let advice: VenueAdvice
    /// A reference rate rather than a market (Coinbase's conversion table): asked for a currency
    /// no market in the catalog trades BTC in, and labelled by its own name, never as a market.
    public let isReference: Bool

    public init(name: SourceName, currencies: [String], rest: RestEndpoint, stream: StreamEndpoint? = nil, candles: CandleEndpoint? = nil,
                settings: [VenueSetting] = [], inDefaultChain: Bool = true, isReference: Bool = false, advice: VenueAdvice = VenueAdvice()) {
        self.name = name
        self.currencies = currencies
        self.rest = rest
        self.stream = stream
        self.candles = candles
        self.settings = settings
        self.inDefaultChain = inDefaultChain
        self.isReference = isReference
        self.advice = advice
    }

    /// The API key it is asked with; nil for a venue that needs none.
    public var apiKey: VenueSetting? { settings.first { $0.credential != nil } }
    public var needsAPIKey: Bool { apiKey != nil }

    public var description: String { name.rawValue }
    public func quotes(_ currency: String) -> Bool { currencies.contains(currency) }
    public static func == (lhs: Venue, rhs: Venue) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A setting that holds one of a venue's base URLs, with its default.
public struct URLSetting: Sendable, Hashable {
    /// `BTCPRICED_BINANCE_URL`.
    public let key: String
    public let defaultURL: String

    public init(key: String, defaultURL: String) {
        self.key = key
        self.defaultURL = defaultURL
    }
}

/// What the user chose about the markets asked: the parts of a request that are not the URL.
public struct VenueOptions: Sendable, Equatable {
    /// The ISO 4217 code of the currency asked for (`BTCPRICED_CURRENCY`).
    public var currency: String
    /// The venues' own settings (`VenueSetting`), validated, by key; a missing one has its default.
    public var values: [String: String]

    public init(currency: String = "USD", values: [String: String] = [:]) {
        self.currency = currency
        self.values = values
    }

    public func value(_ setting: VenueSetting) -> String { values[setting.key] ?? setting.defaultValue }

    /// A whole-number setting's value (validated when read, so the default is only a fallback).
    public func number(_ setting: VenueSetting) -> Int { Int(value(setting)) ?? Int(setting.defaultValue) ?? 0 }

    /// A setting's value, nil when it is empty (an API key not given).
    public func given(_ setting: VenueSetting) -> String? {
        let value = value(setting)
        return value.isEmpty ? nil : value
    }
}

/// A venue's REST price request.
public struct RestEndpoint: Sendable {
    public typealias Parser = @Sendable (ExchangeResponse, VenueOptions) throws(FetchFailure) -> SourceQuote

    public let url: URLSetting
    /// The venue's own name for the market asked: `BTCUSDT`, `XBTEUR`, `btcgbp`.
    public let symbol: @Sendable (VenueOptions) -> String
    /// The path and query appended to the base URL.
    public let path: @Sendable (VenueOptions) -> String
    /// The quote asset the answer will be in, known before asking.
    public let quoteAsset: @Sendable (VenueOptions) -> String
    /// The venue's limits for the options and the base URL asked (someone's own instance of
    /// self-hosted software may be asked more often than the public one).
    public let limits: @Sendable (VenueOptions, _ baseURL: String) -> SourceLimits
    public let headers: @Sendable (VenueOptions) -> [String: String]
    public let parse: Parser
    /// A second form asked now and then instead, for more than the price (Binance's 24 h figures).
    public let occasional: (path: @Sendable (VenueOptions) -> String, every: Duration, parse: Parser)?
    /// How long the answer may stay the same, where that is longer than a trade's pace, and
    /// why (mempool's hourly price updater): a chain of such venues alone wants a longer
    /// BTCPRICED_STALE_AFTER, and `--check-config` says so.
    public let answerChangesEvery: (every: Duration, because: String)?
    /// The request for several currencies at once, where the venue's API takes a list.
    public let batch: BatchEndpoint?

    public init(url: URLSetting, symbol: @escaping @Sendable (VenueOptions) -> String, path: @escaping @Sendable (VenueOptions) -> String,
                quoteAsset: @escaping @Sendable (VenueOptions) -> String = { $0.currency },
                limits: @escaping @Sendable (VenueOptions, _ baseURL: String) -> SourceLimits,
                headers: @escaping @Sendable (VenueOptions) -> [String: String] = { _ in [:] },
                occasional: (path: @Sendable (VenueOptions) -> String, every: Duration, parse: Parser)? = nil,
                answerChangesEvery: (every: Duration, because: String)? = nil,
                batch: BatchEndpoint? = nil,
                parse: @escaping Parser) {
        self.url = url
        self.symbol = symbol
        self.path = path
        self.quoteAsset = quoteAsset
        self.limits = limits
        self.headers = headers
        self.occasional = occasional
        self.answerChangesEvery = answerChangesEvery
        self.batch = batch
        self.parse = parse
    }
}
