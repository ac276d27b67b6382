import JSONText
import NIOHTTP1
import PriceCore
import WireProtocol

/// The price in the shapes other programs already read, so they can point at the node's own
/// daemon instead of a public service: mempool's `GET /api/v1/prices` and BTCPay Server's
/// `GET /api/rates` (what Zeus and other BTCPay rate clients parse).
enum CompatibleRates {
    /// mempool: `{"time":1764288000,"USD":114460}`. mempool sends whole units, so the exact price
    /// is rounded half to even to a whole unit; `time` is the quote's own time, in Unix seconds.
    /// Only the daemon's own currency appears. With no price to serve (none yet, or stale past
    /// the window) it answers as mempool does before its first price: `-1` and `time` 0, with
    /// the reason in `X-Price-Error`; a price that rounds to 0 is no price either.
    static func mempool(status: StatusMessage?, currency: Currency, window: ServeStaleWindow) -> HTTPAnswer {
        var headers = HTTPRoutes.noStore + [("X-Price-State", status?.state.rawValue ?? StatusMessage.State.nodata.rawValue)]
        var seconds: Int64 = 0, whole = "-1"
        switch window.verdict(for: status) {
        case .serve(let price, _):
            let rounded = ServedCurrency.wholeUnits(price)
            if let time = status?.timestamp.flatMap(Timestamp.init(rfc3339:)), let rounded {
                let milliseconds = time.millisecondsSinceEpoch
                (seconds, whole) = (milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000, rounded)
            } else {
                headers.append(("X-Price-Error", rounded == nil ? ServedCurrency.roundsToZero : "the quote has no time"))
            }
        case .refuse(let reason):
            headers.append(("X-Price-Error", reason))
        }
        let body = JSONValue.object(JSONObject(members: [
            JSONMember(key: "time", value: .number(String(seconds))),
            JSONMember(key: currency.code, value: .number(whole)),
        ])).encoded + "\n"
        return .json(body, headers: headers)
    }

    /// BTCPay Server's anonymous `GET /api/rates?currencyPairs=BTC_USD`: an array with one entry
    /// per pair asked, `{"name":"US Dollar","cryptoCode":"BTC","currencyPair":"BTC_USD","code":"USD","rate":114459.8,"errors":[]}`,
    /// the rate as the exact decimal (a JSON number, as BTCPay sends it). BTCPay leaves out a pair
    /// it cannot rate; here such a pair gets an entry with `"rate":null` and its error, never a
    /// guess, and so does a quote stale past the window. Without `currencyPairs`, the daemon's
    /// own pair is answered.
    static func btcpay(status: StatusMessage?, currency: Currency, window: ServeStaleWindow, pairs requested: String?) -> HTTPAnswer {
        let pairs = (requested ?? "BTC_\(currency.code)").split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingBlanks.uppercased() }
        guard pairs.count <= 32 else { return .error(.badRequest, code: "bad-request", "at most 32 currency pairs at once") }
        if let malformed = pairs.first(where: { pair in
            let sides = pair.split(separator: "_", omittingEmptySubsequences: false)
            return sides.count != 2 || sides.contains { $0.isEmpty || $0.count > 10 || !$0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        }) {
            return .error(.badRequest, code: "bad-request", "currency pair \(JSONValue.string(String(malformed.prefix(24))).encoded) is not formatted like BTC_USD")
        }
        let verdict = window.verdict(for: status)
        let entries = pairs.map { entry($0, status: status, currency: currency, verdict: verdict) }
        return .json(JSONValue.array(entries).encoded + "\n",
                     headers: HTTPRoutes.noStore + [("X-Price-State", status?.state.rawValue ?? StatusMessage.State.nodata.rawValue)])
    }

    private static func entry(_ pair: String, status: StatusMessage?, currency: Currency, verdict: ServeStaleWindow.Verdict) -> JSONValue {
        let sides = pair.split(separator: "_")
        let (base, quote) = (String(sides[0]), String(sides[1]))
        var rate: JSONValue = .null
        var error: String?
        if base != "BTC" {
            error = "btcpriced rates BTC only, not \(base)"
        } else if quote != currency.code && quote != status?.currency {
            error = "btcpriced serves BTC_\(currency.code) (BTCPRICED_CURRENCY=\(currency.code)); run an instance for \(quote) (btcpriced@\(quote.lowercased()).service) on its own port"
        } else {
            switch verdict {
            case .serve(let price, _): rate = .number(price)
            case .refuse(let reason): error = reason
            }
        }
        return .object(JSONObject(members: [
            JSONMember(key: "name", value: .string(names[quote] ?? quote)),
            JSONMember(key: "cryptoCode", value: .string(base)),
            JSONMember(key: "currencyPair", value: .string(pair)),
            JSONMember(key: "code", value: .string(quote)),
            JSONMember(key: "rate", value: rate),
            JSONMember(key: "errors", value: .array(error.map { [.string($0)] } ?? [])),
        ]))
    }

    /// BTCPay's names for the currencies a venue here quotes.
    static let names = [
        "USD": "US Dollar", "EUR": "Euro", "GBP": "British Pound", "JPY": "Japanese Yen", "CAD": "Canadian Dollar",
        "CHF": "Swiss Franc", "AUD": "Australian Dollar", "TRY": "Turkish Lira", "BRL": "Brazilian Real", "USDT": "Tether",
    ]
}
