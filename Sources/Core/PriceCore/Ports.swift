/// A market that can be asked for the current BTC price.
public protocol PriceSource: Sendable {
    var name: SourceName { get }
    /// What its prices are counted in (`USD`, `USDT`), known before asking.
    var quoteAsset: String { get }
    var limits: SourceLimits { get }
    /// Throws `FetchFailure`; anything else is reported as a transport failure.
    func fetchQuote() async throws -> SourceQuote
    /// Its own limit on an attempt, where it knows better than the chain's timeout (a route
    /// through a proxy counts its connection apart); nil for the chain's.
    var attemptLimit: AttemptLimit? { get }
    /// The proxy its requests go through, as messages name it; nil when direct. Venues behind
    /// one proxy share its fate: when it is down, none of them is asked through it again that cycle.
    var proxy: String? { get }
}

extension PriceSource {
    public var attemptLimit: AttemptLimit? { nil }
    public var proxy: String? { nil }
}

/// How long one attempt at a source may take, and what running out of it reads as.
public struct AttemptLimit: Sendable, Hashable {
    public let duration: Duration
    public let failure: FetchFailure

    public init(_ duration: Duration, failure: FetchFailure) {
        self.duration = duration
        self.failure = failure
    }
}

/// Where the latest quote survives restarts.
public protocol QuoteStore: Sendable {
    /// Where it keeps the quote, for messages.
    var path: String { get }
    func load() throws -> StoredQuote
    func save(_ quote: Quote) throws
}

public enum StoredQuote: Sendable, Equatable {
    case none
    case quote(Quote)
    /// The file was unreadable as a quote and has been moved aside; the reason says why.
    case quarantined(reason: String, movedTo: String)
    /// A valid quote from another exchange URL than configured now (a test or fake exchange):
    /// not served, and overwritten by the next save.
    case foreign(Quote, reason: String)
}

/// The wall clock that stamps quotes. Injected so tests control time.
public protocol WallClock: Sendable {
    func now() -> Timestamp
}

/// Randomness for jitter, injected so backoff is testable.
public protocol JitterSource: Sendable {
    /// A value in 0...1 exclusive of nothing in particular; only its distribution matters.
    func unitInterval() -> Double
}

public struct SystemJitter: JitterSource {
    public init() {}
    public func unitInterval() -> Double { Double.random(in: 0...1) }
}

/// What a request to a venue is for. Each kind keeps its own pace, and the catalog sets the
/// paces so that the kinds together stay inside the venue's published limits.
public enum RequestKind: String, Sendable, Hashable, CaseIterable {
    /// A price fetch (a poll).
    case price
    /// Candles for the history (the backfill).
    case candles
}

/// The calls every btcpriced on this host makes to one venue. Venue limits are per IP, so
/// instances serving other currencies keep one pace between them.
public protocol HostPace: Sendable {
    /// Whether a request of `kind` to `source` may start at `wallTime`, at most one every `pace`
    /// of that kind from all instances together; a request allowed is recorded as made.
    func claim(_ source: SourceName, kind: RequestKind, pace: Duration, at wallTime: Timestamp) -> Bool
}

extension HostPace {
    /// A price fetch's claim.
    public func claim(_ source: SourceName, pace: Duration, at wallTime: Timestamp) -> Bool {
        claim(source, kind: .price, pace: pace, at: wallTime)
    }
}

/// A venue's stream of prices, one connection at a time. The daemon's supervisor decides when
/// to connect, when a connection stalled and when to try again; this only runs a connection.
public protocol PriceStream: Sendable {
    /// Runs one connection until it ends and says how. `opened` is called once the venue took
    /// the connection, `received` with what each message says, in order. Cancelling the task
    /// closes the connection at once.
    func run<Instant>(opened: @escaping @Sendable () -> Void,
                      received: @escaping @Sendable ([StreamEvent]) -> Void) async -> StreamLink<Instant>.Ending
}

/// Where blocking file IO runs, off the threads that serve (a thread pool in production).
public protocol BlockingWork: Sendable {
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T
}

/// Where every venue's rest and budget survive restarts, so a restart loop never asks early.
public protocol RestraintStore: Sendable {
    /// Where it keeps them, for messages.
    var path: String { get }
    /// Empty when nothing was kept; throws when what was kept is unreadable.
    func load() throws -> [SourceName: SourceRestraint]
    func save(_ restraints: [SourceName: SourceRestraint]) throws
}

/// Where the minute history survives restarts.
public protocol HistoryStore: Sendable {
    /// Where it keeps it, for messages.
    var path: String { get }
    /// The currency it is kept in.
    var currency: String { get }
    func load() throws -> StoredHistory
    /// Replaces what is kept with `history`.
    func save(_ history: PriceHistory) throws
    /// Adds `bars` after what is kept, the first being the last kept minute again; false when
    /// that cannot be done and the history must be saved whole.
    func append(_ bars: ArraySlice<MinuteBar>) throws -> Bool
}

/// What a state file kept in one currency (`history.txt`, `daily.txt`) held at start.
public enum Stored<Value: Sendable & Equatable>: Sendable, Equatable {
    case none
    case kept(Value)
    /// Unreadable; moved aside so the next save does not destroy the evidence.
    case quarantined(reason: String, movedTo: String)
    /// Kept in another currency (the instance's BTCPRICED_CURRENCY changed); moved aside whole.
    case otherCurrency(String, movedTo: String)
}

public typealias StoredHistory = Stored<PriceHistory>
public typealias StoredDaily = Stored<DailyHistory>

/// Where the daily bars survive restarts (`daily.txt`).
public protocol DailyStore: Sendable {
    /// Where it keeps them, for messages.
    var path: String { get }
    func load() throws -> StoredDaily
    /// Replaces what is kept with `daily`.
    func save(_ daily: DailyHistory) throws
}
