import FoundationEssentials

/// The name of a price source as configured in `BTCPRICED_SOURCES`.
public struct SourceName: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    /// The source of a quote that is the median of several venues.
    public static let consensus: SourceName = "consensus"
}

/// What a source says, before the daemon stamps it with its receipt time.
public struct SourceQuote: Sendable, Hashable {
    public let price: Price
    /// The source's own market symbol: `BTCUSDT`, `XXBTZUSD`, `btcusd`.
    public let symbol: String
    /// What the price is counted in: `USDT` on a stablecoin market, `USD` elsewhere.
    public let quoteAsset: String
    /// Set when the venue says it is close to its rate limit: leave it alone this long.
    public let pauseRequested: Duration?
    /// The venue's own rolling 24 h figures, where the answer states them.
    public let day: DayRange?
    /// When the origin made the answer: the venue's own time field, else the HTTP `Date` (which
    /// a cache passes on from the origin). Nil when unknown.
    public let originTime: Timestamp?
    /// How long caches held the answer (HTTP `Age`): it is at least this old on arrival, even
    /// when a cache dates it anew.
    public let cacheAge: Duration
    /// The venue's clock as the answer left it, where the answer says so directly: the HTTP
    /// `Date` of a response no cache held (no `Age`). It tells how far the host clock is off
    /// (`HostClockOffset`), never how old the price is: a ticker's time may be a minute old.
    public let venueClock: Timestamp?

    public init(price: Price, symbol: String, quoteAsset: String, pauseRequested: Duration? = nil, day: DayRange? = nil,
                originTime: Timestamp? = nil, cacheAge: Duration = .zero, venueClock: Timestamp? = nil) {
        self.price = price
        self.symbol = symbol
        self.quoteAsset = quoteAsset
        self.pauseRequested = pauseRequested
        self.day = day
        self.originTime = originTime
        self.cacheAge = cacheAge
        self.venueClock = venueClock
    }

    /// The same answer with the HTTP exchange's times: `date` unless the venue dated it itself;
    /// `date` is the venue's clock when no cache held the answer (`cached` says whether an `Age` came).
    public func dated(httpDate date: Timestamp?, cacheAge: Duration, cached: Bool) -> SourceQuote {
        SourceQuote(price: price, symbol: symbol, quoteAsset: quoteAsset, pauseRequested: pauseRequested, day: day,
                    originTime: originTime ?? date, cacheAge: cacheAge, venueClock: cached ? nil : date)
    }
}

/// The latest known BTC price, as served and persisted.
public struct Quote: Sendable, Hashable {
    public let price: Price
    public let currency: String
    public let symbol: String
    public let source: SourceName
    /// When the venue made it: a trade's time, an answer's origin time, else its receipt.
    public let timestamp: Timestamp
    /// The venues behind it: the source alone, or those a consensus used.
    public let contributors: [SourceName]
    /// Highest minus lowest price among the contributors of a consensus; nil otherwise.
    public let spread: Decimal?

    public init(price: Price, currency: String, symbol: String, source: SourceName, timestamp: Timestamp,
                contributors: [SourceName]? = nil, spread: Decimal? = nil) {
        self.price = price
        self.currency = currency
        self.symbol = symbol
        self.source = source
        self.timestamp = timestamp
        self.contributors = contributors ?? [source]
        self.spread = spread
    }
}
