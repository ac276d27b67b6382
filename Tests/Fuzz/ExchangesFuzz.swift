import Exchanges
import PriceCore

private let statuses = [200, 400, 401, 403, 404, 418, 429, 451, 500, 503]

/// Byte 0 picks the parser (a venue's REST answer or its stream), byte 1 the HTTP status; the
/// rest is the body or the frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExchanges(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    guard bytes.count >= 2 else { return 0 }
    let body = Array(bytes.dropFirst(2))
    let response = ExchangeResponse(status: statuses[Int(bytes[1]) % statuses.count], retryAfter: "5", usedWeight: "10", body: body)
    var prices: [Price] = []
    switch bytes[0] % 8 {
    case 0: prices = [(try? BinanceAPI.parse(response, expectedSymbol: "BTCUSDT"))?.price].compactMap { $0 }
    case 1: prices = [(try? CoinbaseAPI.parse(response))?.price].compactMap { $0 }
    case 2: prices = [(try? KrakenAPI.parse(response))?.price].compactMap { $0 }
    case 3: prices = [(try? BitstampAPI.parse(response))?.price].compactMap { $0 }
    case 4: prices = [(try? CryptoCompareAPI.parse(response))?.price].compactMap { $0 }
    case 5: prices = streamPrices((try? BinanceStream.parse(body, expectedSymbol: "BTCUSDT")) ?? [])
    case 6: prices = streamPrices((try? CoinbaseStream.parse(body)) ?? [])
    default: prices = streamPrices((try? KrakenStream.parse(body)) ?? [])
    }
    for price in prices.map(\.value) {
        fuzzCheck(price >= Price.smallestPlausible && price < Price.absurdBound, "implausible price accepted: \(price)")
    }
    return 0
}

private func streamPrices(_ events: [StreamEvent]) -> [Price] {
    events.flatMap { event -> [Price] in
        switch event {
        case .trade(let quote): [quote.price]
        case .dayRange(let range): [range.high, range.low] + (range.open.map { [$0] } ?? [])
        case .alive, .closingSoon: []
        }
    }
}
