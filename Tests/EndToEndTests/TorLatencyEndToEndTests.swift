import FakeExchange
import Foundation
import JSONText
import Testing

/// The guide's Tor settings (`BTCPRICED_PROXY=socks5h://…` and nothing else) behind a SOCKS5
/// proxy with a Tor circuit's latency: 1.5 s to build each connection's circuit and 200 ms
/// each way per chunk after that. The daemon picks the route's defaults itself (a 10 s answer
/// timeout counted once connected, 30 s to connect, a 15 s interval, 60 s before stale).
@Suite("Tor at Tor's latency, end to end")
struct TorLatencyEndToEndTests {
    typealias Recorder = TorCircuitEndToEndTests.Recorder

    func startProxy(in directory: String, _ options: [String]) async throws -> Recorder {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/recording_socks5.py").path
        let port = try freePort(), log = directory + "/socks.log", output = directory + "/socks.out"
        let process = try SpawnedProcess(["/usr/bin/python3", script, "\(port)", log] + options, environment: ["PATH": "/usr/bin:/bin"], output: output)
        try await until("the SOCKS5 proxy listens") { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("listening") }
        return Recorder(process: process, port: port, log: log)
    }

    static let torLatency = ["--connect-delay", "1.5", "--chunk-delay", "0.2"]

    /// A daemon behind a proxy started with `options`, given `settings` (the proxy's port in
    /// hand), against a fresh fake exchange; all of it stopped and removed after `body`.
    func behindProxy(_ options: [String], settings: (Int) -> [String: String], prepare: (FakeExchange) -> Void = { _ in },
                     _ body: (FakeExchange, Recorder, DaemonProcess) async throws -> Void) async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let exchange = try await FakeExchange.start()
        prepare(exchange)
        let proxy = try await startProxy(in: directory, options)
        defer { proxy.process.stop() }
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: settings(proxy.port))
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await body(exchange, proxy, daemon)
        await exchange.shutdown()
    }

    func source(_ daemon: DaemonProcess, _ name: String) async throws -> JSONValue? {
        let report = try JSONValue(parsing: try await daemon.ctl("sources", "--json").stdout)
        return report["sources"]?.arrayElements?.first { $0["name"] == .string(name) }
    }

    @Test func theGuidesSettingsGetAFreshPriceAndKeepTheCircuitAcrossPolls() async throws {
        try await behindProxy(Self.torLatency, settings: { ["BTCPRICED_PROXY": "socks5h://127.0.0.1:\($0)"] },
                              prepare: { $0.setEveryVenue(price: "114460.5") }) { exchange, proxy, daemon in
            try await until("a fresh price through the slow circuit", context: { daemon.log }) {
                try await daemon.ctl("price").stdout == "114460.5\n"
            }
            // Three polls of binance at the route's 15 s interval: each after the first reuses the
            // connection, so its circuit was built once.
            try await until("three polls of binance", timeout: .seconds(120), context: { "\(proxy.connections)\n\(daemon.log)" }) {
                exchange.requestCount(.binance) >= 3
            }
            let binance = proxy.connections.filter { $0.user == "btcpriced-binance" }
            #expect(binance.count == 1, "one connection for \(exchange.requestCount(.binance)) polls: \(proxy.connections)")
            let status = try await daemon.ctl("status", "--json")
            let json = try JSONValue(parsing: status.stdout)
            #expect(json["stale"] == .bool(false) && status.status == 0, "still fresh: \(status.stdout)")
            #expect(!daemon.log.contains("timeout after"), "no attempt abandoned: \(daemon.log)")
            // The route's defaults, as check-config says.
            let check = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--state-dir", daemon.directory + "/check"],
                                             environment: ["BTCPRICED_PROXY": "socks5h://127.0.0.1:\(proxy.port)"])
            #expect(check.stdout.contains("settings: interval 15s, timeout 10s through the proxy once connected (connect 30s), stale after 1m"),
                    "\(check.stdout)\(check.stderr)")
            #expect(!check.stderr.contains("warning"), "the route's own defaults draw no warning: \(check.stderr)")
        }
    }

    @Test func theStreamGoesThroughTheSlowCircuitAndStaysLive() async throws {
        try await behindProxy(Self.torLatency, settings: { ["BTCPRICED_PROXY": "socks5h://127.0.0.1:\($0)", "BTCPRICED_STREAM": "auto"] },
                              prepare: { $0.setEveryVenue(price: "114460.5"); $0.setStream(.binance, .trades(prices: ["114460.5"], perSecond: 5)) }) {
            exchange, proxy, daemon in
            func streaming() async throws -> Bool {
                let status = try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
                return status["transport"] == .string("stream") && status["stale"] == .bool(false)
            }
            try await until("prices streamed through the slow circuit", context: { "\(proxy.connections)\n\(daemon.log)" }) { try await streaming() }
            // A hundred trades later (20 s at 5 a second, many times the direct link's stall limit
            // of 5 s), the first connection still carries them.
            let sent = exchange.streamTradesSent(.binance)
            try await until("a hundred more trades", timeout: .seconds(120)) { exchange.streamTradesSent(.binance) >= sent + 100 }
            #expect(try await streaming(), "\(daemon.log)")
            #expect(exchange.streamConnectionCount(.binance) == 1, "no reconnection: \(daemon.log)")
            #expect(!daemon.log.contains("stalled") && !daemon.log.contains("no message for"), "\(daemon.log)")
        }
    }

    /// A proxy that takes the connection and never answers the SOCKS greeting (a hung or
    /// half-started Tor), in front of the whole default chain: within the connect budget every
    /// venue's row names it (none is shown ok), the status's last error too, and the journal
    /// has one line for it, not one per venue.
    func silentProxy(connectTimeout: String?) async throws {
        let settings: (Int) -> [String: String] = { port in
            ["BTCPRICED_PROXY": "socks5h://127.0.0.1:\(port)"].merging(connectTimeout.map { ["BTCPRICED_CONNECT_TIMEOUT": $0] } ?? [:]) { $1 }
        }
        try await behindProxy(["--silent"], settings: settings) { exchange, proxy, daemon in
            let expected = "socks5h://127.0.0.1:\(proxy.port) did not answer the SOCKS greeting in \(connectTimeout ?? "30s"): is tor running and bootstrapped (journalctl -u tor), and is this its SOCKSPort?"
            let started = ContinuousClock.now
            try await until("every venue's row names the proxy", context: { daemon.log }) {
                let report = try JSONValue(parsing: try await daemon.ctl("sources", "--json").stdout)
                let rows = report["sources"]?.arrayElements?.filter { $0["state"]?.stringValue != "disabled" } ?? []
                return !rows.isEmpty && rows.allSatisfy { $0["state"] == .string("failing") && $0["last_error"]?.stringValue == expected }
            }
            let named = started.duration(to: .now)
            let status = try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
            #expect(status["last_error"]?.stringValue?.contains(expected) == true, "\(status)")
            let table = try await daemon.ctl("sources")
            #expect(!table.stdout.contains(" ok "), "no venue behind the silent proxy is shown ok: \(table.stdout)")
            try await until("the journal line", context: { daemon.log }) { daemon.log.contains(expected) }
            let lines = daemon.log.split(separator: "\n").filter { $0.hasPrefix("warning: \(expected)") || $0.contains("is failing: \(expected)") }
            #expect(lines.count == 1 && lines[0].contains("binance, coinbase, kraken, bitstamp cannot be reached through it"),
                    "one line for the proxy, naming its venues, not one per venue: \(lines)")
            #expect(Market.allCases.allSatisfy { exchange.requestCount($0) == 0 }, "nothing went around the proxy")
            print("silent proxy (connect budget \(connectTimeout ?? "30s")): named on every row after \(named)")
        }
    }

    @Test func aProxyThatNeverAnswersIsNamedWithTheConnectBudget() async throws {
        try await silentProxy(connectTimeout: "2s")
    }

    @Test func aProxyThatNeverAnswersIsNamedWithinTheDefaultBudget() async throws {
        try await silentProxy(connectTimeout: nil)
    }

    /// A proxy that completes its handshake and then holds every byte: the request runs into
    /// the ordinary answer timeout, and the error says that, through which proxy.
    @Test func aProxyThatStallsTheRequestFallsToTheAnswerTimeout() async throws {
        try await behindProxy(["--chunk-delay", "120"], settings: {
            ["BTCPRICED_PROXY": "socks5h://127.0.0.1:\($0)", "BTCPRICED_SOURCES": "binance", "BTCPRICED_TIMEOUT": "2s"]
        }) { exchange, proxy, daemon in
            let expected = "no answer within 2s through socks5h://127.0.0.1:\(proxy.port) (Tor circuits can take several seconds; is tor running and bootstrapped?)"
            try await until("the answer timeout named", context: { daemon.log }) {
                try await source(daemon, "binance")?["last_error"]?.stringValue == expected
            }
            try await until("the journal line", context: { daemon.log }) { daemon.log.contains("binance is failing: \(expected)") }
        }
    }

    @Test func aRefusingProxyAndASOCKSErrorEachHaveTheirMessage() async throws {
        // Binance through a proxy that cannot reach it, then coinbase through a port where nothing listens.
        try await behindProxy(["--reply", "4"], settings: { ["BTCPRICED_SOURCES": "binance", "BTCPRICED_PROXY": "socks5h://127.0.0.1:\($0)"] }) {
            _, unreachable, daemon in
            try await until("binance's SOCKS error", context: { daemon.log }) {
                try await source(daemon, "binance")?["last_error"]?.stringValue
                    == "the proxy socks5h://127.0.0.1:\(unreachable.port) could not reach the venue: host unreachable (SOCKS reply 4)"
            }
        }
        let exchange = try await FakeExchange.start()
        let closedPort = try freePort()
        let refusing = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "BTCPRICED_SOURCES": "coinbase", "BTCPRICED_PROXY": "socks5h://127.0.0.1:\(closedPort)"])
        defer { refusing.stop(); refusing.removeFiles() }
        try await refusing.start()
        let expected = "the proxy socks5h://127.0.0.1:\(closedPort) refused the connection: is tor (or the SOCKS proxy) running, and is this its SOCKSPort?"
        try await until("the refusal named", context: { refusing.log }) {
            try await source(refusing, "coinbase")?["last_error"]?.stringValue == expected
        }
        #expect(refusing.log.contains("coinbase is failing: \(expected)"), "\(refusing.log)")
        await exchange.shutdown()
    }

    @Test func retriesThroughAFailingProxyKeepEveryVenuesPace() async throws {
        let started = ContinuousClock.now
        try await behindProxy(["--reply", "6"], settings: { ["BTCPRICED_PROXY": "socks5h://127.0.0.1:\($0)"] }) { _, proxy, daemon in
            try await until("every venue tried", context: { "\(proxy.connections)\n\(daemon.log)" }) {
                Set(proxy.connections.map(\.user)).isSuperset(of: ["btcpriced-binance", "btcpriced-coinbase", "btcpriced-kraken", "btcpriced-bitstamp"])
            }
            try await until("two more cycles", timeout: .seconds(120)) { started.duration(to: .now) > .seconds(35) }
            let elapsed = started.duration(to: .now)
            let cycles = Int(elapsed.components.seconds / 15) + 1
            for venue in ["binance", "coinbase", "kraken", "bitstamp"] {
                let count = proxy.connections.filter { $0.user == "btcpriced-\(venue)" }.count
                #expect(count <= cycles, "\(venue): \(count) connections in \(elapsed), at most one per 15 s cycle (\(cycles))")
            }
            #expect(daemon.log.contains("TTL expired"), "\(daemon.log)")
        }
    }
}
