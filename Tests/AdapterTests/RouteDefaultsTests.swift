import DaemonConfig
import Exchanges
import PriceCore
import Testing

/// Through a proxy (Tor above all) the defaults that assume a direct link give way to the
/// route's; settings the user gives keep their values and draw a warning that names what to set.
@Suite("Settings that fit the route")
struct RouteDefaultsTests {
    func settings(_ env: [String: String]) throws -> DaemonSettings {
        try SettingsLoader.load(.init(environment: env))
    }

    static let tor = ["BTCPRICED_PROXY": "socks5h://127.0.0.1:9050"]

    @Test func directTheDefaultsStayAsTheyWere() throws {
        let direct = try settings([:])
        #expect(direct.interval == .seconds(1) && direct.timeout == .milliseconds(800) && direct.staleAfter == .seconds(10))
        #expect(direct.timeouts(for: "https://api.binance.com") == RouteTimeouts(connect: nil, answer: .milliseconds(800)))
        #expect(try SourcePlan(direct).routeAdvice.isEmpty)
    }

    @Test func throughTorTheRoutesDefaultsApply() throws {
        let tor = try settings(Self.tor)
        #expect(tor.interval == .seconds(15), "\(tor.interval)")
        #expect(tor.staleAfter == .seconds(60), "\(tor.staleAfter)")
        #expect(tor.timeouts(for: "https://api.binance.com") == RouteTimeouts(connect: .seconds(30), answer: .seconds(10)))
        let plan = try SourcePlan(tor)
        #expect(plan.routeAdvice.isEmpty, "\(plan.routeAdvice)")
        #expect(plan.flappingAdvice == nil, "60s is longer than 15s plus 10s: \(String(describing: plan.flappingAdvice))")
    }

    /// Through Tor a stream's upgrade gets the whole attempt's budget, and a message may be late
    /// by one answer before the stream counts as stalled; a direct stream keeps the defaults.
    /// Each venue asked through Tor gets a circuit of its own.
    @Test func throughTorTheStreamWaitsLongerAndEachVenueGetsACircuit() throws {
        let tor = try settings(Self.tor.merging(["NO_PROXY": "api.kraken.com,ws.kraken.com"]) { $1 })
        let proxied = tor.streamPolicy(for: "wss://stream.binance.com:9443/stream", priceSilenceAfter: .seconds(3))
        let timeouts = tor.timeouts(for: "wss://stream.binance.com:9443/stream")
        #expect(proxied.connectTimeout == timeouts.attempt && proxied.stallAfter == StreamPolicy().stallAfter + timeouts.answer,
                "connect \(proxied.connectTimeout) for \(timeouts.attempt), stall \(proxied.stallAfter)")
        #expect(proxied.priceSilenceAfter == .seconds(3))
        let direct = tor.streamPolicy(for: "wss://ws.kraken.com/v2", priceSilenceAfter: .seconds(3))
        #expect(direct.connectTimeout == StreamPolicy().connectTimeout && direct.stallAfter == StreamPolicy().stallAfter)
        let circuits = tor.venuesNeedingCircuits.map(\.name)
        #expect(circuits.contains(.binance) && !circuits.contains(.kraken), "\(circuits)")
        let http = try settings(["BTCPRICED_PROXY": "http://127.0.0.1:8888"])
        #expect(http.venuesNeedingCircuits.isEmpty, "an HTTP proxy is no Tor: \(http.venuesNeedingCircuits.map(\.name))")
    }

    @Test func aVenueExemptedByNoProxyKeepsTheDirectTimeout() throws {
        let mixed = try settings(Self.tor.merging(["NO_PROXY": "api.kraken.com"]) { $1 })
        #expect(mixed.timeouts(for: "https://api.kraken.com") == RouteTimeouts(connect: nil, answer: mixed.timeout))
        #expect(mixed.timeout < .seconds(1), "direct stays quick: \(mixed.timeout)")
        #expect(mixed.timeouts(for: "https://api.binance.com").answer == .seconds(10))
    }

    @Test func givenSettingsKeepTheirValuesAndEachConflictNamesWhatToSet() throws {
        let given = try settings(Self.tor.merging(["BTCPRICED_TIMEOUT": "800ms", "BTCPRICED_INTERVAL": "1s", "BTCPRICED_STALE_AFTER": "30s",
                                                    "BTCPRICED_CONNECT_TIMEOUT": "3s"]) { $1 })
        #expect(given.interval == .seconds(1) && given.staleAfter == .seconds(30))
        #expect(given.timeouts(for: "https://api.binance.com") == RouteTimeouts(connect: .seconds(3), answer: .milliseconds(800)))
        let advice = try SourcePlan(given).routeAdvice
        #expect(advice == [
            "BTCPRICED_TIMEOUT=800ms is too short for a request through socks5h://127.0.0.1:9050 (a Tor circuit takes seconds to build and hundreds of milliseconds per round trip); set BTCPRICED_TIMEOUT=10s, or leave it unset for the route's default",
            "BTCPRICED_CONNECT_TIMEOUT=3s is too short to connect through socks5h://127.0.0.1:9050 (a Tor circuit takes seconds to build and hundreds of milliseconds per round trip); set BTCPRICED_CONNECT_TIMEOUT=30s, or leave it unset for the route's default",
            "BTCPRICED_INTERVAL=1s polls through socks5h://127.0.0.1:9050 more often than an exit deserves; set BTCPRICED_INTERVAL=15s, or leave it unset for the route's default",
            "BTCPRICED_STALE_AFTER=30s leaves little room for a request through socks5h://127.0.0.1:9050 (a Tor circuit takes seconds to build and hundreds of milliseconds per round trip); set BTCPRICED_STALE_AFTER=1m, or leave it unset for the route's default",
        ], "\(advice)")
    }

    @Test func aShortGivenIntervalShortensTheRoutesTimeoutToFitIt() throws {
        let tor = try settings(Self.tor.merging(["BTCPRICED_INTERVAL": "5s"]) { $1 })
        #expect(tor.timeouts(for: "https://api.binance.com").answer == .seconds(4), "80 % of the interval, as direct")
        #expect(tor.staleAfter == .seconds(60))
    }

    @Test func aDirectConnectTimeoutIsCountedApart() throws {
        let direct = try settings(["BTCPRICED_CONNECT_TIMEOUT": "2s"])
        #expect(direct.timeouts(for: "https://api.binance.com") == RouteTimeouts(connect: .seconds(2), answer: .milliseconds(800)))
        #expect(throws: ConfigError.self) { try settings(["BTCPRICED_CONNECT_TIMEOUT": "0"]) }
    }

    @Test func checkConfigShowsTheRoutesTimeoutsAndWarns() {
        let report = CheckConfig.run(DaemonOptions(configPath: "/dev/null", flags: [.stateDirectory: "/tmp/btcpriced-route-check"]),
                                     environment: Self.tor.merging(["BTCPRICED_TIMEOUT": "800ms"]) { $1 })
        #expect(report.lines.first == "settings: interval 15s, timeout 800ms through the proxy once connected (connect 30s), stale after 1m, socket /run/btcpriced/btcpriced.sock, state /tmp/btcpriced-route-check",
                "\(report.lines)")
        #expect(report.warnings.contains { $0.hasPrefix("warning: BTCPRICED_TIMEOUT=800ms is too short for a request through socks5h://127.0.0.1:9050") }, "\(report.warnings)")
    }
}
