import ClientKit
import FakeExchange
import Foundation
import JSONText
import Testing

/// The daemon, as built, against a venue that glitches: its price is held or refused, the
/// chain asks the next venue in the same cycle, and only a second venue's word lets a large
/// move through. `btcctl sources`, the journal and the metrics say what happened.
@Suite("Prices checked before they are served, end to end")
struct PriceCheckEndToEndTests {
    func entry(_ daemon: DaemonProcess, _ name: String) async throws -> JSONValue? {
        let report = try JSONValue(parsing: try await daemon.ctl("sources", "--json").stdout)
        return report["sources"]?.arrayElements?.first { $0["name"]?.stringValue == name }
    }

    /// The value of `family{source="…"}` in the daemon's metrics, 0 when absent.
    func counter(_ daemon: DaemonProcess, _ family: String, source: String) async throws -> Int {
        let prefix = "\(family){source=\"\(source)\"} "
        let line = try await daemon.ctl("metrics").stdout.split(separator: "\n").first { $0.hasPrefix(prefix) }
        return line.flatMap { Int($0.dropFirst(prefix.count)) } ?? 0
    }

    @Test func aLoneVenuesGlitchIsHeldThenRejectedByTheNextVenueAndLoggedOnce() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "100020.5")
        exchange.set(.binance, .price("100000.5"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("binance's quote") { try await daemon.ctl("price").stdout == "100000.5\n" }

        exchange.set(.binance, .price("50000.5"))
        try await until("coinbase serves in binance's place") { try await daemon.ctl("price").stdout == "100020.5\n" }
        let binance = try await entry(daemon, "binance")
        #expect(binance?["state"] == .string("unconfirmed") && binance?["last_price"] == .string("50000.5"), "\(String(describing: binance))")
        let coinbaseCalls = exchange.requestCount(.coinbase)
        try await until("three more cycles") { exchange.requestCount(.coinbase) >= coinbaseCalls + 3 }
        #expect(try await daemon.ctl("price").stdout == "100020.5\n", "the glitch never reaches the board")
        let log = daemon.log
        // The last quote is binance's 100000.5, or coinbase's 100020.5 when a loaded host timed
        // binance out for a cycle before the glitch: either way, said once.
        let heldLines = log.split(separator: "\n").filter {
            $0.contains("binance sent 50000.5, ") && $0.contains(" below the last quote 1000") && $0.contains("; held until another venue confirms it")
        }
        #expect(heldLines.count == 1, "\(log)")
        // Coinbase's word, or the next venue's when a loaded host made coinbase time out.
        #expect(log.split(separator: "\n").filter { $0.contains("binance's price 50000.5 is rejected: ") && $0.hasSuffix(" says 100020.5") }.count == 1, "\(log)")
        #expect(!log.contains("binance is failing: sent"), "a held price is not an outage: \(log)")
        let held = try await counter(daemon, "btcpriced_unconfirmed_prices_total", source: "binance")
        let rejected = try await counter(daemon, "btcpriced_rejected_prices_total", source: "binance")
        #expect(held >= 4 && rejected >= 4, "every held answer counts: \(held) held, \(rejected) rejected")
        await exchange.shutdown()
    }

    @Test func aRealCrashIsConfirmedByTheNextVenueInTheSameCycle() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "100010.5")
        exchange.set(.binance, .price("100000.5"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("binance's quote") { try await daemon.ctl("price").stdout == "100000.5\n" }

        exchange.setEveryVenue(price: "80010.5")
        exchange.set(.binance, .price("80000.5"))
        // The confirming price is served for a cycle, too short for a loaded host to see: the
        // journal's line says it was, and that the held price never reached the board first.
        // Binance's, confirmed by the next venue; or, when a loaded host timed binance out in
        // the crash's first cycle, coinbase's, confirmed by the venue after it.
        let crash = ["80000.5", "80010.5"]
        try await until("the crash, confirmed", context: { daemon.log }) {
            daemon.log.split(separator: "\n").contains { line in
                crash.contains { line.contains("'s price \($0) is confirmed by ") } && crash.contains { line.hasSuffix(" (\($0)); serving it") }
            }
        }
        try await until("binance serves again, near the confirmed price") { try await daemon.ctl("price").stdout == "80000.5\n" }
        #expect(try await entry(daemon, "binance")?["state"] == .string("ok"))
        #expect(try await counter(daemon, "btcpriced_rejected_prices_total", source: "binance") == 0)
        await exchange.shutdown()
    }

    @Test func aTenfoldPriceIsRefusedAndTheChainMovesOn() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "100010.5")
        exchange.set(.binance, .price("100000.5"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_CONFIRM_MOVE": "off"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("binance's quote") { try await daemon.ctl("price").stdout == "100000.5\n" }

        exchange.set(.binance, .price("5000000.5"))
        try await until("coinbase serves in binance's place", context: { daemon.log }) { try await daemon.ctl("price").stdout == "100010.5\n" }
        let binance = try await entry(daemon, "binance")
        #expect(binance?["state"] == .string("failing"), "\(String(describing: binance))")
        // The last quote is binance's, or coinbase's once it has served in binance's place.
        let error = binance?["last_error"]?.stringValue ?? ""
        #expect(error.hasPrefix("sent 5000000.5, more than ten times the last quote 100") && error.hasSuffix("; refused unless another venue agrees"), "\(error)")
        #expect(try await counter(daemon, "btcpriced_rejected_prices_total", source: "binance") >= 1)

        exchange.set(.binance, .price("70000.5"))
        try await until("a 30 % move served unconfirmed, as the rule is off") { try await daemon.ctl("price").stdout == "70000.5\n" }
        await exchange.shutdown()
    }

    /// A stream's trade is held like a polled price: the fetch loop wakes to ask another venue,
    /// which rejects it, and the board never serves the glitch.
    @Test func aStreamedGlitchIsHeldAndRejectedByPolling() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .trades(prices: ["100000.5"], perSecond: 5))
        exchange.setEveryVenue(price: "100010.5")
        exchange.set(.binance, .price("100000.5"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_STREAM": "auto"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a streamed quote") {
            try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)["transport"] == .string("stream")
        }
        exchange.set(.binance, .price("50000.5"))
        exchange.setStream(.binance, .trades(prices: ["50000.5"], perSecond: 5))
        try await until("the rejection", context: { daemon.log }) { daemon.log.contains("binance's price 50000.5 is rejected: ") }
        #expect(daemon.log.contains("binance sent 50000.5, 49.9 % below the last quote"), "\(daemon.log)")
        let price = try await daemon.ctl("price").stdout
        #expect(price == "100010.5\n" || price == "100000.5\n", "the glitch never reaches the board: \(price)")
        await exchange.shutdown()
    }
}
