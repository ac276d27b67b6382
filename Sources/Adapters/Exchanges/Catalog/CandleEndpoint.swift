import PriceCore

/// A venue's one-minute candles (OHLC), asked on its REST base URL to fill the minutes of the
/// last week the history lacks.
public struct CandleEndpoint: Sendable {
    public typealias Parser = @Sendable (ExchangeResponse, VenueOptions) throws(FetchFailure) -> CandleBatch

    /// The most candles one request returns.
    public let perRequest: Int
    /// How far back, in minutes, the venue serves one-minute candles at all; nil when a week is
    /// within reach.
    public let reachesBack: Int64?
    /// What one request costs in the venue's own terms ("weight 2"), for btcpriced.conf(5).
    public let cost: String
    /// The path and query for these minutes (at most `perRequest` of them).
    public let path: @Sendable (VenueOptions, ClosedRange<Int64>) -> String
    public let parse: Parser

    public init(perRequest: Int, reachesBack: Int64? = nil, cost: String, path: @escaping @Sendable (VenueOptions, ClosedRange<Int64>) -> String,
                parse: @escaping Parser) {
        self.perRequest = perRequest
        self.reachesBack = reachesBack
        self.cost = cost
        self.path = path
        self.parse = parse
    }
}
