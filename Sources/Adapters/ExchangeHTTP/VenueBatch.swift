import AsyncHTTPClient
import Exchanges
import NIOHTTP1
import PriceCore
import Synchronization

/// One venue asked once for every currency it serves (BTCPRICED_CURRENCIES), where its API takes
/// a list of pairs: each currency's source (`BatchMember`) takes its quote from the same answer.
/// An answer younger than the venue's own interval serves every currency that asks in that time,
/// and one on its way is waited for, not asked again: the venue sees about one request per
/// interval however many currencies it serves.
public final class VenueBatch: Sendable {
    public let name: SourceName
    public let currencies: [String]
    /// How long an answer serves: the interval one currency alone would ask at.
    let reuseFor: Duration
    let request: Result<HTTPClient.Request, any Error>
    let client: HTTPClient
    let timeouts: RouteTimeouts
    let route: ProxyURL?
    let parse: @Sendable (ExchangeResponse) throws(FetchFailure) -> BatchEndpoint.Answers
    /// The time an answer's age is counted on: the monotonic clock, or a test's.
    let now: @Sendable () -> ContinuousClock.Instant

    private enum Phase {
        case idle
        /// The request is out; these wait for its answer.
        case asking(waiters: [CheckedContinuation<BatchEndpoint.Answers, any Error>])
        case answered(BatchEndpoint.Answers, at: ContinuousClock.Instant)
        /// The last request failed: a currency that waited for it hears why; the next asks again.
        case failed(any Error)
    }
    private let phase = Mutex(Phase.idle)

    public init(venue: Venue, currencies: [String], options: VenueOptions, baseURL: String, client: HTTPClient, timeouts: RouteTimeouts,
                proxy: ProxyURL?, userAgent: String, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        name = venue.name
        self.now = now
        self.currencies = currencies
        reuseFor = venue.limits(options, baseURL: baseURL).minimumInterval
        self.client = client
        self.timeouts = timeouts
        route = proxy
        let batch = venue.rest.batch
        var headers = HTTPHeaders([("User-Agent", userAgent), ("Accept", "application/json")])
        for (field, value) in venue.rest.headers(options).sorted(by: { $0.key < $1.key }) { headers.add(name: field, value: value) }
        let url = venue.requestURL(baseURL: baseURL, path: batch?.path(options, currencies) ?? venue.rest.path(options))
        request = Result { try HTTPClient.Request(url: url, headers: headers) }
        parse = { response throws(FetchFailure) in
            guard let batch else { throw .exchangeError("\(venue.name) takes no list of pairs") }
            return try batch.parse(response, options, currencies)
        }
    }

    /// Whether a request now would be answered without asking the venue: an answer within its
    /// interval, or one on its way. The host's pace is claimed only for a request that goes out.
    public var answersWithoutAsking: Bool {
        phase.withLock { phase in
            switch phase {
            case .idle, .failed: false
            case .asking: true
            case .answered(_, let at): at.duration(to: now()) < reuseFor
            }
        }
    }

    /// `currency`'s quote: from the answer within its interval (aged by its time held), from
    /// the request on its way, or from a request made now for every currency.
    func quote(for currency: String) async throws -> SourceQuote {
        enum Step { case reuse(BatchEndpoint.Answers, held: Duration), wait, ask }
        let now = self.now()
        let step: Step = phase.withLock { phase in
            switch phase {
            case .answered(let answers, let at) where at.duration(to: now) < reuseFor: return .reuse(answers, held: at.duration(to: now))
            case .asking: return .wait
            default:
                phase = .asking(waiters: [])
                return .ask
            }
        }
        switch step {
        case .reuse(let answers, let held):
            return try Self.pick(currency, from: answers).held(for: held)
        case .wait:
            return try Self.pick(currency, from: try await waitForTheAnswer())
        case .ask:
            return try Self.pick(currency, from: try await ask())
        }
    }

    private func waitForTheAnswer() async throws -> BatchEndpoint.Answers {
        try await withCheckedThrowingContinuation { continuation in
            let answered: Result<BatchEndpoint.Answers, any Error>? = phase.withLock { phase in
                switch phase {
                case .asking(var waiters):
                    waiters.append(continuation)
                    phase = .asking(waiters: waiters)
                    return nil
                case .answered(let answers, _): return .success(answers)
                case .failed(let error): return .failure(error)
                case .idle: return .failure(FetchFailure.transport("\(name)'s request for every currency ended without an answer"))
                }
            }
            if let answered { continuation.resume(with: answered) }
        }
    }

    /// Asks the venue for every currency and hands the answer (or the failure) to those waiting.
    private func ask() async throws -> BatchEndpoint.Answers {
        let result: Result<BatchEndpoint.Answers, any Error>
        do {
            let response = try await HTTPPriceSource.get(request, client: client, timeouts: timeouts, proxy: route)
            let answers = try parse(response)
            result = .success(answers.mapValues { $0.map { $0.dated(httpDate: response.date, cacheAge: response.age, cached: response.cached) } })
        } catch {
            result = .failure(error)
        }
        let waiters: [CheckedContinuation<BatchEndpoint.Answers, any Error>] = phase.withLock { phase in
            guard case .asking(let waiters) = phase else { return [] }
            switch result {
            case .success(let answers): phase = .answered(answers, at: now())
            case .failure(let error): phase = .failed(error)
            }
            return waiters
        }
        for waiter in waiters { waiter.resume(with: result) }
        return try result.get()
    }

    private static func pick(_ currency: String, from answers: BatchEndpoint.Answers) throws -> SourceQuote {
        guard let answer = answers[currency] else { throw FetchFailure.missingField("\(currency) in the answer") }
        return try answer.get()
    }
}

/// One currency's source at a batched venue: a `PriceSource` like any other to its chain.
public struct BatchMember: PriceSource {
    public let name: SourceName
    public let quoteAsset: String
    public let limits: SourceLimits
    let batch: VenueBatch
    let currency: String

    public init(_ batch: VenueBatch, currency: String, quoteAsset: String, limits: SourceLimits) {
        name = batch.name
        self.batch = batch
        self.currency = currency
        self.quoteAsset = quoteAsset
        self.limits = limits
    }

    public var proxy: String? { batch.route?.description }

    public func fetchQuote() async throws -> SourceQuote { try await batch.quote(for: currency) }
}

extension SourceQuote {
    /// The same answer served again after `held`: older by that much, and no reading of the
    /// venue's clock (its `Date` is as old).
    func held(for held: Duration) -> SourceQuote {
        guard held > .zero else { return self }
        return SourceQuote(price: price, symbol: symbol, quoteAsset: quoteAsset, pauseRequested: pauseRequested, day: day,
                           originTime: originTime, cacheAge: cacheAge + held, venueClock: nil)
    }
}

/// The host's pace with batched venues: a currency that can take its quote from an answer
/// within the venue's interval, or from one on its way, asks the venue nothing, so it claims
/// nothing; a request that goes out claims as any other.
public struct BatchedHostPace: HostPace {
    let inner: any HostPace
    let batches: [SourceName: VenueBatch]

    public init(_ inner: any HostPace, batches: [SourceName: VenueBatch]) {
        self.inner = inner
        self.batches = batches
    }

    public func claim(_ source: SourceName, kind: RequestKind, pace: Duration, at wallTime: Timestamp) -> Bool {
        if kind == .price, let batch = batches[source], batch.answersWithoutAsking { return true }
        return inner.claim(source, kind: kind, pace: pace, at: wallTime)
    }
}
