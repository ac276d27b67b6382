import AsyncHTTPClient
import Logging
import NIOCore
import PriceCore

/// A `PriceSource` that GETs one URL with AsyncHTTPClient and hands the answer to a pure parser.
public struct HTTPPriceSource: PriceSource {
    public static let bodyLimit = 64 * 1024

    public let name: SourceName
    let url: String
    let client: HTTPClient
    let requestTimeout: Duration
    let userAgent: String
    let parse: @Sendable (ExchangeResponse) throws(FetchFailure) -> SourceQuote

    public init(name: SourceName, url: String, client: HTTPClient, requestTimeout: Duration, userAgent: String,
                parse: @escaping @Sendable (ExchangeResponse) throws(FetchFailure) -> SourceQuote) {
        self.name = name
        self.url = url
        self.client = client
        self.requestTimeout = requestTimeout
        self.userAgent = userAgent
        self.parse = parse
    }

    public static func binance(baseURL: String, symbol: String, client: HTTPClient, timeout: Duration, userAgent: String) -> HTTPPriceSource {
        HTTPPriceSource(name: .binance, url: baseURL.trimmingTrailingSlash + BinanceAPI.path(symbol: symbol), client: client,
                        requestTimeout: timeout, userAgent: userAgent) { response throws(FetchFailure) in
            try BinanceAPI.parse(response, expectedSymbol: symbol)
        }
    }

    public static func cryptoCompare(baseURL: String, client: HTTPClient, timeout: Duration, userAgent: String) -> HTTPPriceSource {
        HTTPPriceSource(name: .cryptoCompare, url: baseURL.trimmingTrailingSlash + CryptoCompareAPI.path, client: client,
                        requestTimeout: timeout, userAgent: userAgent) { response throws(FetchFailure) in
            try CryptoCompareAPI.parse(response)
        }
    }

    public func fetchQuote() async throws -> SourceQuote {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        let response: ExchangeResponse
        do {
            // The core races its own (injectable) timeout; this deadline is only a backstop so a
            // request can never outlive its cycle by much.
            let http = try await client.execute(request, timeout: .milliseconds(requestTimeout.wholeMilliseconds + 200))
            let body = try await http.body.collect(upTo: Self.bodyLimit)
            response = ExchangeResponse(status: Int(http.status.code), retryAfter: http.headers.first(name: "Retry-After"),
                                        body: Array(buffer: body))
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw Self.failure(for: error, timeout: requestTimeout)
        }
        return try parse(response)
    }

    /// Turns AsyncHTTPClient's and NIO's errors into something an operator can act on.
    static func failure(for error: any Error, timeout: Duration) -> FetchFailure {
        if error is NIOTooManyBytesError { return .bodyTooLarge(limit: bodyLimit) }
        if let http = error as? HTTPClientError {
            switch http {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout: return .timeout(after: timeout)
            case .cancelled: return .transport("request cancelled")
            case .remoteConnectionClosed: return .transport("connection closed by the exchange")
            default: return .transport(String(describing: http))
            }
        }
        let text = String(describing: error)
        if text.contains("connectTimeout") || text.contains("Timeout") { return .timeout(after: timeout) }
        if text.contains("Connection refused") || text.contains("connection refused") { return .transport("connection refused") }
        if text.contains("NXDOMAIN") || text.contains("getaddrinfo") || text.contains("lookup") { return .transport("DNS lookup failed") }
        return .transport(String(text.prefix(160)))
    }
}

extension String {
    var trimmingTrailingSlash: String {
        var result = self
        while result.hasSuffix("/") { result.removeLast() }
        return result
    }
}
