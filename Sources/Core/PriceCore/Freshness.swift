/// How usable the quote is right now.
public enum FreshnessState: String, Sendable, Hashable {
    case fresh, stale, nodata
}

public struct Freshness: Sendable, Hashable {
    public let state: FreshnessState
    /// Milliseconds since the quote was received; nil without a quote. Never negative,
    /// even if the wall clock stepped backwards.
    public let ageMilliseconds: Int64?

    /// A quote is stale once it is older than `staleAfter`.
    public init(of quote: Quote?, at now: Timestamp, staleAfter: Duration) {
        guard let quote else {
            self.state = .nodata
            self.ageMilliseconds = nil
            return
        }
        let age = max(0, now.milliseconds(since: quote.timestamp))
        self.ageMilliseconds = age
        self.state = age > staleAfter.wholeMilliseconds ? .stale : .fresh
    }

    /// How long until a fresh quote turns stale; nil when it cannot happen any more.
    public static func timeUntilStale(of quote: Quote?, at now: Timestamp, staleAfter: Duration) -> Duration? {
        guard let quote else { return nil }
        let remaining = staleAfter.wholeMilliseconds - now.milliseconds(since: quote.timestamp)
        return remaining >= 0 ? .milliseconds(remaining + 1) : nil
    }
}
