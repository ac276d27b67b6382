import JSONText
import NIOHTTP1
import PriceCore
import WireProtocol

/// The price in the shapes Lightning wallets and their servers read, so they can be pointed at
/// the node's own daemon: LNbits' fiat rate route and Yadio's exchange-rate routes (Electrum,
/// Zeus and Mostro have Yadio clients; Mostro's URL is a setting). Like mempool's and BTCPay's
/// shapes they fail closed, since their readers look at no state or age: past the serve-stale
/// window, or with no quote, each answers 503 with a JSON error, never a number.
enum NodeRates {
    /// LNbits' `GET /api/v1/rate/{CURRENCY}`: `{"rate": sats per unit, "price": BTC in the
    /// currency}` (`api_check_fiat_rate`: the rate is 100,000,000 / price). The rate here keeps
    /// eight decimals of a sat, exact decimal text as a JSON number, as the price is.
    static func lnbits(currency asked: Substring, status: StatusMessage?, currency: Currency, window: ServeStaleWindow) -> HTTPAnswer {
        servedPrice(asked, status: status, currency: currency, window: window) { price, headers in
            guard let decimal = ExactDecimal(price), let sats = ExactDecimal.hundredMillion.divided(by: decimal, places: 8) else {
                return .error(.serviceUnavailable, code: "nodata", "the price \(price) gives no rate", headers: headers)
            }
            return .json(object([("rate", .number(sats.text)), ("price", .number(price))]), headers: headers)
        }
    }

    /// Yadio's `GET /exrates/BTC`: `{"BTC":{"USD":114459.8},"base":"BTC","timestamp":…}`, every
    /// currency the daemon serves (Mostro reads the `BTC` object of numbers), `timestamp` the
    /// quote's own time in Unix milliseconds.
    static func yadioTable(status: StatusMessage?, currency: Currency, window: ServeStaleWindow) -> HTTPAnswer {
        servedPrice(Substring(currency.code), status: status, currency: currency, window: window) { price, headers in
            .json(object([("BTC", .object(JSONObject(members: [JSONMember(key: currency.code, value: .number(price))]))),
                          ("base", .string("BTC")), ("timestamp", .number(milliseconds(status)))]), headers: headers)
        }
    }

    /// Yadio's `GET /rate/{CURRENCY}/BTC`: one BTC in the currency as `rate` (what Zeus reads),
    /// with the quote's time in Unix milliseconds.
    static func yadioRate(currency asked: Substring, status: StatusMessage?, currency: Currency, window: ServeStaleWindow) -> HTTPAnswer {
        servedPrice(asked, status: status, currency: currency, window: window) { price, headers in
            .json(object([("rate", .number(price)), ("timestamp", .number(milliseconds(status)))]), headers: headers)
        }
    }

    /// The price for `asked` when this daemon serves that currency and the window allows it;
    /// else the error each of these routes gives: 404 for a currency served elsewhere, 503 for
    /// no price.
    private static func servedPrice(_ asked: Substring, status: StatusMessage?, currency: Currency, window: ServeStaleWindow,
                                    answer: (String, [(String, String)]) -> HTTPAnswer) -> HTTPAnswer {
        guard asked.uppercased() == currency.code else { return ServedCurrency.elsewhere(asked, served: currency) }
        var headers = HTTPRoutes.noStore + [("X-Price-State", status?.state.rawValue ?? StatusMessage.State.nodata.rawValue)]
        switch window.verdict(for: status) {
        case .serve(let price, _):
            return answer(price, headers)
        case .refuse(let reason):
            headers.append(("Retry-After", "5"))
            return .error(.serviceUnavailable, code: status?.price == nil ? "nodata" : "stale", reason, headers: headers)
        }
    }

    private static func object(_ members: [(String, JSONValue)]) -> String {
        JSONValue.object(JSONObject(members: members.map { JSONMember(key: $0.0, value: $0.1) })).encoded + "\n"
    }

    private static func milliseconds(_ status: StatusMessage?) -> String {
        String(status?.timestamp.flatMap(Timestamp.init(rfc3339:))?.millisecondsSinceEpoch ?? 0)
    }
}
