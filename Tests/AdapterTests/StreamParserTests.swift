import Exchanges
import Foundation
import PriceCore
import Testing

/// The stream parsers against messages shaped exactly as each venue sends them
/// (Fixtures/streams/), and against the bad frames a stream can carry.
@Suite("Venue stream parsers on recorded messages")
struct StreamParserTests {
    static func frame(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/streams/\(name).json")
        return Array(try Data(contentsOf: url))
    }

    func outcome(_ parse: () throws(FetchFailure) -> [StreamEvent]) -> Result<[StreamEvent], FetchFailure> {
        do throws(FetchFailure) { return .success(try parse()) } catch { return .failure(error) }
    }

    func price(_ text: String) -> Price { try! Price(parsing: text) }

    @Test func binanceTradesAndMiniTickers() throws {
        #expect(try BinanceStream.parse(Self.frame("binance-trade"), expectedSymbol: "BTCUSDT")
                == [.trade(SourceQuote(price: price("85866.18"), symbol: "BTCUSDT", quoteAsset: "USDT"),
                           TradeStamp(milliseconds: 1763797203511, tradeID: 5301234567))],
                "a trade carries its trade time T and id t")
        #expect(try BinanceStream.parse(Self.frame("binance-aggtrade"), expectedSymbol: "BTCUSDT")
                == [.trade(SourceQuote(price: price("85866.18"), symbol: "BTCUSDT", quoteAsset: "USDT"),
                           TradeStamp(milliseconds: 1763797203511, tradeID: 3581234567))],
                "the aggregate trade the daemon subscribes to carries its trade time T and aggregate id a")
        #expect(try BinanceStream.parse(Self.frame("binance-mini-ticker"), expectedSymbol: "BTCUSDT") == [
            .tickerClose(SourceQuote(price: price("85866.18"), symbol: "BTCUSDT", quoteAsset: "USDT"), TradeStamp(milliseconds: 1763797204000)),
            .dayRange(DayRange(open: price("86910"), high: price("87250.43"), low: price("84573"))),
        ])
        #expect(try BinanceStream.parse(Self.frame("binance-server-shutdown"), expectedSymbol: "BTCUSDT") == [.closingSoon])
        #expect(try BinanceStream.parse(Array(#"{"stream":"x","data":{"e":"serverShutdown","E":1}}"#.utf8), expectedSymbol: "BTCUSDT") == [.closingSoon])
        #expect(BinanceStream.path(symbol: "BTCUSDC") == "/stream?streams=btcusdc@aggTrade/btcusdc@miniTicker")
    }

    @Test func binanceRefusesOtherSymbolsAndReportsItsErrors() throws {
        #expect(outcome { () throws(FetchFailure) in try BinanceStream.parse(try! Self.frame("binance-trade"), expectedSymbol: "BTCUSDC") }
                == .failure(.wrongSymbol(expected: "BTCUSDC", got: "BTCUSDT")))
        #expect(outcome { () throws(FetchFailure) in try BinanceStream.parse(try! Self.frame("binance-error"), expectedSymbol: "BTCUSDT") }
                == .failure(.exchangeError("2: Invalid request: unknown stream btcusdx@trade")))
    }

    @Test func coinbaseTickersHeartbeatsAndErrors() throws {
        #expect(try CoinbaseStream.parse(Self.frame("coinbase-ticker")) == [
            .trade(SourceQuote(price: price("85866.185"), symbol: "BTC-USD", quoteAsset: "USD"),
                   TradeStamp(time: Timestamp(rfc3339: "2026-11-22T07:40:03.512Z")!)),
            .dayRange(DayRange(open: nil, high: price("87249.99"), low: price("84570.01"))),
        ])
        #expect(try CoinbaseStream.parse(Self.frame("coinbase-heartbeat")) == [.alive])
        #expect(try CoinbaseStream.parse(Self.frame("coinbase-subscriptions")) == [.alive])
        #expect(outcome { () throws(FetchFailure) in try CoinbaseStream.parse(try! Self.frame("coinbase-error")) }
                == .failure(.exchangeError("failure to subscribe")))
    }

    @Test func krakenTickersKeepTheNumbersLiteralText() throws {
        #expect(try KrakenStream.parse(Self.frame("kraken-ticker")) == [
            .trade(SourceQuote(price: price("85866.1"), symbol: "BTC/USD", quoteAsset: "USD"), nil),
            .dayRange(DayRange(open: nil, high: price("87252.3"), low: price("84570.0"))),
        ])
        // More digits than a Double holds: a parser that went through Double would round them.
        let long = #"{"channel":"ticker","type":"update","data":[{"symbol":"BTC/USD","last":85866.123456789012345,"high":1,"low":1}]}"#
        let events = try KrakenStream.parse(Array(long.utf8))
        guard case .trade(let quote, _)? = events.first else { Issue.record("no trade in \(events)"); return }
        #expect(quote.price.description == "85866.123456789012345")
        for name in ["kraken-heartbeat", "kraken-status", "kraken-subscribed"] {
            #expect(try KrakenStream.parse(Self.frame(name)) == [.alive], "\(name)")
        }
        #expect(outcome { () throws(FetchFailure) in try KrakenStream.parse(try! Self.frame("kraken-error")) }
                == .failure(.exchangeError("Currency pair not supported BTC/XYZ")))
    }

    @Test("bad frames are specific errors, never a crash", arguments: [
        ("", FetchFailure.notJSON("empty body")),
        ("<html>502</html>", .notJSON("HTML page")),
        (#"{"channel":"ticker","type":"update","data":[{"symbol":"BTC/USD","last":"1e9999","high":1,"low":1}]}"#, nil),
        (#"{"channel":"ticker","type":"update","data":[]}"#, .missingField("data")),
        (#"{"channel":"book"}"#, .exchangeError("unexpected channel \"book\"")),
        (#"[1,2,3]"#, .missingField("channel")),
    ])
    func krakenBadFrames(text: String, expected: FetchFailure?) {
        let result = outcome { () throws(FetchFailure) in try KrakenStream.parse(Array(text.utf8)) }
        guard case .failure(let failure) = result else { Issue.record("accepted: \(result)"); return }
        if let expected { #expect(failure == expected) }
    }

    @Test func anOversizedFrameIsRefusedBeforeParsing() {
        let huge = Array(#"{"channel":"heartbeat","pad":""#.utf8) + Array(repeating: UInt8(ascii: "x"), count: 70_000) + Array(#""}"#.utf8)
        #expect(outcome { () throws(FetchFailure) in try KrakenStream.parse(huge) } == .failure(.bodyTooLarge(limit: 64 * 1024)))
        #expect(outcome { () throws(FetchFailure) in try CoinbaseStream.parse(huge) } == .failure(.bodyTooLarge(limit: 64 * 1024)))
    }
}

/// Binance's quick path reads a trade without a JSON tree; whatever it takes, it must read as
/// the full parser does, and whatever is odd it must leave to the full parser.
@Suite("Binance's quick trade path agrees with the full parser")
struct BinanceQuickTradeTests {
    static let parser = BinanceStream.parser(expectedSymbol: "BTCUSDT")

    func outcome(_ frame: [UInt8]) -> Result<[StreamEvent], FetchFailure> {
        do throws(FetchFailure) { return .success(try Self.parser(frame)) } catch { return .failure(error) }
    }

    func fullOutcome(_ frame: [UInt8]) -> Result<[StreamEvent], FetchFailure> {
        do throws(FetchFailure) { return .success(try BinanceStream.parse(frame, expectedSymbol: "BTCUSDT")) } catch { return .failure(error) }
    }

    @Test func takesTradesAndAggregates() throws {
        for name in ["binance-aggtrade", "binance-trade"] {
            let frame = try StreamParserTests.frame(name)
            let quick = try #require(BinanceStream.quickTrade(frame, expectedSymbols: ["BTCUSDT"]), "\(name) took the slow path")
            #expect([quick] == (try BinanceStream.parse(frame, expectedSymbol: "BTCUSDT")), "\(name): quick \(quick)")
        }
    }

    /// A combined stream of several symbols: each message names its own, read quick or in full alike.
    @Test func readsEachSymbolOfACombinedStream() throws {
        let euro = Array(#"{"stream":"btceur@aggTrade","data":{"e":"aggTrade","E":1,"s":"BTCEUR","a":7,"p":"98001.50","q":"0.1","T":1700000000000}}"#.utf8)
        let ticker = Array(#"{"stream":"btceur@miniTicker","data":{"e":"24hrMiniTicker","E":1700000000000,"s":"BTCEUR","c":"98001.50","o":"97000","h":"99000","l":"96000"}}"#.utf8)
        let parser = BinanceStream.parser(expectedSymbols: ["BTCUSDT", "BTCEUR"])
        let trade = StreamEvent.trade(SourceQuote(price: try Price(parsing: "98001.50"), symbol: "BTCEUR", quoteAsset: "EUR"),
                                      TradeStamp(milliseconds: 1_700_000_000_000, tradeID: 7))
        #expect(BinanceStream.quickTrade(euro, expectedSymbols: ["BTCUSDT", "BTCEUR"]) == trade)
        #expect(try parser(euro) == [trade])
        #expect(try parser(ticker).first?.quote?.symbol == "BTCEUR")
        #expect(try parser(try StreamParserTests.frame("binance-aggtrade")).first?.quote?.quoteAsset == "USDT")
        #expect(BinanceStream.path(symbols: ["BTCUSDT", "BTCEUR"]) == "/stream?streams=btcusdt@aggTrade/btcusdt@miniTicker/btceur@aggTrade/btceur@miniTicker")
        let stranger = Array(#"{"stream":"btcgbp@aggTrade","data":{"e":"aggTrade","s":"BTCGBP","a":7,"p":"1","T":1}}"#.utf8)
        #expect(throws: FetchFailure.wrongSymbol(expected: "BTCUSDT or BTCEUR", got: "BTCGBP")) { try parser(stranger) }
    }

    @Test("odd messages read as the full parser reads them", arguments: [
        #"{"stream":"s","data":{"e":"aggTrade","s":"BTCUSDT","a":-7,"p":"1.50","T":99999999999999999999}}"#,
        #"{"stream":"s","data":{"e":"trade","s":"BTCUSDT","a":5,"t":6,"p":"1.5e3","T":1.5}}"#,
        #"{"stream":"s","data":{"e":"aggTrade","s":"BTCUSDT","p":85866.18,"T":1}}"#,
        #"{"stream":"s","data":{"e":"aggTrade","s":"BTCUSDC","p":"1","T":1}}"#,
        #"{"stream":"s","data":{"e":"aggTrade","s":"BTCUSDT","p":"-1","T":1}}"#,
        #"{"stream":"s","data":{"e":"aggTrade","s":"BTCUSDT","p":"1","p":"2"}}"#,
        #"{"stream":"s","data":{"e":"aggTrade","s":"BTCUSDT"}}"#,
        #"{"stream":"s","data":{"e":"aggTrade","s":"BTC\u0055SDT","p":"1"}}"#,
        #"{"stream":"s","code":2,"msg":"no","data":{"e":"aggTrade","s":"BTCUSDT","p":"1"}}"#,
        #"{"stream":"s","data":{"e":"24hrMiniTicker","s":"BTCUSDT","c":"1","o":"1","h":"1","l":"1","E":1}}"#,
        #"{"stream":"s","data":{"e":"aggTrade","s":"BTCUSDT","p":"1"}} trailing"#,
    ])
    func oddMessages(text: String) {
        let frame = Array(text.utf8)
        #expect(outcome(frame) == fullOutcome(frame), "\(text)")
    }
}
