/// A venue's candles, one a minute to fill the minutes of the last week the history lacks, one a
/// day to fill the ten years of daily closes.
public protocol CandleSource: Sendable {
    var name: SourceName { get }
    /// The shortest time between two candle requests to the venue from every instance on this
    /// host together: the spare budget its published limits leave beside the price fetches,
    /// which keep their own pace (`SourceLimits.hostPace`).
    var candlePace: Duration { get }
    /// How its candle requests are claimed host-wide: by default as candles at `candlePace`; a
    /// venue whose published limit leaves no room beside the price fetches (Kraken) claims them
    /// from the price fetches' host-wide pace, so that all kinds together never exceed it.
    var hostClaim: (kind: RequestKind, pace: Duration) { get }
    /// The most candles one request returns.
    var perRequest: Int { get }
    /// How many candles of an interval back the venue serves at all; nil when as far as asked.
    var reachesBack: Int64? { get }
    /// How long one request may take before it counts as failed.
    var attemptLimit: Duration { get }
    /// The candles of these slots of `interval` (at most `perRequest`). Throws `FetchFailure`.
    func candles(_ slots: ClosedRange<Int64>, every interval: CandleInterval) async throws -> CandleBatch
}

extension CandleSource {
    public var hostClaim: (kind: RequestKind, pace: Duration) { (.candles, candlePace) }
}
