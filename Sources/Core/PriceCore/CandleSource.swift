/// A venue's one-minute candles, asked to fill the minutes of the last week the history lacks.
public protocol CandleSource: Sendable {
    var name: SourceName { get }
    /// The venue's limits: the same as for its prices, and counted with them.
    var limits: SourceLimits { get }
    /// The most candles one request returns.
    var perRequest: Int { get }
    /// How far back, in minutes, the venue serves one-minute candles at all; nil when a week is
    /// within reach.
    var reachesBack: Int64? { get }
    /// How long one request may take before it counts as failed.
    var attemptLimit: Duration { get }
    /// The candles of these minutes (at most `perRequest`). Throws `FetchFailure`.
    func candles(_ minutes: ClosedRange<Int64>) async throws -> CandleBatch
}
