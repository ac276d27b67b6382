import AsyncHTTPClient
import CoreMetrics
import Exchanges
import Logging
import NIOCore
import NIOHTTP1
import NIOSOCKS
import PriceCore
import Synchronization

/// A `PriceSource` that GETs one URL with AsyncHTTPClient and hands the answer to a pure parser.
public struct HTTPPriceSource: PriceSource {
    public static let bodyLimit = 64 * 1024

    public let name: SourceName
    public let quoteAsset: String
    public let limits: SourceLimits
    /// Made once: a request's URL is parsed when it is made, and every cycle asks the same one.
    let request: Result<HTTPClient.Request, any Error>
    let client: HTTPClient
    /// How long the connection and the answer may take on this venue's route.
    let timeouts: RouteTimeouts
    /// The proxy the requests go through, as messages name it; nil when direct.
    let route: ProxyURL?
    public var proxy: String? { route?.description }
    let parse: @Sendable (ExchangeResponse) throws(FetchFailure) -> SourceQuote
    /// The occasional form, with its request made once too.
    let occasional: (form: OccasionalRequest, request: Result<HTTPClient.Request, any Error>)?
    /// Every request's time, answered or not (a cancelled one until its cut).
    let duration: CoreMetrics.Timer
    let metrics: any MetricsFactory

    public init(name: SourceName, quoteAsset: String, limits: SourceLimits, url: String, client: HTTPClient,
                timeouts: RouteTimeouts, proxy: ProxyURL? = nil, userAgent: String, extraHeaders: [String: String] = [:],
                occasional: OccasionalRequest? = nil, metrics: any MetricsFactory = MetricsSystem.factory,
                parse: @escaping @Sendable (ExchangeResponse) throws(FetchFailure) -> SourceQuote) {
        duration = CoreMetrics.Timer(label: "btcpriced_fetch_duration_seconds", dimensions: [("source", name.rawValue)], factory: metrics)
        self.metrics = metrics
        self.name = name
        self.quoteAsset = quoteAsset
        self.limits = limits
        self.client = client
        self.timeouts = timeouts
        self.route = proxy
        var headers = HTTPHeaders([("User-Agent", userAgent), ("Accept", "application/json")])
        for (field, value) in extraHeaders.sorted(by: { $0.key < $1.key }) { headers.add(name: field, value: value) }
        request = Result { try HTTPClient.Request(url: url, headers: headers) }
        self.occasional = occasional.map { form in (form, Result { try HTTPClient.Request(url: form.url, headers: headers) }) }
        self.parse = parse
    }

    /// With its connection counted apart, an attempt may take both budgets; AsyncHTTPClient's
    /// own timeouts end it a little earlier, so the failure names the phase that ran out.
    public var attemptLimit: AttemptLimit? {
        guard timeouts.connect != nil else { return nil }
        let failure: FetchFailure = route.map { .proxy(ProxyTrouble(.noAnswer(within: timeouts.answer), proxy: $0.description, isSOCKS: $0.isSOCKS)) }
            ?? .timeout(after: timeouts.attempt)
        return AttemptLimit(timeouts.attempt + .seconds(1), failure: failure)
    }

    public func fetchQuote() async throws -> SourceQuote {
        guard let (occasional, occasionalRequest) = self.occasional, occasional.isDue() else { return try await fetch(request, parse) }
        do {
            let quote = try await fetch(occasionalRequest, occasional.parse)
            occasional.rest(for: occasional.period)
            return quote
        } catch let failure as FetchFailure where failure.isAboutTheAnswer {
            // The venue answered, but not as expected (a proxy without that path, a changed
            // format): rest the occasional form for an hour and ask the plain one now.
            occasional.rest(for: .seconds(3600))
            return try await fetch(request, parse)
        }
    }

    private func fetch(_ request: Result<HTTPClient.Request, any Error>,
                       _ parse: @Sendable (ExchangeResponse) throws(FetchFailure) -> SourceQuote) async throws -> SourceQuote {
        let started = ContinuousClock.now
        defer { duration.recordNanoseconds(started.duration(to: .now).wholeNanoseconds) }
        let response = try await Self.get(request, client: client, timeouts: timeouts, proxy: route)
        // The venue's own count of request weight used in its window, where it sends one.
        if let used = response.usedWeight.flatMap({ Int($0.trimmingBlanks) }) {
            Gauge(label: "btcpriced_rate_limit_used", dimensions: [("source", name.rawValue), ("window", "1m")], factory: metrics).record(used)
        }
        return try parse(response).dated(httpDate: response.date, cacheAge: response.age, cached: response.cached)
    }

    /// One GET of a venue's, its answer as the parsers read it; a failure as `FetchFailure`, or
    /// `CancellationError` when the task was cancelled.
    static func get(_ request: Result<HTTPClient.Request, any Error>, client: HTTPClient, timeouts: RouteTimeouts,
                    proxy: ProxyURL?, bodyLimit: Int = bodyLimit) async throws -> ExchangeResponse {
        do {
            let request = try request.get()
            // AsyncHTTPClient's future API: its async one starts a task on the global executor for
            // every request (its cancel handler is an actor), which woke one of libdispatch's threads
            // and then the loop. This one answers on the loop, where the fetch runs. The deadline is
            // only a backstop, so that a request never outlives its cycle by much: the core races its
            // own (injectable) timeout.
            let task = client.execute(request: request, delegate: ResponseAccumulator(request: request, maxBodySize: bodyLimit),
                                      eventLoop: .indifferent, deadline: .now() + TimeAmount(timeouts.attempt + .milliseconds(200)),
                                      logger: nil)
            let http = try await withTaskCancellationHandler { try await task.futureResult.get() } onCancel: { task.cancel() }
            return ExchangeResponse(status: Int(http.status.code), retryAfter: http.headers.first(name: "Retry-After"),
                                    usedWeight: http.headers.first(name: "X-MBX-USED-WEIGHT-1M"), date: http.headers.first(name: "Date"),
                                    age: http.headers.first(name: "Age"), body: http.body.map { Array(buffer: $0) } ?? [])
        } catch {
            // A cancelled request fails with AsyncHTTPClient's own error; the core wants to know
            // it was cancelled, not that the venue failed.
            if Task.isCancelled { throw CancellationError() }
            throw Self.failure(for: error, timeouts: timeouts, proxy: proxy, bodyLimit: bodyLimit)
        }
    }

    /// Turns AsyncHTTPClient's and NIO's errors into something an operator can act on; through
    /// a proxy, naming the proxy and the phase (connecting, answering) that failed.
    static func failure(for error: any Error, timeouts: RouteTimeouts, proxy: ProxyURL? = nil, bodyLimit: Int = bodyLimit) -> FetchFailure {
        if error is ResponseAccumulator.ResponseTooBigError { return .bodyTooLarge(limit: bodyLimit) }
        if let proxy, let trouble = proxyTrouble(error, timeouts: timeouts, isSOCKS: proxy.isSOCKS) {
            return .proxy(ProxyTrouble(trouble, proxy: proxy.description, isSOCKS: proxy.isSOCKS))
        }
        if let http = error as? HTTPClientError {
            switch http {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout: return .timeout(after: timeouts.attempt)
            case .cancelled: return .transport("request cancelled")
            case .remoteConnectionClosed: return .transport("connection closed by the exchange")
            default: return .transport(String(String(describing: http).prefix(160)))
            }
        }
        let text = String(describing: error)
        if text.contains("connectTimeout") || text.contains("Timeout") { return .timeout(after: timeouts.attempt) }
        if text.contains("Connection refused") || text.contains("connection refused") { return .transport("connection refused") }
        if text.contains("NXDOMAIN") || text.contains("getaddrinfo") || text.contains("lookup") || text.contains("UnknownHost") {
            return .transport("DNS lookup failed")
        }
        return .transport(String(text.prefix(160)))
    }

    /// Which phase through a proxy `error` ended, where it says.
    private static func proxyTrouble(_ error: any Error, timeouts: RouteTimeouts, isSOCKS: Bool) -> ProxyTrouble.Kind? {
        if let failed = error as? SOCKSError.ConnectionFailed { return .socksReply(failed.reply.value) }
        let connect = timeouts.connect ?? timeouts.answer
        if let http = error as? HTTPClientError {
            switch http {
            case .socksHandshakeTimeout, .httpProxyHandshakeTimeout:
                return .noHandshake(within: connect)
            case .connectTimeout, .tlsHandshakeTimeout, .getConnectionFromPoolTimeout:
                return .noConnection(within: connect)
            case .deadlineExceeded, .readTimeout, .writeTimeout: return .noAnswer(within: timeouts.answer)
            case .proxyAuthenticationRequired, .invalidProxyResponse: return nil
            default: break
            }
        }
        let text = String(describing: error)
        if text.contains("Connection refused") || text.contains("connection refused") { return .refused }
        if text.contains("connectTimeout") { return .noConnection(within: connect) }
        return nil
    }
}

/// A request a source makes instead of its plain one at most once a `period`: it weighs the same
/// against the venue's limits and its answer says more (a 24 h ticker's day range).
public final class OccasionalRequest: Sendable {
    let url: String
    let period: Duration
    let parse: @Sendable (ExchangeResponse) throws(FetchFailure) -> SourceQuote
    private let nextAt = Mutex<ContinuousClock.Instant?>(nil)

    public init(url: String, every period: Duration, parse: @escaping @Sendable (ExchangeResponse) throws(FetchFailure) -> SourceQuote) {
        self.url = url
        self.period = period
        self.parse = parse
    }

    /// Whether this cycle's request should be the occasional one. It stays due until it has
    /// been answered: a timeout or an outage does not use up the period.
    func isDue(now: ContinuousClock.Instant = .now) -> Bool {
        nextAt.withLock { next in next.map { $0 <= now } ?? true }
    }

    func rest(for duration: Duration, now: ContinuousClock.Instant = .now) {
        nextAt.withLock { $0 = now.advanced(by: duration) }
    }
}

extension FetchFailure {
    /// The venue answered, and the answer itself was wrong; not a limit, a block or an outage.
    var isAboutTheAnswer: Bool {
        switch self {
        case .httpStatus(let code): code < 500
        case .bodyTooLarge, .notJSON, .missingField, .wrongSymbol, .invalidPrice, .exchangeError, .staleAnswer: true
        // A block page answers the client, not the path: the plain request would get it too.
        case .timeout, .transport, .rateLimited, .geoRestricted, .unauthorized, .htmlPage, .newCircuit, .proxy: false
        // The daemon's own check of a parsed price; no source reports these.
        case .unconfirmedPrice, .implausiblePrice: false
        }
    }
}
