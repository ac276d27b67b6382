import FakeExchange
import Foundation
import JSONText
import Testing

/// A REST answer is as old as its origin says: a cache's `Age`, a venue's own time field.
@Suite("Answer ages from their origin, end to end")
struct OriginAgeEndToEndTests {
    func status(_ daemon: DaemonProcess) async throws -> JSONValue {
        try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
    }

    func age(_ status: JSONValue) -> Double? { status["age"]?.numberLiteral.flatMap(Double.init) }

    @Test func aCachedAnswerIsServedAsOldAsTheCacheSays() async throws {
        let exchange = try await FakeExchange.start()
        let began = Date()
        exchange.set(.coinbase, .cached(ageSeconds: 30, price: "85866.185"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "coinbase", "BTCPRICED_STALE_AFTER": "1m"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a coinbase quote") { try await daemon.ctl("price").stdout == "85866.185\n" }
        let served = try await status(daemon)
        let seconds = try #require(age(served), "no age in \(served.encoded)")
        // Its age grows from 30 s by the time since the answer, which is within the test's own time.
        let sinceBegan = Date().timeIntervalSince(began)
        #expect(seconds >= 30 && seconds <= 30 + sinceBegan + 1, "a 30 s old cached answer served as \(seconds) s old, \(sinceBegan) s into the test")
        #expect(served["state"]?.stringValue == "fresh", "\(served.encoded)")
        await exchange.shutdown()
    }

    @Test func aMempoolChainIsDatedByItsTimeAndCheckConfigSaysWhatToSet() async throws {
        let exchange = try await FakeExchange.start()
        let fiveMinutesAgo = Int(Date().timeIntervalSince1970) - 300
        exchange.set(.mempool, .body(#"{"time":\#(fiveMinutesAgo),"USD":85866,"EUR":74118,"GBP":65329}"#))
        let settings = ["BTCPRICED_SOURCES": "mempool", "BTCPRICED_CURRENCY": "EUR"]
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: settings)
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a mempool quote") { try await daemon.ctl("price").stdout == "74118\n" }
        let served = try await status(daemon)
        let seconds = try #require(age(served), "no age in \(served.encoded)")
        // As old as its `time` says: now minus that time, to the second, however long the test took.
        let sinceTime = Date().timeIntervalSince1970 - Double(fiveMinutesAgo)
        #expect(seconds >= 300 && seconds <= sinceTime + 1, "an answer whose time is \(sinceTime) s ago served as \(seconds) s old")
        #expect(served["state"]?.stringValue == "stale", "older than BTCPRICED_STALE_AFTER=10s: \(served.encoded)")
        #expect(daemon.log.contains("Set BTCPRICED_STALE_AFTER=65m"), "no advice at start: \(daemon.log)")
        #expect(exchange.requests(.mempool).allSatisfy { $0.uri == "/api/v1/prices" })

        let scratch = NSTemporaryDirectory() + "btcpriced-check-\(UUID().uuidString.prefix(8))"
        let check = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--state-dir", scratch + "/state",
                                                           "--socket", scratch + "/run/btcpriced.sock"],
                                         environment: settings.merging(["BTCPRICED_MEMPOOL_URL": "http://127.0.0.1:9"]) { $1 })
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("1. mempool       http://127.0.0.1:9/api/v1/prices"), "\(check.stdout)")
        #expect(check.stdout.contains("note: mempool may answer the same price for up to 60m"), "\(check.stdout)")
        #expect(check.stdout.contains("Set BTCPRICED_STALE_AFTER=65m"), "\(check.stdout)")
        let calm = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--state-dir", scratch + "/state",
                                                          "--socket", scratch + "/run/btcpriced.sock"],
                                        environment: settings.merging(["BTCPRICED_STALE_AFTER": "70m"]) { $1 })
        #expect(calm.status == 0 && !calm.stdout.contains("note: mempool"), "no advice once STALE_AFTER is long enough: \(calm.stdout)")
        #expect(calm.stdout.contains("https://mempool.space/api/v1/prices") && calm.stdout.contains("at most one call every 10s"), "\(calm.stdout)")
        await exchange.shutdown()
    }

    /// A host clock an hour ahead of the venues', as the daemon sees it from its start: the
    /// venues' `Date` an hour behind. (A step while it runs is tested on injected clocks, in
    /// HostClockTests: libfaketime hides a Swift program's arguments.)
    @Test func aHostClockAnHourAheadKeepsAnswersFreshAndSaysSo() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .price("100000.5"))
        exchange.setClock(behindBySeconds: 3_600)
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        // An hour, and the first answer's travel and its Date's dropped fraction on top.
        let warning = "s ahead of the venues' clocks; ages are corrected; check NTP (systemd-timesyncd)"
        try await until("the warning", context: { daemon.log }) { daemon.log.contains(warning) }
        let said = daemon.log.split(separator: "\n").first { $0.contains(warning) }.map(String.init) ?? ""
        #expect(["3,600", "3,601", "3,602", "3,603"].contains { said.hasPrefix("warning: the host clock is \($0) s ahead") }, "\(said)")
        exchange.set(.binance, .price("100001.5"))
        try await until("the new price") { try await daemon.ctl("price").stdout == "100001.5\n" }
        let served = try await status(daemon)
        let seconds = try #require(age(served), "no age in \(served.encoded)")
        // Fresh, and its travel's age, not an hour (how long the travel took is the machine's affair).
        #expect(served["state"]?.stringValue == "fresh" && seconds < 60, "an answer made now, on a host an hour ahead: \(served.encoded)")
        let metrics = try await daemon.ctl("metrics").stdout
        let offset = metrics.split(separator: "\n").first { $0.hasPrefix("btcpriced_clock_offset_seconds ") }.flatMap { Double($0.split(separator: " ")[1]) }
        #expect(offset.map { $0 > 3_599 && $0 < 3_602 } == true, "btcpriced_clock_offset_seconds: \(String(describing: offset))")

        // The venues' clocks come right (as the host's would after NTP): said once, ages as they are.
        exchange.setClock(behindBySeconds: 0)
        exchange.set(.binance, .price("100002.5"))
        try await until("the clock agrees again", context: { daemon.log }) { daemon.log.contains("the host clock agrees with the venues' clocks again") }
        let warnings = daemon.log.components(separatedBy: warning).count - 1
        #expect(warnings == 1, "one warning, however many answers: \(warnings)")
        await exchange.shutdown()
    }
}
