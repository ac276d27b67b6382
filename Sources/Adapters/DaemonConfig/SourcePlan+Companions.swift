import Exchanges
import WireProtocol

extension SourcePlan {
    /// The plans of the currencies served beside the primary (`BTCPRICED_CURRENCIES`), in
    /// order. Throws, naming the currency, when one would have no usable venue.
    public static func companions(of settings: DaemonSettings) throws(ConfigError) -> [SourcePlan] {
        var plans: [SourcePlan] = []
        for currency in settings.companionCurrencies {
            do {
                plans.append(try SourcePlan(settings.companion(serving: currency)))
            } catch {
                throw ConfigError("BTCPRICED_CURRENCIES lists \(currency.code), which cannot be served: \(error.description)")
            }
        }
        return plans
    }

    /// `--check-config`'s line for the currency: the venues asked for it in order, with their
    /// pair, and whether the price is a market's or a reference rate.
    public var currencyLine: String {
        let venues = active.map { "\($0.name) (\($0.rest.symbol(options)))" }.joined(separator: ", ")
        let streams = settings.stream.venues(among: active.map(\.name), in: settings.catalog)
        let route = referenceReason == nil ? "markets, over REST" + (streams.isEmpty ? "" : " and the stream")
            : "a reference rate (a conversion, not a trade), labelled \(active.first?.name.rawValue ?? "")"
        return "\(settings.currency.code): \(venues.isEmpty ? "none" : venues); \(route)"
    }
}
