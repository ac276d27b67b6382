import FakeExchange
import Foundation
import JSONText
import Testing

/// Sats and `btcctl convert` through a real daemon's socket: the figures, the exit codes, and
/// what a stale price does to them.
@Suite("Money the way people count it, end to end")
struct MoneyEndToEndTests {
    @Test func satsAndConversionsFromTheDaemonsPrice() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .price("114459.80"))
        // Stale after 15 s: long enough that a loaded host's late answer never makes the fresh
        // checks below read a stale quote (3 s once did), short enough to wait for it at the end.
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance", "BTCPRICED_STALE_AFTER": "15s"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a quote") { try await daemon.ctl("price").stdout == "114459.8\n" }

        let status = try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
        #expect(status["sats_per_unit"] == .string("874"), "\(status)")
        let sats = try await daemon.ctl("price", "--unit", "sats")
        #expect(sats.status == 0 && sats.stdout == "874\n", "\(sats)")
        #expect(try await daemon.ctl("prompt", "--unit", "sats").stdout == "₿874 sats/USDT\n")
        #expect(try await daemon.ctl("price", "--format", "{sats} sat/{currency}").stdout == "874 sat/USDT\n")

        let fiat = try await daemon.ctl("convert", "0.05")
        #expect(fiat.status == 0 && fiat.stdout == "0.05000000 BTC = 5,722.99 USDT = 5,000,000 sats\n", "\(fiat)")
        let fromSats = try JSONValue(parsing: try await daemon.ctl("convert", "21000", "sats", "--json").stdout)
        #expect([fromSats["btc"], fromSats["sats"], fromSats["fiat"], fromSats["currency"]]
                == [.string("0.00021000"), .string("21000"), .string("24.04"), .string("USDT")], "\(fromSats)")
        let dollars = try await daemon.ctl("convert", "20", "USD")
        #expect(dollars.stdout == "20.00 USDT = 0.00017473 BTC = 17,473 sats\n", "\(dollars)")
        let euros = try await daemon.ctl("convert", "20", "eur")
        #expect(euros.status == 2 && euros.stderr.contains("the daemon quotes BTC/USDT, not EUR") && euros.stderr.contains("btcctl --currency eur convert 20 eur"), "\(euros)")
        let malformed = try await daemon.ctl("convert", "1.2.3")
        #expect(malformed.status == 2 && malformed.stderr.contains("\"1.2.3\" is not an amount"), "\(malformed)")

        // A stale price still converts, exits 3, and says how old it is.
        exchange.set(.binance, .status(503))
        try await until("the quote turns stale", timeout: .seconds(90)) {
            try await daemon.ctl("status", "--json").stdout.contains(#""state":"stale""#)
        }
        let stale = try await daemon.ctl("convert", "0.05")
        #expect(stale.status == 3 && stale.stdout == "0.05000000 BTC = 5,722.99 USDT = 5,000,000 sats\n", "\(stale)")
        #expect(stale.stderr.contains("btcctl: the price is stale: ") && stale.stderr.contains(" old (quote of "), "\(stale.stderr)")
        let staleSats = try await daemon.ctl("price", "--unit", "sats")
        #expect(staleSats.status == 3 && staleSats.stdout == "874\n", "\(staleSats)")
        await exchange.shutdown()
    }
}
