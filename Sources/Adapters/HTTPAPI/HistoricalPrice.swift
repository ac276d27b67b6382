import JSONText
import NIOHTTP1
import PriceCore
import WireProtocol

/// mempool's `GET /api/v1/historical-price?currency=EUR&timestamp=UNIX`, which Sparrow and
/// Electrum ask to value old transactions: `{"prices":[{"time":…,"EUR":…}],"exchangeRates":{}}`,
/// in whole units rounded half to even as mempool stores them (`PricesRepository`). With a
/// timestamp, the price at that moment from the history kept (a minute's close within the last
/// week, else the day's close) and never extrapolated; a moment without one is `-1` with the
/// reason in `X-Price-Error`, a moment to come is a 400. Without one, the daily closes, newest
/// first, as mempool's series. Each currency served keeps its own history, so `exchangeRates`
/// (mempool's conversions between currencies) is empty.
enum HistoricalPrice {
    /// `replies` are those of the currency asked (the route has matched `currency=` already).
    static func answer(parameters: [String: String], replies: any StatusProvider, currency: Currency) -> HTTPAnswer {
        guard let timestamp = parameters["timestamp"] else { return series(replies.daily(DailyQuery()), currency: currency) }
        let seconds: Int64
        switch PriceAtQuery.parse(seconds: timestamp) {
        case .success(let value): seconds = value
        case .failure(let error): return .error(.badRequest, code: "bad-request", "timestamp: " + error.message)
        }
        let reply = replies.price(at: PriceAtQuery(seconds: seconds))
        if reply.missing == .future { return .error(.badRequest, code: "bad-request", reply.reason ?? "the timestamp is in the future") }
        var headers = HTTPRoutes.noStore
        let entry: (time: Int64, whole: String)
        if let found = reply.found, let whole = ServedCurrency.wholeUnits(found.price) {
            entry = (found.time, whole)
            headers.append(("X-Price-From", found.basis.rawValue))
        } else {
            entry = (seconds, "-1")
            headers.append(("X-Price-Error", reply.reason ?? ServedCurrency.roundsToZero))
        }
        return .json(body([entry], currency: currency), headers: headers)
    }

    private static func series(_ daily: DailyReply, currency: Currency) -> HTTPAnswer {
        let entries = daily.days.reversed().compactMap { day -> (time: Int64, whole: String)? in
            guard let number = DailyBar.day(of: day.date) else { return nil }
            return (number * 86_400, DecimalText.roundedHalfEven(day.close, places: 0))
        }
        return .json(body(entries, currency: currency), headers: HTTPRoutes.noStore)
    }

    /// Written straight into one string: ten years of days are 3,653 entries.
    private static func body(_ entries: [(time: Int64, whole: String)], currency: Currency) -> String {
        let key = JSONValue.string(currency.code).encoded
        var text = #"{"prices":["#
        text.reserveCapacity(entries.count * 40 + 40)
        for (index, entry) in entries.enumerated() {
            if index > 0 { text += "," }
            text += #"{"time":"# + String(entry.time) + "," + key + ":" + entry.whole + "}"
        }
        return text + #"],"exchangeRates":{}}"# + "\n"
    }
}
