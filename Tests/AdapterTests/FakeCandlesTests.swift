import AsyncHTTPClient
import Exchanges
import FakeExchange
import NIOCore
import PriceCore
import Testing

/// The fake exchange serves each venue's candles on the path the catalog asks, in the shape the
/// venue's parser reads (the recorded bodies' shape), at the market's price.
@Suite("The fake exchange's candles, over HTTP")
struct FakeCandlesTests {
    static let client = HTTPClient(eventLoopGroup: .singletonMultiThreadedEventLoopGroup)
    /// 100 minutes from 2026-10-31T10:40Z: in the past, so every one of them has happened.
    static let minutes: ClosedRange<Int64> = 29_890_000...29_890_099

    static let options = VenueOptions(values: [Venue.binanceSymbolSetting.key: "BTCUSDT"])

    /// The venue's candles of these slots, asked of the fake on the catalog's path and read by
    /// the venue's parser; and the path, for the messages.
    static func candles(_ venue: String, _ interval: CandleInterval, _ slots: ClosedRange<Int64>, from exchange: FakeExchange) async throws -> (CandleBatch, String) {
        let endpoint = try #require(Venue.named(SourceName(venue))?.candles)
        let path = endpoint.path(options, interval, slots)
        let response = try await client.execute(HTTPClientRequest(url: exchange.baseURL + path), timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (try endpoint.parse(ExchangeResponse(status: Int(response.status.code), body: Array(buffer: body)), options), path)
    }

    static func fake(pricing venue: String) async throws -> FakeExchange {
        let exchange = try await FakeExchange.start()
        exchange.set(try #require(Market(rawValue: venue)), .price("114459.80000000"))
        return exchange
    }

    @Test(arguments: ["binance", "coinbase", "kraken", "bitstamp"])
    func eachVenuesCandlesAreServedAsItsParserReadsThem(venue: String) async throws {
        let exchange = try await Self.fake(pricing: venue)
        let (batch, path) = try await Self.candles(venue, .minute, Self.minutes, from: exchange)
        #expect(batch.skipped == 0 && batch.bars.allSatisfy { $0.close == 114459.8 && $0.low == 114459.8 }, "\(path): \(batch.skipped) skipped")
        if venue == "kraken" {
            // Kraken serves its latest 720, whatever `since` asks: 12 hours up to now.
            #expect(batch.bars.count == 720 && batch.bars.first.map { $0.minute > Self.minutes.upperBound } == true, "\(path): \(batch.bars.count)")
        } else {
            #expect(batch.bars.map(\.minute) == Array(Self.minutes), "\(path): \(batch.bars.first?.minute ?? 0)…\(batch.bars.last?.minute ?? 0)")
        }
        #expect(exchange.requestCount(try #require(Market(rawValue: venue))) == 1)
        await exchange.shutdown()
    }

    /// The 1,000 days up to 2026-10-30.
    static let days: ClosedRange<Int64> = 19_757...20_756

    @Test(arguments: ["binance", "coinbase", "kraken", "bitstamp"])
    func eachVenuesDailyCandlesStartAtMidnightUTC(venue: String) async throws {
        let exchange = try await Self.fake(pricing: venue)
        let days = venue == "coinbase" ? Self.days.upperBound - 349...Self.days.upperBound : Self.days
        let (batch, path) = try await Self.candles(venue, .day, days, from: exchange)
        let starts = batch.bars.map(\.minute)
        #expect(batch.skipped == 0 && starts.allSatisfy { $0 % 1440 == 0 }, "\(path): every candle at a day's first minute")
        if venue == "kraken" {
            #expect(batch.bars.count == 720 && starts.last.map { $0 / 1440 > days.upperBound } == true, "\(path): its latest 720 days, up to today")
        } else {
            #expect(starts.map { $0 / 1440 } == Array(days), "\(path): \(starts.first ?? 0)…\(starts.last ?? 0)")
        }
        // Days from before 2017-08-17 are not there, as Binance's BTCUSDT klines start then.
        let (listed, early) = try await Self.candles(venue, .day, 17_200...17_549, from: exchange)
        if venue != "kraken" {
            let firstStart = listed.bars.first.map(\.minute) ?? 0
            #expect(firstStart == 17_395 * 1440, "\(early): from 2017-08-17, not before: \(firstStart)")
        }
        await exchange.shutdown()
    }
}
