import FakeExchange
import Foundation
import Testing

/// The first hour's traps, through the built programs: settings that would flap or cannot
/// start are said before the start, and the bars and waits say why they show what they show.
@Suite("Settings checked, bars and waits truthful, end to end")
struct SettingsAndBarsTruthTests {
    func checkConfig(_ directory: String, _ extra: [String] = [], environment: [String: String] = [:], config: String = "/dev/null") async throws -> CommandResult {
        try await runCommand(Binaries.daemon, ["--config", config, "--check-config", "--state-dir", directory + "/state",
                                               "--socket", directory + "/btcpriced.sock"] + extra, environment: environment)
    }

    @Test func aQuoteThatCanTurnStaleBetweenTwoGoodPollsIsWarnedAbout() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let short = try await checkConfig(directory, environment: ["BTCPRICED_STALE_AFTER": "500ms"])
        #expect(short.status == 0, "a warning, not an error: a stream may carry quotes faster: \(short)")
        #expect(short.stderr.contains("warning: BTCPRICED_STALE_AFTER=500ms is not longer than BTCPRICED_INTERVAL=1s plus BTCPRICED_TIMEOUT=800ms"),
                "\(short.stderr)")
        #expect(short.stderr.contains("set BTCPRICED_STALE_AFTER well above 1.8s"), "\(short.stderr)")
        let slow = try await checkConfig(directory, ["--interval", "1h"])
        #expect(slow.stderr.contains("BTCPRICED_STALE_AFTER=10s is not longer than BTCPRICED_INTERVAL=60m"), "\(slow.stderr)")
        let defaults = try await checkConfig(directory)
        #expect(!defaults.stderr.contains("BTCPRICED_STALE_AFTER"), "\(defaults.stderr)")
    }

    @Test func aSocketPathThatIsAFileFailsTheCheckWith73() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "not a socket\n".write(toFile: directory + "/btcpriced.sock", atomically: true, encoding: .utf8)
        let result = try await checkConfig(directory)
        #expect(result.status == 73, "as --help promises, and as the start would: \(result)")
        #expect(result.stderr.contains("\(directory)/btcpriced.sock exists and is not a socket; remove it or choose another path with --socket"), "\(result.stderr)")
    }

    @Test func aByteOrderMarkIsSkippedAndAMissingValueNamesItsOption() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let config = directory + "/btcpriced.conf"
        try Data([0xEF, 0xBB, 0xBF] + Array("BTCPRICED_INTERVAL=2s\n".utf8)).write(to: URL(fileURLWithPath: config))
        let bom = try await checkConfig(directory, config: config)
        #expect(bom.status == 0 && bom.stdout.contains("interval 2s"), "\(bom)")

        let daemon = try await runCommand(Binaries.daemon, ["--interval", "--check-config"])
        #expect(daemon.status == 64 && daemon.stderr.contains("--interval needs a value"), "\(daemon)")
        let ctl = try await runCommand(Binaries.ctl, ["--timeout", "status"])
        #expect(ctl.status == 2 && ctl.stderr.contains("--timeout needs a value: \"status\" was taken as its value"), "\(ctl)")
    }

    @Test func i3blocksPrintsThreeLinesWithTheDaemonDown() async throws {
        let result = try await runCommand(Binaries.ctl, ["--socket", "/nonexistent/btcpriced.sock", "i3blocks"])
        #expect(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast() == ["₿ —", "₿?", "#BF616A"],
                "full text, short text and the red btcctl(1) promises: \(result)")
    }

    @Test func withoutAFreshQuoteWaitSaysSoAndChartExitsAlikeInBothForms() async throws {
        let exchange = try await FakeExchange.start()
        for market in Market.allCases { exchange.set(market, .status(503)) }
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        let chart = try await daemon.ctl("chart"), json = try await daemon.ctl("chart", "--json")
        #expect(chart.status == 3 && json.status == 3, "no history: the same exit either way: \(chart) \(json)")
        let noData = try await daemon.ctl("wait", "--above", "1", "--timeout", "1s")
        #expect(noData.status == 3 && noData.stderr.contains("the daemon has no price yet"), "\(noData)")

        exchange.set(.binance, .price("70000.5"))
        try await until("a quote") { try await daemon.ctl("price").status == 0 }
        for market in Market.allCases { exchange.set(market, .status(503)) }
        try await until("the quote turns stale", timeout: .seconds(90)) {
            try await daemon.ctl("status", "--json").stdout.contains(#""state":"stale""#)
        }
        let stale = try await daemon.ctl("wait", "--above", "1", "--timeout", "1s")
        #expect(stale.status == 3, "\(stale)")
        #expect(stale.stderr.contains("the quote is stale (") && stale.stderr.contains("s old), so it was not checked against ≥ 1"), "\(stale.stderr)")
        #expect(!stale.stderr.contains("did not reach"), "never a false reason: \(stale.stderr)")
        await exchange.shutdown()
    }
}
