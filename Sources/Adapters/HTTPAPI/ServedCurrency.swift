import JSONText
import NIOHTTP1
import WireProtocol

/// What the routes share about the currencies a daemon serves: the answer to a question about
/// another, and mempool's whole units.
enum ServedCurrency {
    /// A 404 that names the currencies served and how the asked one would be; the asked text is
    /// cut to 16 characters and escaped.
    static func elsewhere(_ asked: some StringProtocol, served currencies: [String]) -> HTTPAnswer {
        let cut = String(asked.prefix(16))
        let how = cut.allSatisfy { $0.isASCII && $0.isLetter }
            ? "; add it to BTCPRICED_CURRENCIES, or run an instance for it (btcpriced@\(cut.lowercased()).service) on its own port" : ""
        return .error(.notFound, code: "not-found",
                      "btcpriced serves BTC in \(currencies.joined(separator: ", ")), not \(JSONValue.string(cut).encoded)\(how)")
    }

    /// mempool keeps whole units, rounded half to even (`PricesRepository`); a price that rounds
    /// to 0 is no price (a reader would charge nothing), so nil, for `-1` and this reason.
    static func wholeUnits(_ price: String) -> String? {
        let whole = DecimalText.roundedHalfEven(price, places: 0)
        return whole == "0" ? nil : whole
    }

    static let roundsToZero = "the price rounds to 0 whole units"
}
