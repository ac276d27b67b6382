import AsyncHTTPClient
import Exchanges
import PriceCore

extension Venue {
    /// The venue's REST source, asking `baseURL` (through `proxy`, as messages name it).
    public func source(baseURL: String, _ options: VenueOptions, client: HTTPClient, timeout: Duration, userAgent: String) -> HTTPPriceSource {
        source(baseURL: baseURL, options, client: client, timeouts: RouteTimeouts(connect: nil, answer: timeout), userAgent: userAgent)
    }

    public func source(baseURL: String, _ options: VenueOptions, client: HTTPClient, timeouts: RouteTimeouts, proxy: ProxyURL? = nil,
                       userAgent: String) -> HTTPPriceSource {
        let parse = rest.parse
        let occasional = rest.occasional.map { form in
            OccasionalRequest(url: requestURL(baseURL: baseURL, path: form.path(options)), every: form.every) { response throws(FetchFailure) in
                try form.parse(response, options)
            }
        }
        return HTTPPriceSource(name: name, quoteAsset: quoteAsset(options), limits: limits(options, baseURL: baseURL),
                               url: requestURL(baseURL: baseURL, options), client: client, timeouts: timeouts, proxy: proxy,
                               userAgent: userAgent, extraHeaders: rest.headers(options), occasional: occasional) { response throws(FetchFailure) in
            try parse(response, options)
        }
    }
}
