import Exchanges
import PriceCore

private let statuses = [200, 400, 401, 403, 404, 418, 429, 451, 500, 503]

/// Byte 0 picks the venue, byte 1 the HTTP status; the rest is the body.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExchanges(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    guard bytes.count >= 2 else { return 0 }
    let response = ExchangeResponse(status: statuses[Int(bytes[1]) % statuses.count], retryAfter: "5", usedWeight: "10",
                                    body: Array(bytes.dropFirst(2)))
    let quote: SourceQuote?
    switch bytes[0] % 5 {
    case 0: quote = try? BinanceAPI.parse(response, expectedSymbol: "BTCUSDT")
    case 1: quote = try? CoinbaseAPI.parse(response)
    case 2: quote = try? KrakenAPI.parse(response)
    case 3: quote = try? BitstampAPI.parse(response)
    default: quote = try? CryptoCompareAPI.parse(response)
    }
    if let price = quote?.price.value {
        fuzzCheck(price >= Price.smallestPlausible && price < Price.absurdBound, "implausible price accepted: \(price)")
    }
    return 0
}
