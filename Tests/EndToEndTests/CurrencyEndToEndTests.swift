import ClientKit
import FakeExchange
import Foundation
import JSONText
import Testing

/// BTCPRICED_CURRENCY against the fake exchange: real markets in the chosen currency, venues
/// without one never asked, and a chain that cannot quote it refused at start.
@Suite("Currencies, end to end")
struct CurrencyEndToEndTests {
    func entry(_ json: JSONValue, _ name: String) -> JSONValue? {
        json["sources"]?.arrayElements?.first { $0["name"]?.stringValue == name }
    }

    /// The query or path part of every request a market got, for the failure message.
    func asked(_ exchange: FakeExchange, _ market: Market) -> [String] { exchange.requests(market).map(\.uri) }

    @Test func euroPricesComeFromTheFirstVenueWithAEuroMarketAndNoUSDPairIsAsked() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "89712.45")
        exchange.set(.binance, .price("89712.45000000"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_CURRENCY": "eur"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        // Every venue quotes the same price, so a cycle where a loaded host times binance out
        // would show coinbase's: wait for binance's, which the chain asks first every cycle.
        var status = JSONValue.null
        try await until("binance's euro quote", context: { "\(status)" }) {
            status = try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
            return status["source"] == .string("binance")
        }
        #expect(status["price"] == .string("89712.45"), "\(status)")
        #expect(status["currency"] == .string("EUR"), "\(status)")
        #expect(status["symbol"] == .string("BTCEUR"), "\(status)")
        let human = try await daemon.ctl("status").stdout
        #expect(human.hasPrefix("BTC/EUR  €89,712.45\n"), "\(human)")
        let binance = asked(exchange, .binance)
        #expect(!binance.isEmpty && binance.allSatisfy { $0.contains("symbol=BTCEUR") }, "binance was asked \(binance)")

        // Binance fails: the chain moves on to Coinbase's BTC-EUR, still in euros.
        exchange.set(.binance, .status(503))
        exchange.set(.coinbase, .price("89700.1"))
        try await until("a coinbase euro quote") { try await daemon.ctl("price").stdout == "89700.1\n" }
        let coinbase = asked(exchange, .coinbase)
        #expect(coinbase.allSatisfy { $0 == "/v2/prices/BTC-EUR/spot" }, "coinbase was asked \(coinbase)")
        let after = try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
        #expect(after["currency"] == .string("EUR") && after["symbol"] == .string("BTC-EUR"), "\(after)")
    }

    @Test func venuesWithoutAYenMarketAreUnsupportedAndNeverAsked() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.kraken, .price("15234567.00000"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_CURRENCY": "JPY"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a yen quote from kraken") { try await daemon.ctl("price").stdout == "15234567\n" }
        let human = try await daemon.ctl("status").stdout
        #expect(human.hasPrefix("BTC/JPY  ¥15,234,567\n"), "no decimals for yen: \(human)")

        let report = try JSONValue(parsing: try await daemon.ctl("sources", "--json").stdout)
        for name in ["binance", "coinbase", "bitstamp"] {
            #expect(entry(report, name)?["state"] == .string("unsupported"), "\(name): \(String(describing: entry(report, name)))")
            #expect(entry(report, name)?["note"]?.stringValue?.contains("no BTC/JPY market") == true, "\(String(describing: entry(report, name)))")
        }
        // Its last price, not its state now: a loaded host may time out the cycle just before.
        #expect(entry(report, "kraken")?["last_price"] == .string("15234567"), "\(String(describing: entry(report, "kraken")))")
        #expect(entry(report, "kraken")?["quote_asset"] == .string("JPY"))
        let table = try await daemon.ctl("sources").stdout
        #expect(table.contains("unsupported"), "\(table)")
        #expect(exchange.requestCount(.binance) == 0, "binance was asked \(asked(exchange, .binance))")
        #expect(exchange.requestCount(.coinbase) == 0, "coinbase was asked \(asked(exchange, .coinbase))")
        #expect(exchange.requestCount(.bitstamp) == 0, "bitstamp was asked \(asked(exchange, .bitstamp))")
        let kraken = asked(exchange, .kraken)
        #expect(!kraken.isEmpty && kraken.allSatisfy { $0.hasSuffix("pair=XBTJPY") }, "kraken was asked \(kraken)")
    }

    @Test func threeCurrenciesOnOneHostKeepAVenuesPublishedLimitTogether() async throws {
        let exchange = try await FakeExchange.start()
        let shared = NSTemporaryDirectory() + "btcpriced-limits-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: shared) }
        // Kraken alone for each: every 2 s apiece would be three calls in 2 s, over the one a
        // second Kraken publishes; the shared limits directory holds them to it together.
        let settings = ["BTCPRICED_SOURCES": "kraken", "BTCPRICED_INTERVAL": "500ms", "BTCPRICED_LIMITS_DIR": shared]
        let daemons = try ["USD", "EUR", "GBP"].map { currency in
            try DaemonProcess(exchangeURL: exchange.baseURL, settings: settings.merging(["BTCPRICED_CURRENCY": currency]) { $1 })
        }
        defer { for daemon in daemons { daemon.stop(); daemon.removeFiles() } }
        for daemon in daemons { try await daemon.start() }
        try await until("each instance has a quote and kraken seven calls",
                        context: { "kraken was asked \(exchange.requests(.kraken).map(\.uri)); logs:\n" + daemons.map(\.log).joined(separator: "\n---\n") }) {
            guard exchange.requestCount(.kraken) >= 7 else { return false }
            for daemon in daemons where try await daemon.ctl("price").status != 0 { return false }
            return true
        }
        let requests = exchange.requests(.kraken)
        #expect(Set(requests.map(\.uri)) == Set(["USD", "EUR", "GBP"].map { "/0/public/Ticker?pair=XBT\($0)" }), "\(requests.map(\.uri))")
        // Claims are at least 1 s apart, so seven calls span at least 6 s. Arrivals at the fake
        // add each request's own trip (a first connection can take a while on a loaded machine),
        // which moves only the ends: 5 s leaves a second for it. Apiece, the three would make
        // seven calls in about 4 s.
        let span = requests[0].receivedAt.duration(to: requests[6].receivedAt)
        let gaps = zip(requests, requests.dropFirst()).map { $0.receivedAt.duration(to: $1.receivedAt) }
        #expect(span >= .seconds(5), "seven kraken calls from the three instances came within \(span): \(gaps) apart")
    }

    @Test func aSavedDollarQuoteIsNotRestoredAsEuros() async throws {
        let exchange = try await FakeExchange.start()
        let dollars = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { dollars.removeFiles() }
        try await dollars.start()
        try await until("a saved dollar quote") { FileManager.default.fileExists(atPath: dollars.quoteFile) }
        dollars.stop()
        // Binance's USDT, or Coinbase's USD when Binance was slow on a busy machine.
        let saved = try JSONValue(parsing: try String(contentsOfFile: dollars.quoteFile, encoding: .utf8))
        let savedPrice = try #require(saved["price"]?.stringValue), savedCurrency = try #require(saved["currency"]?.stringValue)

        exchange.set(.binance, .hang)
        let euros = try DaemonProcess(exchangeURL: exchange.baseURL, directory: dollars.directory, settings: ["BTCPRICED_CURRENCY": "EUR", "BTCPRICED_SOURCES": "binance"])
        defer { euros.stop() }
        try await euros.start()
        try await until("the restore decision is logged") { euros.log.contains("restored") || euros.log.contains("not restoring") }
        #expect(euros.log.contains("not restoring \(savedPrice) \(savedCurrency)"), "\(euros.log)")
        #expect(euros.log.contains("it is in \(savedCurrency), and the configured sources quote EUR"), "\(euros.log)")
        let price = try await euros.ctl("price")
        #expect(price.status != 0 && !price.stdout.contains(savedPrice), "\(price)")
        let status = try JSONValue(parsing: try await euros.ctl("status", "--json").stdout)
        #expect(status["state"] == .string("nodata") && status["currency"] == .string("EUR"), "no quote yet, labelled with the configured currency: \(status)")
    }

    @Test(arguments: [Market.kraken, .coinbase, .binance])
    func tradesStreamInEuros(venue: Market) async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(venue, .trades(prices: ["89712.45", "89713.10"], perSecond: 20))
        // REST in euros too (the fake does not convert): a stream 20 % below every venue's REST
        // price would be a glitch the price check holds.
        exchange.setEveryVenue(price: "89711.5")
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_CURRENCY": "EUR", "BTCPRICED_STREAM": venue.rawValue])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        let expected = ["kraken": "BTC/EUR", "coinbase": "BTC-EUR", "binance": "BTCEUR"][venue.rawValue]!
        try await until("a streamed euro trade from \(venue)", context: { daemon.log }) {
            let status = try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
            return status["transport"] == .string("stream") && status["symbol"] == .string(expected) && status["currency"] == .string("EUR")
        }
        #expect(["89712.45\n", "89713.1\n"].contains(try await daemon.ctl("price").stdout))
    }

    @Test func checkConfigNamesEachVenuesSymbolAndAChainWithoutTheCurrencyIsRefused() async throws {
        let check = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--socket", NSTemporaryDirectory() + "c.sock",
                                                           "--state-dir", NSTemporaryDirectory()], environment: ["BTCPRICED_CURRENCY": "GBP"])
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("currency: GBP"), "\(check.stdout)")
        #expect(check.stdout.contains("enabled, BTC/GBP as BTC-GBP"), "\(check.stdout)")
        #expect(check.stdout.contains("enabled, BTC/GBP as XBTGBP"), "\(check.stdout)")
        #expect(check.stdout.contains("enabled, BTC/GBP as btcgbp"), "\(check.stdout)")
        #expect(check.stdout.contains("unsupported — no BTC/GBP market"), "\(check.stdout)")

        let refused = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config"],
                                           environment: ["BTCPRICED_CURRENCY": "JPY", "BTCPRICED_SOURCES": "coinbase,bitstamp"])
        #expect(refused.status == 78, "\(refused)")
        #expect(refused.stderr.contains("no venue in BTCPRICED_SOURCES (coinbase,bitstamp) has a BTC/JPY market; venues that quote JPY: kraken, cryptocompare"),
                "\(refused.stderr)")

        let typo = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config"], environment: ["BTCPRICED_CURRENCY": "GPB"])
        #expect(typo.status == 78, "\(typo)")
        #expect(typo.stderr.contains("did you mean GBP?"), "\(typo.stderr)")
    }

    /// A currency no market trades (the Czech koruna) is Coinbase's reference rate, labelled as
    /// such in every answer, and no market is asked for a pair it does not have.
    @Test func aCurrencyNoMarketTradesIsServedAsALabelledReferenceRate() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.coinbaseRates, .price("2512345.6712"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_CURRENCY": "CZK"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        var status = JSONValue.null
        try await until("the koruna's reference rate", context: { "\(status)" }) {
            status = try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
            return status["price"] != .null
        }
        #expect(status["price"] == .string("2512345.6712") && status["currency"] == .string("CZK"), "\(status)")
        #expect(status["source"] == .string("coinbase-rates") && status["symbol"] == .string("BTC-CZK rate"), "\(status)")
        let human = try await daemon.ctl("status").stdout
        #expect(human.hasPrefix("BTC/CZK  CZK 2,512,345.67\n") && human.contains("coinbase-rates"), "\(human)")

        let report = try JSONValue(parsing: try await daemon.ctl("sources", "--json").stdout)
        #expect(entry(report, "coinbase-rates")?["quote_asset"] == .string("CZK"), "\(report)")
        #expect(entry(report, "kraken")?["state"] == .string("unsupported"), "\(report)")
        let rates = asked(exchange, .coinbaseRates)
        #expect(!rates.isEmpty && rates.allSatisfy { $0 == "/v2/exchange-rates?currency=BTC" }, "coinbase-rates was asked \(rates)")
        for market in Market.allCases where market != .coinbaseRates {
            #expect(exchange.requestCount(market) == 0, "\(market) was asked \(asked(exchange, market))")
        }

        // A table a cache held for 30 s is 30 s old, never fresher than the reference itself.
        exchange.set(.coinbaseRates, .cached(ageSeconds: 30, price: "2512399.1"))
        try await until("the cached table's rate, as old as the cache says", context: { "\(status)" }) {
            status = try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
            return status["price"] == .string("2512399.1")
        }
        let age = status["age"]?.numberLiteral.flatMap(Double.init) ?? 0
        #expect(age >= 30 && status["state"] == .string("stale"), "\(status)")

        let check = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--socket", NSTemporaryDirectory() + "c.sock",
                                                           "--state-dir", NSTemporaryDirectory()], environment: ["BTCPRICED_CURRENCY": "CZK"])
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("then coinbase-rates https://api.coinbase.com/v2/exchange-rates?currency=BTC\n"
                                      + "     enabled — no market btcpriced knows trades BTC/CZK: CZK comes from coinbase-rates, a reference rate"), "\(check.stdout)")
    }

    /// A named stream venue without the currency's market once streamed a market that does not
    /// exist (btcgbp@aggTrade) while --check-config said OK; now both refuse it and name the
    /// venues that stream the currency.
    @Test func aNamedStreamVenueWithoutTheCurrencysMarketIsAConfigurationError() async throws {
        let expected = "BTCPRICED_STREAM=binance: binance has no BTC/GBP market; coinbase and kraken stream BTC/GBP; set BTCPRICED_STREAM=auto or one of them"
        let environment = ["BTCPRICED_CURRENCY": "GBP", "BTCPRICED_STREAM": "binance"]
        let check = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--socket", NSTemporaryDirectory() + "c.sock",
                                                           "--state-dir", NSTemporaryDirectory()], environment: environment)
        #expect(check.status == 78, "\(check)")
        #expect(check.stderr.contains(expected), "\(check.stderr)")
        #expect(!check.stdout.contains("configuration OK"), "\(check.stdout)")

        let directory = NSTemporaryDirectory() + "btcpriced-stream-gbp-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let start = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--state-dir", directory, "--socket", directory + "/s.sock"],
                                         environment: environment, timeout: .seconds(30))
        #expect(start.status == 78, "\(start)")
        #expect(start.stderr.contains(expected), "\(start.stderr)")

        for stream in ["auto", "kraken"] {
            let usable = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--socket", NSTemporaryDirectory() + "c.sock",
                                                                "--state-dir", NSTemporaryDirectory()],
                                              environment: ["BTCPRICED_CURRENCY": "GBP", "BTCPRICED_STREAM": stream])
            #expect(usable.status == 0, "BTCPRICED_STREAM=\(stream): \(usable)")
        }
    }
}
