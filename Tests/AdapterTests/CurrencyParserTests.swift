import Exchanges
import Foundation
import PriceCore
import Testing

/// Each venue's answer in another currency, shaped as its documentation shows (Kraken names the
/// old fiat pairs `XXBTZEUR` but newer ones `XBTCHF`), through the catalog entry the daemon uses.
@Suite("Venue parsers in other currencies")
struct CurrencyParserTests {
    func parse(_ venue: Venue, _ fixture: String, currency: String) throws -> SourceQuote {
        try venue.rest.parse(try VenueParserTests.fixture(fixture), VenueOptions(currency: currency))
    }

    func outcome(_ parse: () throws -> SourceQuote) -> Result<SourceQuote, FetchFailure> {
        do { return .success(try parse()) } catch { return .failure(error as! FetchFailure) }
    }

    @Test("each venue's market, exact and honestly labelled", arguments: [
        (Venue.binance, "binance-ticker-price-eur", "EUR", "89712.45", "BTCEUR"),
        (.binance, "binance-ticker-price-try", "TRY", "3912345.67", "BTCTRY"),
        (.coinbase, "coinbase-spot-eur", "EUR", "89712.45", "BTC-EUR"),
        (.coinbase, "coinbase-spot-gbp", "GBP", "76044.1", "BTC-GBP"),
        (.kraken, "kraken-ticker-eur", "EUR", "89712.4", "XXBTZEUR"),
        (.kraken, "kraken-ticker-gbp", "GBP", "76044.1", "XXBTZGBP"),
        (.kraken, "kraken-ticker-jpy", "JPY", "15234567", "XXBTZJPY"),
        (.kraken, "kraken-ticker-chf", "CHF", "84211.2", "XBTCHF"),
        (.bitstamp, "bitstamp-ticker-gbp", "GBP", "76044", "btcgbp"),
        (.bitstamp, "bitstamp-ticker-eur", "EUR", "89712", "btceur"),
        (.cryptocompare, "cryptocompare-price-eur", "EUR", "89712.45", "BTCEUR"),
        (.cryptocompare, "cryptocompare-price-gbp", "GBP", "76044.1", "BTCGBP"),
        (.cryptocompare, "cryptocompare-price-jpy", "JPY", "15234567.12", "BTCJPY"),
    ])
    func marketInItsCurrency(venue: Venue, fixture: String, currency: String, price: String, symbol: String) throws {
        let quote = try parse(venue, fixture, currency: currency)
        #expect(quote.price.description == price)
        #expect(quote.quoteAsset == currency)
        #expect(quote.symbol == symbol)
        #expect(venue.rest.symbol(VenueOptions(currency: currency)).uppercased().hasSuffix(currency), "asked as \(venue.rest.symbol(VenueOptions(currency: currency)))")
    }

    @Test("an answer in another currency than asked is refused", arguments: [
        (Venue.coinbase, "coinbase-spot-eur", "GBP"),
        (.kraken, "kraken-ticker-eur", "USD"),
        (.kraken, "kraken-ticker-jpy", "EUR"),
        (.cryptocompare, "cryptocompare-price-jpy", "EUR"),
        (.binance, "binance-ticker-price-eur", "USD"),
    ])
    func wrongCurrencyIsRefused(venue: Venue, fixture: String, asked: String) {
        switch outcome({ try parse(venue, fixture, currency: asked) }) {
        case .success(let quote): Issue.record("\(venue) asked for \(asked) accepted \(quote.symbol) \(quote.price)")
        case .failure(.wrongSymbol), .failure(.missingField): break
        case .failure(let failure): Issue.record("\(venue) asked for \(asked) failed with \(failure), not a wrong-symbol or missing-field failure")
        }
    }

    @Test("each stream's trades in another currency", arguments: [
        (Venue.binance, "binance-trade-eur", "EUR", "89712.45", "BTCEUR"),
        (.coinbase, "coinbase-ticker-eur", "EUR", "89712.45", "BTC-EUR"),
        (.coinbase, "coinbase-ticker-gbp", "GBP", "76044.1", "BTC-GBP"),
        (.kraken, "kraken-ticker-eur", "EUR", "89712.4", "BTC/EUR"),
        (.kraken, "kraken-ticker-gbp", "GBP", "76044.1", "BTC/GBP"),
        (.kraken, "kraken-ticker-jpy", "JPY", "15234567", "BTC/JPY"),
    ])
    func streamedTrade(venue: Venue, fixture: String, currency: String, price: String, symbol: String) throws {
        let events = try venue.stream!.parser(VenueOptions(currency: currency))(try StreamParserTests.frame(fixture))
        let trades = events.compactMap { event -> SourceQuote? in if case .trade(let quote, _) = event { quote } else { nil } }
        #expect(trades.map(\.price.description) == [price], "\(events)")
        #expect(trades.allSatisfy { $0.quoteAsset == currency && $0.symbol == symbol }, "\(trades)")
        #expect(throws: FetchFailure.self, "a \(currency) frame is refused by a USD-asking parser") {
            try venue.stream!.parser(VenueOptions(currency: "USD"))(try StreamParserTests.frame(fixture))
        }
    }

    @Test func streamsInOtherCurrencies() throws {
        let coinbase = try Venue.coinbase.stream!.parser(VenueOptions(currency: "EUR"))(try StreamParserTests.frame("coinbase-ticker-eur"))
        #expect(coinbase.contains { if case .trade(let quote, _) = $0 { quote.price.description == "89712.45" && quote.quoteAsset == "EUR" } else { false } }, "\(coinbase)")
        let kraken = try Venue.kraken.stream!.parser(VenueOptions(currency: "JPY"))(try StreamParserTests.frame("kraken-ticker-jpy"))
        #expect(kraken.contains { if case .trade(let quote, _) = $0 { quote.price.description == "15234567" && quote.symbol == "BTC/JPY" } else { false } }, "\(kraken)")
        #expect(throws: FetchFailure.self) { try Venue.kraken.stream!.parser(VenueOptions(currency: "USD"))(try StreamParserTests.frame("kraken-ticker-jpy")) }
        #expect(Venue.kraken.stream!.greetings(VenueOptions(currency: "JPY")) == [#"{"method":"subscribe","params":{"channel":"ticker","symbol":["BTC/JPY"]}}"#])
        #expect(Venue.coinbase.stream!.greetings(VenueOptions(currency: "GBP")).first == #"{"type":"subscribe","product_ids":["BTC-GBP"],"channel":"ticker"}"#)
        #expect(Venue.binance.streamURL(baseURL: "wss://x", VenueOptions(currency: "EUR")) == "wss://x/stream?streams=btceur@aggTrade/btceur@miniTicker")
    }

    /// One connection for several currencies: the subscription names every pair, and one parser
    /// reads each pair's messages, each quote naming its own pair.
    @Test("one connection's parser reads every pair asked", arguments: [
        (Venue.binance, "binance-trade-eur", "BTCEUR"), (.binance, "binance-aggtrade", "BTCUSDT"),
        (.coinbase, "coinbase-ticker-gbp", "BTC-GBP"), (.coinbase, "coinbase-ticker", "BTC-USD"),
        (.kraken, "kraken-ticker-jpy", "BTC/JPY"), (.kraken, "kraken-ticker-eur", "BTC/EUR"),
    ])
    func onePairOfSeveral(venue: Venue, fixture: String, symbol: String) throws {
        let currencies = ["USD", "EUR", "GBP", "JPY"].filter(venue.quotes)
        let events = try venue.stream!.parser(VenueOptions(), currencies: currencies)(try StreamParserTests.frame(fixture))
        #expect(events.compactMap(\.quote).map(\.symbol) == [symbol], "\(events)")
    }

    @Test func oneSubscriptionNamesEveryPair() throws {
        let options = VenueOptions()
        #expect(Venue.kraken.stream!.greetings(options, currencies: ["USD", "EUR", "JPY"])
                    == [#"{"method":"subscribe","params":{"channel":"ticker","symbol":["BTC/USD","BTC/EUR","BTC/JPY"]}}"#])
        #expect(Venue.coinbase.stream!.greetings(options, currencies: ["USD", "GBP"]).first
                    == #"{"type":"subscribe","product_ids":["BTC-USD","BTC-GBP"],"channel":"ticker"}"#)
        #expect(Venue.binance.streamURL(baseURL: "wss://x", options, currencies: ["USD", "EUR"])
                    == "wss://x/stream?streams=btcusdt@aggTrade/btcusdt@miniTicker/btceur@aggTrade/btceur@miniTicker")
        // Coinbase's snapshot after a subscription carries every product in one message.
        let snapshot = try Venue.coinbase.stream!.parser(options, currencies: ["USD", "EUR"])(try StreamParserTests.frame("coinbase-ticker-snapshot-pairs"))
        #expect(snapshot.compactMap(\.quote).map { "\($0.symbol) \($0.quoteAsset) \($0.price)" } == ["BTC-USD USD 98410.22", "BTC-EUR EUR 89712.45"], "\(snapshot)")
        #expect(throws: FetchFailure.wrongSymbol(expected: "BTC-USD or BTC-GBP", got: "BTC-EUR")) {
            try Venue.coinbase.stream!.parser(options, currencies: ["USD", "GBP"])(try StreamParserTests.frame("coinbase-ticker-eur"))
        }
    }
}
