import JSONText
import PriceCore
import WireProtocol

/// Coinbase's reference rates, for a currency no market in the catalog trades BTC in:
/// `GET /v2/exchange-rates?currency=BTC` → `{"data":{"currency":"BTC","rates":{"CZK":"1863020.41",…}}}`,
/// one unit of BTC in each of about 170 fiat currencies (and many tokens), as decimal text. It
/// needs no key. A rate is Coinbase's conversion of its own market through a currency rate, not
/// a trade, so the daemon labels it with this source's own name (`coinbase-rates`) and never
/// asks it while a market for the currency is in the catalog.
public enum CoinbaseRatesAPI {
    public static let path = "/v2/exchange-rates?currency=BTC"
    /// Every currency the daemon knows: Coinbase lists nearly all of them, and one it lacks is
    /// refused with its name (`missingField`) rather than guessed.
    public static let currencies = Currency.allCodes
    /// The same host and API as Coinbase's spot prices, under the same published limit of
    /// 10,000 requests an hour, which the two share: the spot prices take at most 7,200 an hour
    /// from all instances on a host, so the table at most 2,400 (one call every 1.5 s), 9,600
    /// together. One instance asks it every 2 s at most; a conversion table moves slowly.
    public static let limits = SourceLimits(minimumInterval: .seconds(2), hostInterval: .milliseconds(1500))
    /// Coinbase's published limit for this API, shared with the spot prices.
    public static let hourlyLimitSharedWithSpot = 10_000

    public static func symbol(currency: String) -> String { "BTC-\(currency) rate" }

    public static func parse(_ response: ExchangeResponse, currency: String) throws(FetchFailure) -> SourceQuote {
        let data = try CoinbaseAPI.data(of: response)
        let base = data["currency"]?.stringValue ?? "?"
        guard base == "BTC" else { throw .wrongSymbol(expected: "BTC", got: base) }
        guard let rates = data["rates"] else { throw .missingField("data.rates") }
        let field = "data.rates.\(currency)"
        return SourceQuote(price: try ResponseChecks.price(rates[currency], field: field), symbol: symbol(currency: currency), quoteAsset: currency)
    }
}
