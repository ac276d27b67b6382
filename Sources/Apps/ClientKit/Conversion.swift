import WireProtocol

/// An amount in BTC, sats or the daemon's currency, and what it is worth in each at a price:
/// exact decimals, each figure rounded half to even from the exact value (fiat to its minor
/// units, sats to whole sats, BTC to 8 places), never from another rounded figure.
public struct Conversion: Equatable, Sendable {
    /// What the amount counts: `btc`, `sats`, or a currency code as typed (checked against the
    /// daemon's when the price is known).
    public enum Unit: Equatable, Sendable {
        case btc
        case sats
        case currency(String)

        /// `btc` (or `bitcoin`), `sats` (or `sat`), or an ISO 4217 or stablecoin code,
        /// case-insensitive; nil for anything else.
        public init?(_ text: String) {
            switch text.lowercased() {
            case "btc", "bitcoin": self = .btc
            case "sats", "sat": self = .sats
            case let code where code.count >= 3 && code.count <= 5 && code.allSatisfy({ $0 >= "a" && $0 <= "z" }): self = .currency(code.uppercased())
            default: return nil
            }
        }
    }

    public let btc: String
    public let sats: String
    public let fiat: String
    public let currency: String

    static let btcPlaces = 8

    /// Stablecoins a venue quotes for the dollar: `convert 20 usd` on a USDT quote means them.
    static let dollarStandIns = ["USDT", "USDC"]

    /// `amount` is plain decimal text (already checked); nil when the unit is another currency
    /// than the quote's or the price is not positive decimal text.
    public init?(amount: String, unit: Unit, price: String, currency: String) {
        guard let amount = ExactDecimal(amount), let price = ExactDecimal(price), !price.isZero else { return nil }
        let hundredMillion = ExactDecimal.hundredMillion
        let fiatPlaces = Currency(code: currency)?.minorUnits ?? 2
        let exact: (btc: ExactDecimal?, sats: ExactDecimal?, fiat: ExactDecimal?)
        switch unit {
        case .btc:
            exact = (amount.rounded(places: Self.btcPlaces), amount.multiplied(by: hundredMillion).rounded(places: 0),
                     amount.multiplied(by: price).rounded(places: fiatPlaces))
        case .sats:
            exact = (amount.divided(by: hundredMillion, places: Self.btcPlaces), amount.rounded(places: 0),
                     amount.multiplied(by: price).divided(by: hundredMillion, places: fiatPlaces))
        case .currency(let code):
            guard Self.sameMoney(code, currency) else { return nil }
            exact = (amount.divided(by: price, places: Self.btcPlaces), amount.multiplied(by: hundredMillion).divided(by: price, places: 0),
                     amount.rounded(places: fiatPlaces))
        }
        guard let btc = exact.btc, let sats = exact.sats, let fiat = exact.fiat else { return nil }
        self.btc = btc.padded(toPlaces: Self.btcPlaces).text
        self.sats = sats.text
        self.fiat = fiat.padded(toPlaces: fiatPlaces).text
        self.currency = currency
    }

    /// Whether a unit typed as `code` is the quote's currency: the same code, or USD for a
    /// dollar stablecoin.
    static func sameMoney(_ code: String, _ currency: String) -> Bool {
        code == currency || (code == "USD" && dollarStandIns.contains(currency))
    }

    /// `0.05 BTC = $5,722.99 = 5,000,000 sats`: the amount as given, then the other two.
    public func line(given unit: Unit) -> String {
        let btcText = btc + " BTC", satsText = MoneyText.groupedWhole(sats) + " sats"
        let fiatText = Currency(code: currency) != nil ? MoneyText.money(fiat, currency: currency) : MoneyText.grouped(fiat) + " " + currency
        switch unit {
        case .btc: return "\(btcText) = \(fiatText) = \(satsText)"
        case .sats: return "\(satsText) = \(btcText) = \(fiatText)"
        case .currency: return "\(fiatText) = \(btcText) = \(satsText)"
        }
    }
}
