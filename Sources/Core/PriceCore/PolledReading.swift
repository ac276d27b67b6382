import FoundationEssentials

/// A fetch cycle's price as its venues answered it, not yet dated. The intake dates it on
/// arrival with the rule that dates a streamed trade (`ExchangeTime`), so every quote the board
/// holds was stamped in one place.
public struct PolledReading: Sendable, Hashable {
    public let price: Price
    public let currency: String
    public let symbol: String
    public let source: SourceName
    /// The venues behind it: the source alone, or those a consensus used.
    public let contributors: [SourceName]
    /// Highest minus lowest price among the contributors of a consensus; nil otherwise.
    public let spread: Decimal?
    /// How each contributing answer was dated by its venue or a cache: a median is as old as
    /// its oldest answer.
    public let origins: [AnswerOrigin]

    public init(price: Price, currency: String, symbol: String, source: SourceName, contributors: [SourceName]? = nil,
                spread: Decimal? = nil, origins: [AnswerOrigin] = []) {
        self.price = price
        self.currency = currency
        self.symbol = symbol
        self.source = source
        self.contributors = contributors ?? [source]
        self.spread = spread
        self.origins = origins
    }

    /// One venue's answer, as the fallback chain takes it.
    public init(_ answer: SourceQuote, from source: SourceName) {
        self.init(price: answer.price, currency: answer.quoteAsset, symbol: answer.symbol, source: source,
                  origins: [AnswerOrigin(answer)])
    }

    /// The quote served for it when it arrives at `wallTime`, and how old it already was then.
    public func stamped(receivedAt wallTime: Timestamp) -> (quote: Quote, ageOnArrival: Duration) {
        stamped(receivedAt: wallTime) { ExchangeTime.stamp(origin: $0.time, cacheAge: $0.cacheAge, receivedAt: wallTime) }
    }

    /// The same, each answer dated by `date` (the daemon's, which knows the host clock's offset).
    public func stamped(receivedAt wallTime: Timestamp,
                        dating date: (AnswerOrigin) -> (timestamp: Timestamp, ageOnArrival: Duration)) -> (quote: Quote, ageOnArrival: Duration) {
        let oldest = origins.map(date).max { $0.ageOnArrival < $1.ageOnArrival } ?? (wallTime, .zero)
        return (Quote(price: price, currency: currency, symbol: symbol, source: source, timestamp: oldest.timestamp,
                      contributors: contributors, spread: spread), oldest.ageOnArrival)
    }
}

/// When an answer's origin made it, if it said, and how long caches held it.
public struct AnswerOrigin: Sendable, Hashable {
    public let time: Timestamp?
    public let cacheAge: Duration
    /// The venue's clock as the answer left it (`SourceQuote.venueClock`).
    public let venueClock: Timestamp?

    public init(time: Timestamp?, cacheAge: Duration = .zero, venueClock: Timestamp? = nil) {
        self.time = time
        self.cacheAge = cacheAge
        self.venueClock = venueClock
    }

    public init(_ answer: SourceQuote) {
        self.init(time: answer.originTime, cacheAge: answer.cacheAge, venueClock: answer.venueClock)
    }
}
