import AsyncHTTPClient
import PriceCore

extension Venue {
    public func quoteAsset(_ options: VenueOptions) -> String { rest.quoteAsset(options) }

    public func limits(_ options: VenueOptions) -> SourceLimits { rest.limits(options) }

    /// The full request URL for a base URL.
    public func requestURL(baseURL: String, _ options: VenueOptions) -> String {
        baseURL.trimmingTrailingSlash + rest.path(options)
    }

    /// The stream's connect URL for a base URL (kept as given when the venue adds no path); nil
    /// for a venue without a stream.
    public func streamURL(baseURL: String, _ options: VenueOptions) -> String? {
        guard let path = stream?.path(options) else { return nil }
        return path.isEmpty ? baseURL : baseURL.trimmingTrailingSlash + path
    }

    /// The venue's REST source, asking `baseURL`.
    public func source(baseURL: String, _ options: VenueOptions, client: HTTPClient, timeout: Duration, userAgent: String) -> HTTPPriceSource {
        let parse = rest.parse
        let occasional = rest.occasional.map { form in
            OccasionalRequest(url: baseURL.trimmingTrailingSlash + form.path(options), every: form.every) { response throws(FetchFailure) in
                try form.parse(response, options)
            }
        }
        return HTTPPriceSource(name: name, quoteAsset: quoteAsset(options), limits: limits(options),
                               url: requestURL(baseURL: baseURL, options), client: client, requestTimeout: timeout,
                               userAgent: userAgent, extraHeaders: rest.headers(options), occasional: occasional) { response throws(FetchFailure) in
            try parse(response, options)
        }
    }
}
