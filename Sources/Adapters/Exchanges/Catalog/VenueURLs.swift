import PriceCore

extension Venue {
    public func quoteAsset(_ options: VenueOptions) -> String { rest.quoteAsset(options) }

    public func limits(_ options: VenueOptions, baseURL: String) -> SourceLimits { rest.limits(options, baseURL) }

    /// The full request URL for a base URL.
    public func requestURL(baseURL: String, _ options: VenueOptions) -> String {
        requestURL(baseURL: baseURL, path: rest.path(options))
    }

    /// A base URL with a path, without doubling the slash between them.
    public func requestURL(baseURL: String, path: String) -> String { baseURL.trimmingTrailingSlash + path }

    /// The stream's connect URL for a base URL (kept as given when the venue adds no path), for
    /// `currencies`' pairs (the options' one by default); nil for a venue without a stream.
    public func streamURL(baseURL: String, _ options: VenueOptions, currencies: [String]? = nil) -> String? {
        guard let path = stream?.path(options, currencies: currencies) else { return nil }
        return path.isEmpty ? baseURL : baseURL.trimmingTrailingSlash + path
    }
}
