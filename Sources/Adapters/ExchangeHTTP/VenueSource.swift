import AsyncHTTPClient
import Exchanges
import PriceCore

extension Venue {
    /// The venue's REST source, asking `baseURL`.
    public func source(baseURL: String, _ options: VenueOptions, client: HTTPClient, timeout: Duration, userAgent: String) -> HTTPPriceSource {
        let parse = rest.parse
        let occasional = rest.occasional.map { form in
            OccasionalRequest(url: requestURL(baseURL: baseURL, path: form.path(options)), every: form.every) { response throws(FetchFailure) in
                try form.parse(response, options)
            }
        }
        return HTTPPriceSource(name: name, quoteAsset: quoteAsset(options), limits: limits(options, baseURL: baseURL),
                               url: requestURL(baseURL: baseURL, options), client: client, requestTimeout: timeout,
                               userAgent: userAgent, extraHeaders: rest.headers(options), occasional: occasional) { response throws(FetchFailure) in
            try parse(response, options)
        }
    }
}
