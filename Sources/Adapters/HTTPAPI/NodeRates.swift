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
    /// eight decimals of a sat, exact decimal text as a JSON number, as the price is. `status` is
    /// the currency asked's (the route has matched it).
    static func lnbits(status: StatusMessage?, window: ServeStaleWindow) -> HTTPAnswer {
        servedPrice(status: status, window: window) { price, headers in
            guard let decimal = ExactDecimal(price), let sats = ExactDecimal.hundredMillion.divided(by: decimal, places: 8) else {
                return .error(.serviceUnavailable, code: "nodata", "the price \(price) gives no rate", headers: headers)
            }
            return .json(object([("rate", .number(sats.text)), ("price", .number(price))]), headers: headers)
        }
    }

    /// Yadio's `GET /exrates/BTC`: `{"BTC":{"USD":114459.8,"EUR":…},"base":"BTC","timestamp":…}`,
    /// every currency served whose price the window allows (Mostro reads the `BTC` object of
    /// numbers; a currency left out is one it cannot price, never a stale number), `timestamp`
    /// the oldest of their quotes' times in Unix milliseconds. With none, the primary's 503.
    static func yadioTable(_ quotes: [(currency: Currency, status: StatusMessage?)], window: ServeStaleWindow) -> HTTPAnswer {
        var rates: [JSONMember] = [], oldest: Int64?
        for (currency, status) in quotes {
            guard case .serve(let price, _) = window.verdict(for: status) else { continue }
            rates.append(JSONMember(key: currency.code, value: .number(price)))
            let time = milliseconds(status)
            oldest = min(oldest ?? time, time)
        }
        let primary = quotes.first?.status
        guard let oldest else { return servedPrice(status: primary, window: window) { _, headers in .json("", headers: headers) } }
        let headers = HTTPRoutes.noStore + [("X-Price-State", primary?.state.rawValue ?? StatusMessage.State.nodata.rawValue)]
        return .json(object([("BTC", .object(JSONObject(members: rates))), ("base", .string("BTC")), ("timestamp", .number(String(oldest)))]),
                     headers: headers)
    }

    /// Yadio's `GET /rate/{CURRENCY}/BTC`: one BTC in the currency as `rate` (what Zeus reads),
    /// with the quote's time in Unix milliseconds.
    static func yadioRate(status: StatusMessage?, window: ServeStaleWindow) -> HTTPAnswer {
        servedPrice(status: status, window: window) { price, headers in
            .json(object([("rate", .number(price)), ("timestamp", .number(String(milliseconds(status))))]), headers: headers)
        }
    }

    /// The price when the window allows it; else the error each of these routes gives: 503
    /// for no price, or one stale past the window.
    private static func servedPrice(status: StatusMessage?, window: ServeStaleWindow,
                                    answer: (String, [(String, String)]) -> HTTPAnswer) -> HTTPAnswer {
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

    private static func milliseconds(_ status: StatusMessage?) -> Int64 {
        status?.timestamp.flatMap(Timestamp.init(rfc3339:))?.millisecondsSinceEpoch ?? 0
    }
}
