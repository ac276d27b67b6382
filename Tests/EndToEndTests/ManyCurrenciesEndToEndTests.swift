import ClientKit
import FakeExchange
import Foundation
import JSONText
import Testing

/// BTCPRICED_CURRENCIES against the fake exchange: one daemon serves each currency listed, each
/// from its own chain (a reference rate where no market trades it), over the socket and btcctl;
/// a single-currency install's files are carried into their currency's directory.
@Suite("Several currencies from one daemon, end to end")
struct ManyCurrenciesEndToEndTests {
    let currencies = "USD,EUR,JPY,CZK"

    /// `btcctl prices --json` once every currency listed is fresh.
    func everyCurrencyFresh(_ daemon: DaemonProcess) async throws -> JSONValue {
        var reply = JSONValue.null
        try await until("every currency fresh", context: { "prices: \(reply)\nlog:\n\(daemon.log)" }) {
            reply = (try? JSONValue(parsing: try await daemon.ctl("prices", "--json").stdout)) ?? .null
            guard case .object(let entries)? = reply["currencies"] else { return false }
            return entries.members.map(\.key) == ["USD", "EUR", "JPY", "CZK"] && entries.members.allSatisfy { $0.value["state"] == .string("fresh") }
        }
        return reply
    }

    func check(_ daemon: DaemonProcess) async throws {
        let reply = try await everyCurrencyFresh(daemon)
        let entries = reply["currencies"]
        #expect(entries?["EUR"]?["currency"] == .string("EUR"), "\(reply)")
        #expect(entries?["JPY"]?["currency"] == .string("JPY") && entries?["JPY"]?["source"] == .string("kraken"), "only kraken lists BTC/JPY: \(reply)")
        #expect(entries?["CZK"]?["price"] == .string("2512345.67") && entries?["CZK"]?["source"] == .string("coinbase-rates"),
                "CZK is no market's: the reference rate, labelled \(reply)")

        let yen = try await daemon.ctl("--currency", "jpy", "status", "--json")
        // Kraken's pair as polled (XXBTZJPY) or streamed (BTC/JPY).
        #expect(yen.status == 0 && (yen.stdout.contains("\"symbol\":\"XXBTZJPY\"") || yen.stdout.contains("\"symbol\":\"BTC/JPY\"")), "\(yen)")
        let euro = try await daemon.ctl("--currency", "EUR", "status")
        #expect(euro.stdout.hasPrefix("BTC/EUR  €"), "\(euro)")
        let history = try await daemon.ctl("--currency", "EUR", "chart", "--range", "1h", "--json")
        #expect(history.status == 0 && history.stdout.contains("\"currency\":\"EUR\""), "\(history)")
        let table = try await daemon.ctl("prices")
        #expect(table.status == 0 && table.stdout.hasPrefix("CURRENCY") && table.stdout.contains("CZK") && table.stdout.contains("coinbase-rates"), "\(table)")
        let unserved = try await daemon.ctl("--currency", "nok", "price")
        #expect(unserved.status == 1 && unserved.stderr.contains("btcpriced serves USD, EUR, JPY, CZK, not NOK"), "\(unserved)")
        let metrics = try await daemon.ctl("metrics").stdout
        #expect(metrics.contains(#"btcpriced_stale{currency="CZK"} 0"#) && metrics.contains(#"quote_asset="JPY",currency="JPY""#),
                "every currency in the metrics: \(metrics)")
        // Protocol 1's requests answer as before: the primary currency.
        let primary = try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
        #expect(primary["currency"] == .string("USDT") || primary["currency"] == .string("USD"), "the primary is USD: \(primary)")
    }

    @Test func eachCurrencyListedIsServedFromItsOwnChainByPolling() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_CURRENCIES": currencies])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await check(daemon)
        // One request per venue for every currency that asks it, where the venue takes a list.
        let krakenAsked = exchange.requests(.kraken).map(\.uri)
        #expect(!krakenAsked.isEmpty && krakenAsked.allSatisfy { $0 == "/0/public/Ticker?pair=XBTUSD,XBTEUR,XBTJPY" },
                "kraken is JPY's venue, asked for every currency whose chain has it: \(krakenAsked)")
        let binanceAsked = exchange.requests(.binance).map(\.uri)
        #expect(!binanceAsked.isEmpty && binanceAsked.allSatisfy { $0 == "/api/v3/ticker/price?symbols=%5B%22BTCUSDT%22,%22BTCEUR%22%5D" },
                "USD and EUR in one request: \(binanceAsked)")
    }

    /// The twin with every default on: the primary streams, every currency backfills its history.
    @Test func eachCurrencyListedIsServedWithEveryDefaultOn() async throws {
        let exchange = try await FakeExchange.start()
        let port = try freePort()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "BTCPRICED_CURRENCIES": currencies, "BTCPRICED_STREAM": "auto", "BTCPRICED_BACKFILL": "on", "BTCPRICED_PERSIST_INTERVAL": "2m",
            "BTCPRICED_HTTP_LISTEN": "127.0.0.1:\(port)",
        ])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await check(daemon)

        // One stream connection per venue carries every currency's pair, and each currency's link
        // runs its own pair of it: EUR streams from Binance beside USD, JPY from Kraken.
        for (currency, venue) in [("EUR", "binance"), ("JPY", "kraken")] {
            var sources = JSONValue.null
            try await until("\(currency) streams from \(venue)", context: { "sources: \(sources)\nlog:\n\(daemon.log)" }) {
                sources = (try? JSONValue(parsing: try await daemon.ctl("--currency", currency, "sources", "--json").stdout)) ?? .null
                return sources["stream"]?["name"] == .string(venue) && sources["stream"]?["state"] == .string("live")
            }
        }
        #expect(exchange.streamPairs(.binance).allSatisfy { $0 == ["BTCUSDT", "BTCEUR"] } && exchange.streamConnectionCount(.binance) == 1,
                "one Binance connection for USD and EUR: \(exchange.streamPairs(.binance))")
        #expect(exchange.streamPairs(.kraken).allSatisfy { $0 == ["BTC/USD", "BTC/EUR", "BTC/JPY"] } && exchange.streamConnectionCount(.kraken) == 1,
                "one Kraken connection for every currency whose chain streams from it: \(exchange.streamPairs(.kraken))")

        // The HTTP listener answers each currency from its own quote, as the socket does.
        let base = "http://127.0.0.1:\(port)"
        let euro = try await HTTPEndToEndTests.curl(["\(base)/api/v1/status?currency=eur"])
        #expect(euro.stdout.contains("\"currency\":\"EUR\""), "\(euro)")
        let mempool = try JSONValue(parsing: try await HTTPEndToEndTests.curl(["\(base)/api/v1/prices"]).stdout)
        #expect(mempool["USD"]?.numberLiteral != nil && mempool["EUR"]?.numberLiteral != nil && mempool["JPY"]?.numberLiteral != nil
                && mempool["CZK"] == nil, "mempool's seven that are served: \(mempool)")
        let rates = try JSONValue(parsing: try await HTTPEndToEndTests.curl(["\(base)/api/rates?currencyPairs=BTC_EUR,BTC_CZK"]).stdout)
        let numbers = rates.arrayElements?.map { $0["rate"]?.numberLiteral }
        #expect(numbers?.count == 2 && numbers?[0] != nil && numbers?[1] == "2512345.67", "each pair from its own quote: \(rates)")
    }

    @Test func aSingleCurrencyInstallsFilesBecomeItsCurrencysOnTheFirstStartWithAList() async throws {
        let exchange = try await FakeExchange.start()
        let single = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { single.removeFiles() }
        try await single.start()
        try await until("a first quote saved") { FileManager.default.fileExists(atPath: single.quoteFile) }
        single.stop()
        let saved = try String(contentsOfFile: single.quoteFile, encoding: .utf8)

        let several = try DaemonProcess(exchangeURL: exchange.baseURL, directory: single.directory, settings: ["BTCPRICED_CURRENCIES": currencies])
        defer { several.stop() }
        try await several.start()
        let carried = single.stateDirectory + "/usd/quote.json"
        #expect(!FileManager.default.fileExists(atPath: single.quoteFile), "the single-currency quote.json was moved, not copied")
        #expect(several.log.contains("carried quote.json"), "\(several.log)")
        let restored = try? String(contentsOfFile: carried, encoding: .utf8)
        #expect(restored != nil, "no \(carried): \(several.log)")
        #expect(several.log.contains("restored") && saved.contains("\"price\""), "\(several.log)")
        _ = try await everyCurrencyFresh(several)
    }

    /// `watch EUR` follows the euro's quote alone, `watch *` every currency's, as the HTTP event
    /// streams do with `?currency=`.
    @Test func watchFollowsOneCurrencyOrEveryOne() async throws {
        let exchange = try await FakeExchange.start()
        let port = try freePort()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_CURRENCIES": "USD,EUR", "BTCPRICED_HTTP_LISTEN": "127.0.0.1:\(port)"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        var reply = ""
        try await until("both currencies fresh", context: { reply }) {
            reply = (try? await daemon.ctl("prices", "--json").stdout) ?? ""
            return reply.components(separatedBy: "\"state\":\"fresh\"").count == 3
        }
        var euro = try UnixSocketClient(path: daemon.socket, timeoutMilliseconds: 10_000)
        defer { euro.closeConnection() }
        try euro.send("watch eur\n")
        let first = try await euro.nextLine() ?? ""
        #expect(first.contains("\"symbol\":\"BTCEUR\""), "EUR's status first: \(first)")
        var every = try UnixSocketClient(path: daemon.socket, timeoutMilliseconds: 10_000)
        defer { every.closeConnection() }
        try every.send("watch *\n")
        let firsts = [try await every.nextLine() ?? "", try await every.nextLine() ?? ""]
        #expect(!firsts[0].contains("\"currency\":\"EUR\"") && firsts[1].contains("\"currency\":\"EUR\""), "each currency's status, the primary first: \(firsts)")

        // A new price: the euro's watcher hears the euro's lines, never the dollar's.
        exchange.set(.binance, .price("114470.5"))
        var lines: [String] = []
        while lines.count < 30, let line = try await euro.nextLine() {
            lines.append(line)
            if line.contains("\"price\":\"114470.5\"") { break }
        }
        #expect(lines.last?.contains("\"price\":\"114470.5\"") == true && lines.allSatisfy { $0.contains("\"currency\":\"EUR\"") }, "\(lines)")
        var heard: Set<String> = []
        for _ in 0..<60 where heard.count < 2 {
            guard let line = try await every.nextLine() else { break }
            if line.contains("114470.5") { heard.insert(line.contains("\"currency\":\"EUR\"") ? "EUR" : "USD") }
        }
        #expect(heard == ["USD", "EUR"], "watch * hears both currencies' new price")

        let events = try await HTTPEndToEndTests.curl(["-N", "--max-time", "2", "http://127.0.0.1:\(port)/api/v1/events?currency=EUR"])
        #expect(events.stdout.contains("data: {") && events.stdout.contains("\"currency\":\"EUR\"") && !events.stdout.contains("\"currency\":\"USD"),
                "the events of EUR alone: \(events.stdout)")
        let unserved = try await HTTPEndToEndTests.curl(["-i", "http://127.0.0.1:\(port)/api/v1/events?currency=NOK"])
        #expect(unserved.stdout.contains("NOK") && !unserved.stdout.contains("text/event-stream"), "\(unserved.stdout)")
    }
}
