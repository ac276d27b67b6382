import PriceCore

/// One request for the BTC price in several currencies, where the venue's API takes a list of
/// pairs (Kraken's Ticker, Binance's `symbols`, CryptoCompare's `tsyms`): a daemon serving
/// several currencies asks such a venue once a cycle for all of them.
public struct BatchEndpoint: Sendable {
    public typealias Answers = [String: Result<SourceQuote, FetchFailure>]

    /// The path and query for `currencies` (ISO 4217 codes), the options giving the rest.
    public let path: @Sendable (VenueOptions, _ currencies: [String]) -> String
    /// Each currency's quote, or why the answer has none for it; throws when the answer as a
    /// whole is a failure (an error, a rate limit), which every currency shares.
    public let parse: @Sendable (ExchangeResponse, VenueOptions, _ currencies: [String]) throws(FetchFailure) -> Answers

    public init(path: @escaping @Sendable (VenueOptions, [String]) -> String,
                parse: @escaping @Sendable (ExchangeResponse, VenueOptions, [String]) throws(FetchFailure) -> Answers) {
        self.path = path
        self.parse = parse
    }
}

extension VenueOptions {
    /// These options for another currency (a batch asks each currency's own market).
    public func inCurrency(_ currency: String) -> VenueOptions { VenueOptions(currency: currency, values: values) }
}
