import Exchanges
import PriceCore

private let statuses = [200, 400, 401, 403, 404, 418, 429, 451, 500, 503]
/// Streams read as one connection for several currencies reads them.
private let binanceSymbols = ["BTCUSDT", "BTCEUR"], coinbaseProducts = ["BTC-USD", "BTC-EUR"], krakenSymbols = ["BTC/USD", "BTC/EUR", "BTC/JPY"]
private let binanceParser = BinanceStream.parser(expectedSymbols: binanceSymbols)

/// Byte 0 picks the parser (a venue's REST answer or its stream), byte 1 the HTTP status; the
/// rest is the body or the frame.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExchanges(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = fuzzBytes(start, count)
    guard bytes.count >= 2 else { return 0 }
    let body = Array(bytes.dropFirst(2))
    let response = ExchangeResponse(status: statuses[Int(bytes[1]) % statuses.count], retryAfter: "5", usedWeight: "10",
                                    date: "Sun, 06 Nov 1994 08:49:37 GMT", age: "3", body: body)
    var prices: [Price] = []
    switch bytes[0] % 18 {
    case 0: prices = restPrices(try? BinanceAPI.parse(response, expectedSymbol: "BTCUSDT"))
    case 1: prices = restPrices(try? CoinbaseAPI.parse(response))
    case 2: prices = restPrices(try? KrakenAPI.parse(response))
    case 3: prices = restPrices(try? BitstampAPI.parse(response))
    case 4: prices = restPrices(try? CryptoCompareAPI.parse(response))
    case 5:
        // The connection's parser (with its quick trade path) reads every frame as the full one does.
        let full = Result { () throws(FetchFailure) in try BinanceStream.parse(body, expectedSymbols: binanceSymbols) }
        let quick = Result { () throws(FetchFailure) in try binanceParser(body) }
        fuzzCheck(full == quick, "Binance's quick path read a frame differently: \(quick) vs \(full)")
        prices = streamPrices((try? full.get()) ?? [], among: binanceSymbols)
    case 6: prices = streamPrices((try? CoinbaseStream.parse(body, productIDs: coinbaseProducts)) ?? [], among: coinbaseProducts)
    case 7: prices = streamPrices((try? KrakenStream.parse(body, symbols: krakenSymbols)) ?? [], among: krakenSymbols)
    case 9: prices = restPrices(try? MempoolAPI.parse(response))
    case 10: prices = candlePrices(try? BinanceCandles.parse(response))
    case 11: prices = candlePrices(try? CoinbaseCandles.parse(response))
    case 12: prices = candlePrices(try? KrakenCandles.parse(response))
    case 13: prices = candlePrices(try? BitstampCandles.parse(response))
    case 14: prices = restPrices(try? CoinbaseRatesAPI.parse(response, currency: "CZK"))
    // The lists of pairs, one request for several currencies.
    case 15: prices = listPrices(try? KrakenAPI.parse(response, currencies: ["USD", "EUR", "JPY"]))
    case 16: prices = listPrices(try? BinanceAPI.parse(response, symbols: [("USD", "BTCUSDT"), ("EUR", "BTCEUR")]))
    case 17: prices = listPrices(try? CryptoCompareAPI.parse(response, currencies: ["USD", "EUR"]))
    default: prices = restPrices(try? BinanceAPI.parseDay(response, expectedSymbol: "BTCUSDT"))
    }
    for price in prices.map(\.value) {
        fuzzCheck(price >= Price.smallestPlausible && price < Price.absurdBound, "implausible price accepted: \(price)")
    }
    return 0
}

/// The price and any 24 h figures, whose low may never exceed the high.
private func restPrices(_ quote: SourceQuote?) -> [Price] {
    guard let quote else { return [] }
    guard let day = quote.day else { return [quote.price] }
    fuzzCheck(day.low <= day.high, "a 24 h low above the high was accepted")
    return [quote.price, day.high, day.low] + (day.open.map { [$0] } ?? [])
}

/// Every bar's prices; the bars must be consistent, one per minute, oldest first.
private func candlePrices(_ batch: CandleBatch?) -> [Price] {
    guard let batch else { return [] }
    fuzzCheck(batch.bars.allSatisfy(\.isConsistent), "an inconsistent candle was kept")
    fuzzCheck(zip(batch.bars, batch.bars.dropFirst()).allSatisfy { $0.minute < $1.minute }, "candles out of order or repeated")
    return batch.bars.flatMap { bar in [bar.open, bar.high, bar.low, bar.close].compactMap { try? Price(parsing: "\($0)") } }
}

/// Every price the events carry; each quote must name one of the pairs asked.
private func streamPrices(_ events: [StreamEvent], among symbols: [String]) -> [Price] {
    events.flatMap { event -> [Price] in
        switch event {
        case .trade(let quote, _), .tickerClose(let quote, _):
            fuzzCheck(symbols.contains(quote.symbol), "a quote of a pair not asked was accepted: \(quote.symbol)")
            return [quote.price]
        case .dayRange(let range): return [range.high, range.low] + (range.open.map { [$0] } ?? [])
        case .alive, .closingSoon: return []
        }
    }
}

private func listPrices(_ answers: BatchEndpoint.Answers?) -> [Price] {
    (answers ?? [:]).values.compactMap { try? $0.get().price }
}
