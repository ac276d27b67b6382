import PriceCore

/// A venue's candles (OHLC), asked on its REST base URL: one a minute to fill the minutes of the
/// last week the history lacks, one a day for the ten years of daily closes.
public struct CandleEndpoint: Sendable {
    public typealias Parser = @Sendable (ExchangeResponse, VenueOptions) throws(FetchFailure) -> CandleBatch

    /// The most candles one request returns.
    public let perRequest: Int
    /// How many candles of an interval back the venue serves at all; nil when as far as asked.
    public let reachesBack: Int64?
    /// What one request costs in the venue's own terms ("weight 2"), for btcpriced.conf(5).
    public let cost: String
    /// The shortest time between two candle requests from every instance on a host together:
    /// the budget the venue's published limits leave beside its price fetches' host-wide pace.
    public let pace: Duration
    /// Whether its requests are claimed from the price fetches' host-wide pace instead of a
    /// candle pace of their own: for a venue whose published limit the price fetches already
    /// fill host-wide (Kraken's one request a second). They still keep `pace` per instance.
    public let sharesPriceHostPace: Bool
    /// The path and query for these slots of an interval (at most `perRequest` of them).
    public let path: @Sendable (VenueOptions, CandleInterval, ClosedRange<Int64>) -> String
    public let parse: Parser

    public init(perRequest: Int, reachesBack: Int64? = nil, cost: String, pace: Duration, sharesPriceHostPace: Bool = false, path: @escaping @Sendable (VenueOptions, CandleInterval, ClosedRange<Int64>) -> String,
                parse: @escaping Parser) {
        self.perRequest = perRequest
        self.reachesBack = reachesBack
        self.cost = cost
        self.pace = pace
        self.sharesPriceHostPace = sharesPriceHostPace
        self.path = path
        self.parse = parse
    }
}
