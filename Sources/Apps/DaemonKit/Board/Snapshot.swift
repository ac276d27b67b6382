import PriceCore
import WireProtocol

/// What the daemon knows at one moment: made once per change (a fetch outcome, a freshness
/// transition, a reload, a disk problem) and rendered once. Socket requests splice only the
/// age into `rendered`; `watch` subscribers get `statusLine`; systemd gets `status`.
public final class Snapshot<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    public let quote: Quote?
    /// Failing sources, then a failing disk: what `last_error` and STATUS= report.
    public let problems: String?
    /// False for a restored quote stamped in the future: its age is unknown, so it is stale.
    public let ageKnown: Bool
    public let age: QuoteAge<Instant>
    /// How old this quote may get before it is stale.
    public let staleLimit: Duration
    /// STATUS= as of the moment the snapshot was made.
    public let status: DaemonStatus
    /// The status as a value, age and state as the snapshot was made; `rendered` is its text.
    let message: StatusMessage
    let rendered: RenderedStatus
    /// The status line as of the moment the snapshot was made.
    public let statusLine: String
    /// The `price` reply: the price, or the nodata error.
    public let priceLine: String
    /// What makes a change of state for watchers; never held back.
    public let stateKey: WatchStateKey

    /// `currency` labels a status with no quote yet.
    public init(quote: Quote?, currency: String = "USD", transport: Transport = .poll, problems: String?, ageKnown: Bool, age: QuoteAge<Instant>, staleLimit: Duration,
         trend: StatusMessage.Trend = .unknown, madeAt now: Instant, wallTime: Timestamp) {
        self.quote = quote
        self.problems = problems
        self.ageKnown = ageKnown
        self.age = age
        self.staleLimit = staleLimit
        let freshness = Self.freshness(of: quote, ageKnown: ageKnown, age: age, staleLimit: staleLimit, now: now, wallTime: wallTime)
        status = StatusSummary.status(quote: quote, freshness: freshness, failures: problems)
        message = StatusMessage(
            price: quote?.price.description,
            currency: quote?.currency ?? currency,
            symbol: quote?.symbol,
            source: quote?.source.rawValue,
            timestamp: quote?.timestamp.rfc3339,
            ageMilliseconds: nil,
            state: .nodata,
            lastError: problems,
            version: ProductVersion.current,
            sources: quote?.contributors.map(\.rawValue) ?? [],
            spread: quote?.spread.map { "\($0)" },
            transport: quote == nil ? nil : transport.rawValue,
            trend: trend
        )
        rendered = message.rendered
        statusLine = rendered.line(ageMilliseconds: freshness.ageMilliseconds, state: StatusMessage.State(freshness.state))
        priceLine = quote.map { "\($0.price)\n" } ?? ErrorReply.noData.line
        stateKey = WatchStateKey(quote: quote, kind: status.kind, transport: transport, problems: problems)
    }

    public func freshness(now: Instant, wallTime: Timestamp) -> Freshness {
        Self.freshness(of: quote, ageKnown: ageKnown, age: age, staleLimit: staleLimit, now: now, wallTime: wallTime)
    }

    static func freshness(of quote: Quote?, ageKnown: Bool, age: QuoteAge<Instant>, staleLimit: Duration,
                                  now: Instant, wallTime: Timestamp) -> Freshness {
        ageKnown ? age.freshness(of: quote, now: now, wallTime: wallTime, staleAfter: staleLimit) : .unknownAge
    }

    /// STATUS= as of `now` (the age ticks while stale).
    public func status(now: Instant, wallTime: Timestamp) -> DaemonStatus {
        StatusSummary.status(quote: quote, freshness: freshness(now: now, wallTime: wallTime), failures: problems)
    }

    /// The status as a value as of `now`: the snapshot's, with the age and state of then.
    public func statusMessage(now: Instant, wallTime: Timestamp) -> StatusMessage {
        let freshness = freshness(now: now, wallTime: wallTime)
        var message = message
        message.ageMilliseconds = freshness.ageMilliseconds
        message.state = StatusMessage.State(freshness.state)
        return message
    }

    /// The status line as of `now`: only the age and state are rendered here.
    public func statusLine(now: Instant, wallTime: Timestamp) -> String {
        let freshness = freshness(now: now, wallTime: wallTime)
        return rendered.line(ageMilliseconds: freshness.ageMilliseconds, state: StatusMessage.State(freshness.state))
    }
}

/// The STATUS kind, the source and how the quote came, and the problems. Price, age and trend
/// are not part of it.
public struct WatchStateKey: Sendable, Hashable {
    public let kind: StatusKind
    public let source: SourceName?
    public let contributors: [SourceName]
    public let transport: Transport?
    public let problems: String?

    public init(quote: Quote?, kind: StatusKind, transport: Transport, problems: String?) {
        self.kind = kind
        source = quote?.source
        contributors = quote?.contributors ?? []
        self.transport = quote == nil ? nil : transport
        self.problems = problems
    }
}

/// How the current quote arrived.
public enum Transport: String, Sendable, Hashable {
    case stream, poll
}

extension StatusMessage.State {
    public init(_ state: FreshnessState) {
        switch state {
        case .fresh: self = .fresh
        case .stale: self = .stale
        case .nodata: self = .nodata
        }
    }
}
