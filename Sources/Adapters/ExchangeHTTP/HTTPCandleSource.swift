import AsyncHTTPClient
import Exchanges
import NIOHTTP1
import PriceCore

/// A venue's candles over HTTPS, asked with the client of the venue's route: the
/// same proxy, Tor circuit, timeouts and headers as its prices.
public struct HTTPCandleSource: CandleSource {
    /// A week of Binance's klines comes 1,000 (about 150 KB) a request.
    public static let bodyLimit = 512 * 1024
    /// The least time an answer may take: a candle answer is a hundred times a price's.
    public static let answerTime = Duration.seconds(10)

    public let name: SourceName
    public var candlePace: Duration { endpoint.pace }
    public var hostClaim: (kind: RequestKind, pace: Duration) {
        endpoint.sharesPriceHostPace ? (.price, priceLimits.hostPace) : (.candles, endpoint.pace)
    }
    /// The venue's price fetches' limits, whose host-wide pace a venue may share.
    let priceLimits: SourceLimits
    public let perRequest: Int
    public let reachesBack: Int64?
    let venue: Venue
    let baseURL: String
    let endpoint: CandleEndpoint
    let options: VenueOptions
    let headers: HTTPHeaders
    let client: HTTPClient
    let timeouts: RouteTimeouts
    let proxy: ProxyURL?

    public var attemptLimit: Duration { timeouts.attempt + .seconds(1) }

    public func candles(_ slots: ClosedRange<Int64>, every interval: CandleInterval) async throws -> CandleBatch {
        let request = Result { try HTTPClient.Request(url: venue.requestURL(baseURL: baseURL, path: endpoint.path(options, interval, slots)), headers: headers) }
        let response = try await HTTPPriceSource.get(request, client: client, timeouts: timeouts, proxy: proxy, bodyLimit: Self.bodyLimit)
        return try endpoint.parse(response, options)
    }
}

extension Venue {
    /// The venue's candles on `baseURL` (its REST one), nil for a venue without them.
    public func candleSource(baseURL: String, _ options: VenueOptions, client: HTTPClient, timeouts: RouteTimeouts, proxy: ProxyURL? = nil,
                             userAgent: String) -> HTTPCandleSource? {
        guard let candles else { return nil }
        var headers = HTTPHeaders([("User-Agent", userAgent), ("Accept", "application/json")])
        for (field, value) in rest.headers(options).sorted(by: { $0.key < $1.key }) { headers.add(name: field, value: value) }
        return HTTPCandleSource(name: name, priceLimits: limits(options, baseURL: baseURL), perRequest: candles.perRequest, reachesBack: candles.reachesBack,
                                venue: self, baseURL: baseURL, endpoint: candles, options: options,
                                headers: headers, client: client,
                                timeouts: RouteTimeouts(connect: timeouts.connect, answer: max(timeouts.answer, HTTPCandleSource.answerTime)), proxy: proxy)
    }
}
