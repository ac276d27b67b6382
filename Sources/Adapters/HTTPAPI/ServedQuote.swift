import PriceCore
import WireProtocol

/// One currency the daemon serves, with the replies in it: what a route answers from.
struct ServedQuote {
    let currency: Currency
    let replies: any StatusProvider
}

/// The currencies a daemon serves, the primary first, and the replies of each by its code.
struct ServedQuotes {
    let primary: ServedQuote

    /// The replies of `code` (any case), when it is served; nil for another or for junk.
    func served(_ code: some StringProtocol) -> ServedQuote? {
        let upper = code.uppercased()
        if upper == primary.currency.code { return primary }
        guard let currency = Currency(code: upper), let replies = primary.replies.replies(for: currency.code) else { return nil }
        return ServedQuote(currency: currency, replies: replies)
    }

    /// Every currency served, the primary first (its replies list it first too).
    var all: [ServedQuote] { [primary] + primary.replies.servedCurrencies.dropFirst().compactMap { served($0) } }

    var codes: [String] { all.map(\.currency.code) }

    /// The currency `asked` names (a route's `?currency=`), the primary when none; a currency
    /// not served is a 404 that names those that are.
    func answer(in asked: String?, _ body: (ServedQuote) -> HTTPAnswer) -> HTTPAnswer {
        guard let asked else { return body(primary) }
        guard let quote = served(asked) else { return ServedCurrency.elsewhere(asked, served: codes) }
        return body(quote)
    }
}
