/// How usable the quote is right now.
public enum FreshnessState: String, Sendable, Hashable {
    case fresh, stale, nodata
}

public struct Freshness: Sendable, Hashable {
    public let state: FreshnessState
    /// Milliseconds since the quote was received; nil without a quote. Never negative,
    /// even if the wall clock stepped backwards.
    public let ageMilliseconds: Int64?

    /// A quote whose age cannot be known (stamped in the future): stale, never fresh.
    public static let unknownAge = Freshness(state: .stale, ageMilliseconds: nil)

    init(state: FreshnessState, ageMilliseconds: Int64?) {
        self.state = state
        self.ageMilliseconds = ageMilliseconds
    }

    /// A quote of known age: stale once older than `staleAfter`.
    public init(ageMilliseconds age: Int64, staleAfter: Duration) {
        self.ageMilliseconds = max(0, age)
        self.state = age > staleAfter.wholeMilliseconds ? .stale : .fresh
    }

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
        return timeUntilStale(ageMilliseconds: now.milliseconds(since: quote.timestamp), staleAfter: staleAfter)
    }

    /// The moment just past `staleAfter`, counted from an age; nil once it has passed.
    static func timeUntilStale(ageMilliseconds age: Int64, staleAfter: Duration) -> Duration? {
        let remaining = staleAfter.wholeMilliseconds - age
        return remaining >= 0 ? .milliseconds(remaining + 1) : nil
    }
}

/// When a quote turns stale. A source that may be asked only every `pace` (a keyed venue's
/// 10 s cache, a daily budget) cannot refresh faster than that, so its quotes get that much more
/// than `staleAfter`: stale means "not refreshed when its source allowed", and a slow source no
/// longer flaps between fresh and stale between two permitted calls.
public struct StalenessPolicy: Sendable, Hashable {
    public var staleAfter: Duration
    public var interval: Duration
    /// Each source's pace; a consensus quote uses the pace at which enough venues can be asked.
    public var paces: [SourceName: Duration]
    public var consensusMinimum: Int

    public init(staleAfter: Duration, interval: Duration = .seconds(1), paces: [SourceName: Duration] = [:], consensusMinimum: Int = 1) {
        self.staleAfter = staleAfter
        self.interval = interval
        self.paces = paces
        self.consensusMinimum = consensusMinimum
    }

    public func limit(for quote: Quote?) -> Duration {
        guard let quote else { return staleAfter }
        let pace: Duration
        if quote.source == .consensus {
            let sorted = paces.values.sorted()
            pace = sorted.isEmpty ? .zero : sorted[min(max(consensusMinimum, 1), sorted.count) - 1]
        } else {
            pace = paces[quote.source] ?? .zero
        }
        return pace > interval ? staleAfter + pace : staleAfter
    }
}

/// How old a quote is. One received by this process is timed on the monotonic clock, which no
/// wall-clock step (NTP, a user, a VM resume) can move: a step back during an outage must not
/// make an hour-old quote look fresh. A restored quote has only its wall-clock stamp.
public struct QuoteAge<Instant: InstantProtocol>: Sendable, Hashable where Instant.Duration == Duration {
    /// When this process received the quote, if it did.
    public let receivedAt: Instant?

    public init(receivedAt: Instant?) { self.receivedAt = receivedAt }

    public func freshness(of quote: Quote?, now: Instant, wallTime: Timestamp, staleAfter: Duration) -> Freshness {
        guard quote != nil, let receivedAt else { return Freshness(of: quote, at: wallTime, staleAfter: staleAfter) }
        return Freshness(ageMilliseconds: receivedAt.duration(to: now).wholeMilliseconds, staleAfter: staleAfter)
    }

    /// How long until the quote turns stale; nil when it already is or there is none.
    public func timeUntilStale(of quote: Quote?, now: Instant, wallTime: Timestamp, staleAfter: Duration) -> Duration? {
        guard quote != nil, let age = freshness(of: quote, now: now, wallTime: wallTime, staleAfter: staleAfter).ageMilliseconds else { return nil }
        return Freshness.timeUntilStale(ageMilliseconds: age, staleAfter: staleAfter)
    }
}
