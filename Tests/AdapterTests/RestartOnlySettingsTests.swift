import DaemonConfig
import Foundation
import Testing

/// What a reload applies and what waits for a restart, without a daemon.
@Suite("Restart-only settings on reload")
struct RestartOnlySettingsTests {
    func load(_ environment: [String: String]) throws -> DaemonSettings {
        try SettingsLoader.load(.init(environment: environment))
    }

    @Test func aReloadKeepsTheStartedCurrencyStreamSocketAndMetricsAndSaysSo() throws {
        let started = try load(["BTCPRICED_CURRENCY": "USD", "BTCPRICED_STREAM": "auto"])
        let next = try load(["BTCPRICED_CURRENCY": "GBP", "BTCPRICED_STREAM": "binance", "BTCPRICED_SOCKET": "/run/other.sock",
                             "BTCPRICED_METRICS_LISTEN": "127.0.0.1:9843", "BTCPRICED_STALE_AFTER": "30s"])
        let kept = RestartOnlySettings.keep(started, in: next)
        #expect(kept.settings.currency == started.currency && kept.settings.stream == started.stream)
        #expect(kept.settings.socketPath == started.socketPath && kept.settings.http.address == nil)
        #expect(kept.settings.staleAfter == .seconds(30), "a live setting is applied")
        #expect(kept.warnings == [
            "BTCPRICED_CURRENCY changes (USD to GBP) take effect at the next restart",
            "BTCPRICED_STREAM changes take effect at the next restart; at the next restart it would stop the daemon: BTCPRICED_STREAM=binance: binance has no BTC/GBP market; coinbase and kraken stream BTC/GBP; set BTCPRICED_STREAM=auto or one of them",
            "BTCPRICED_SOCKET changes take effect at the next restart",
            "BTCPRICED_HTTP_LISTEN and BTCPRICED_METRICS_LISTEN changes take effect at the next restart",
        ], "\(kept.warnings)")
    }

    /// Each key the table marks restart-only is kept, and named alone when it alone changed.
    @Test(arguments: [("BTCPRICED_STATE_DIR", "/tmp/elsewhere"), ("BTCPRICED_KRAKEN_STREAM_URL", "wss://ws.example.org/v2"),
                      ("BTCPRICED_PUBLISH_INTERVAL", "1s"), ("BTCPRICED_HTTP_ORIGINS", "https://example.org"),
                      ("BTCPRICED_METRICS_TEXTFILE_INTERVAL", "1m")])
    func aChangedRestartOnlyKeyIsNamedAlone(key: String, value: String) throws {
        let started = try load([:]), next = try load([key: value])
        let kept = RestartOnlySettings.keep(started, in: next)
        #expect(kept.warnings == ["\(key) changes take effect at the next restart"], "\(kept.warnings)")
        #expect(kept.settings == started, "\(key) kept as started")
    }

    @Test func anUnchangedReloadWarnsOfNothing() throws {
        let started = try load(["BTCPRICED_CURRENCY": "EUR"])
        let kept = RestartOnlySettings.keep(started, in: try load(["BTCPRICED_CURRENCY": "EUR", "BTCPRICED_INTERVAL": "2s"]))
        #expect(kept.warnings.isEmpty, "\(kept.warnings)")
        #expect(kept.settings.interval == .seconds(2))
        #expect(!RestartOnlySettings.chainChanged(from: started, to: kept.settings))
        #expect(RestartOnlySettings.chainChanged(from: started, to: try load(["BTCPRICED_CURRENCY": "EUR", "BTCPRICED_SOURCES": "kraken"])))
    }

    /// A SIGHUP's reading, over a real file: each load applies what it may, a file that does not
    /// load keeps the current settings, and the warnings compare with the start every time.
    @Test func aReloadReadsTheFileAgainAndABrokenOneKeepsTheCurrentSettings() throws {
        let path = NSTemporaryDirectory() + "btcpriced-reload-\(UUID().uuidString.prefix(8)).conf"
        defer { try? FileManager.default.removeItem(atPath: path) }
        func write(_ text: String) throws { try text.write(toFile: path, atomically: true, encoding: .utf8) }
        try write("BTCPRICED_INTERVAL=1s\n")
        let options = DaemonOptions(configPath: path)
        let reload = ConfigReload(options: options, environment: [:], started: try SettingsLoader.load(options, environment: [:]))

        try write("BTCPRICED_INTERVAL=3s\nBTCPRICED_SOURCES=kraken,coinbase\n")
        let first = try reload.next()
        #expect(first.settings.interval == .seconds(3) && first.chainChanged && first.warnings.isEmpty, "\(first.summary) \(first.warnings)")
        #expect(first.summary.hasPrefix("reloaded configuration: fallback over kraken,coinbase, interval 3s"), "\(first.summary)")

        try write("BTCPRICED_INTERVAL=soon\n")
        #expect(throws: ConfigError.self) { try reload.next() }
        #expect(reload.current.interval == .seconds(3), "a broken file leaves the last good settings in force")

        try write("BTCPRICED_INTERVAL=3s\nBTCPRICED_SOURCES=kraken,coinbase\nBTCPRICED_CURRENCY=EUR\n")
        let third = try reload.next()
        #expect(!third.chainChanged && third.settings.currency == reload.current.currency && third.settings.currency.code == "USD",
                "\(third.settings.currency)")
        #expect(third.warnings == ["BTCPRICED_CURRENCY changes (USD to EUR) take effect at the next restart"], "\(third.warnings)")
    }
}
