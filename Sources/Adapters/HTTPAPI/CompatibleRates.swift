import JSONText
import NIOHTTP1
import PriceCore
import WireProtocol

/// The price in the shapes other programs already read, so they can point at the node's own
/// daemon instead of a public service: mempool's `GET /api/v1/prices` and BTCPay Server's
/// `GET /api/rates` (what Zeus and other BTCPay rate clients parse).
enum CompatibleRates {
    /// mempool: `{"time":1764288000,"USD":114460,"EUR":98765}`, every currency served among
    /// mempool's seven (and the primary, whatever it is). mempool sends whole units, so each
    /// exact price is rounded half to even to a whole unit; `time` is the oldest of the quotes'
    /// own times, in Unix seconds, so it never claims more freshness than the stalest number
    /// carries. A currency with no price to serve (none yet, or stale past the window) is `-1`,
    /// as mempool sends before its first price, with the reason in `X-Price-Error`; a price that
    /// rounds to 0 is no price either. With none to serve, `time` is 0.
    static func mempool(_ quotes: [(currency: Currency, status: StatusMessage?)], window: ServeStaleWindow) -> HTTPAnswer {
        var headers = HTTPRoutes.noStore + [("X-Price-State", quotes.first?.status?.state.rawValue ?? StatusMessage.State.nodata.rawValue)]
        var oldest: Int64?, members: [JSONMember] = [], errors: [(String, String)] = []
        for (currency, status) in quotes {
            var whole = "-1"
            switch window.verdict(for: status) {
            case .serve(let price, _):
                let rounded = ServedCurrency.wholeUnits(price)
                if let time = status?.timestamp.flatMap(Timestamp.init(rfc3339:)), let rounded {
                    let milliseconds = time.millisecondsSinceEpoch
                    let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
                    (oldest, whole) = (min(oldest ?? seconds, seconds), rounded)
                } else {
                    errors.append((currency.code, rounded == nil ? ServedCurrency.roundsToZero : "the quote has no time"))
                }
            case .refuse(let reason):
                errors.append((currency.code, reason))
            }
            members.append(JSONMember(key: currency.code, value: .number(whole)))
        }
        if !errors.isEmpty {
            headers.append(("X-Price-Error", quotes.count == 1 ? errors[0].1 : errors.map { "\($0.0): \($0.1)" }.joined(separator: "; ")))
        }
        let body = JSONValue.object(JSONObject(members: [JSONMember(key: "time", value: .number(String(oldest ?? 0)))] + members)).encoded + "\n"
        return .json(body, headers: headers)
    }

    /// BTCPay Server's anonymous `GET /api/rates?currencyPairs=BTC_USD,BTC_EUR`: an array with
    /// one entry per pair asked, `{"name":"US Dollar","cryptoCode":"BTC","currencyPair":"BTC_USD","code":"USD","rate":114459.8,"errors":[]}`,
    /// each from its own currency's quote, the rate as the exact decimal (a JSON number, as BTCPay
    /// sends it). BTCPay leaves out a pair it cannot rate; here such a pair gets an entry with
    /// `"rate":null` and its error, never a guess or another currency's price, and so does a
    /// quote stale past the window. Without `currencyPairs`, every pair served is answered.
    /// `storeId` (which Zeus sends) is ignored.
    static func btcpay(_ quotes: ServedQuotes, window: ServeStaleWindow, pairs requested: String?) -> HTTPAnswer {
        let pairs = (requested ?? quotes.codes.map { "BTC_\($0)" }.joined(separator: ",")).split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingBlanks.uppercased() }
        guard pairs.count <= 32 else { return .error(.badRequest, code: "bad-request", "at most 32 currency pairs at once") }
        if let malformed = pairs.first(where: { pair in
            let sides = pair.split(separator: "_", omittingEmptySubsequences: false)
            return sides.count != 2 || sides.contains { $0.isEmpty || $0.count > 10 || !$0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
        }) {
            return .error(.badRequest, code: "bad-request", "currency pair \(JSONValue.string(String(malformed.prefix(24))).encoded) is not formatted like BTC_USD")
        }
        let primary = quotes.primary.replies.status()
        let entries = pairs.map { entry($0, quotes: quotes, primaryAsset: primary.currency, window: window) }
        return .json(JSONValue.array(entries).encoded + "\n", headers: HTTPRoutes.noStore + [("X-Price-State", primary.state.rawValue)])
    }

    /// `primaryAsset` is the primary quote's asset: Binance's USD market is labelled USDT, and a
    /// reader asking BTC_USDT gets the primary's rate.
    private static func entry(_ pair: String, quotes: ServedQuotes, primaryAsset: String, window: ServeStaleWindow) -> JSONValue {
        let sides = pair.split(separator: "_")
        let (base, quote) = (String(sides[0]), String(sides[1]))
        var rate: JSONValue = .null
        var error: String?
        let served = quotes.served(quote) ?? (quote == primaryAsset ? quotes.primary : nil)
        if base != "BTC" {
            error = "btcpriced rates BTC only, not \(base)"
        } else if let served {
            switch window.verdict(for: served.replies.status()) {
            case .serve(let price, _): rate = .number(price)
            case .refuse(let reason): error = reason
            }
        } else {
            error = "btcpriced serves BTC_\(quotes.codes.joined(separator: ", BTC_")), not BTC_\(quote); add \(quote) to BTCPRICED_CURRENCIES, or run an instance for it (btcpriced@\(quote.lowercased()).service) on its own port"
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
