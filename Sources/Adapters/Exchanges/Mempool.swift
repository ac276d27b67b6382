import JSONText
import PriceCore
import WireProtocol

/// mempool's `GET /api/v1/prices` → `{"time":1763740800,"USD":85866,"EUR":74118,…}`: whole
/// units as JSON numbers, all currencies in one answer. `time` is when its price updater last
/// ran (seconds; 0 before the first run), and a currency it has no price for is `-1`.
/// A node runner's own instance (Umbrel, Start9, RaspiBlitz, nix-bitcoin) serves the same path,
/// on the LAN or as a .onion.
public enum MempoolAPI {
    public static let currencies = Currency.mempoolCodes
    public static let path = "/api/v1/prices"
    /// The public instance publishes no limit for this path; its answer changes at most once a
    /// minute, so one call every 10 s is polite. All instances on a host together: the same.
    public static let publicLimits = SourceLimits(minimumInterval: .seconds(10), hostInterval: .seconds(10))
    /// Someone's own instance, asked at the configured interval.
    public static let ownInstanceLimits = SourceLimits(minimumInterval: .seconds(1), hostInterval: .milliseconds(500))
    /// The hosts of the public instance: its clearnet name and its onion service.
    public static let publicHosts = ["mempool.space", "mempoolhqx4isw62xs7abwphsq7ldayuidyx2v2oethdhhj6mlo2r6ad.onion"]
    /// How often a self-hosted instance's prices change by default (`PRICE_UPDATES_PER_HOUR=1`).
    public static let defaultUpdateInterval = Duration.seconds(3600)
    public static let updateIntervalReason = "a self-hosted mempool updates once an hour unless its PRICE_UPDATES_PER_HOUR says otherwise"

    /// The limits for a base URL: the public instance's unless the host is someone's own.
    public static func limits(baseURL: String) -> SourceLimits {
        isPublic(baseURL: baseURL) ? publicLimits : ownInstanceLimits
    }

    public static func isPublic(baseURL: String) -> Bool {
        guard let host = URLTarget(baseURL)?.host.lowercased() else { return true }
        return publicHosts.contains { host == $0 || host.hasSuffix("." + $0) }
    }

    public static func parse(_ response: ExchangeResponse, currency: String = "USD") throws(FetchFailure) -> SourceQuote {
        try ResponseChecks.requireSuccess(response)
        let json = try response.json()
        guard let value = json[currency] else { throw .missingField(currency) }
        if value.numberLiteral.map({ $0.hasPrefix("-") }) == true {
            throw .exchangeError("no BTC/\(currency) price yet (\(currency): \(value.encoded)); its price updater has not reached any exchange")
        }
        return SourceQuote(price: try ResponseChecks.price(value, field: currency), symbol: "BTC" + currency, quoteAsset: currency,
                           originTime: ResponseChecks.epochSeconds(json["time"]))
    }
}
