import FakeExchange
import Foundation
import JSONText
import Testing

/// Debian's real proxies on loopback in front of the fake exchange: microsocks for SOCKS5,
/// tinyproxy (with Basic credentials) for HTTP CONNECT. REST and the stream both go through
/// them; a dead proxy fails its venues and nothing goes direct.
@Suite("Proxies, end to end", .serialized)
struct ProxyEndToEndTests {
    static let microsocks = "/usr/bin/microsocks"
    static let tinyproxy = "/usr/bin/tinyproxy"

    /// A proxy process for the length of a test.
    final class ProxyProcess: @unchecked Sendable {
        let process = ChildProcess()
        let port: Int
        let directory: String

        init(_ path: String, port: Int, arguments: (String) -> [String]) throws {
            self.port = port
            directory = NSTemporaryDirectory() + "btcpriced-proxy-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = arguments(directory)
            try process.run()
        }

        /// Waits until it accepts connections.
        func ready() async throws {
            try await until("the proxy on port \(port) listens") {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(fd) }
                var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: in_port_t(UInt16(port).bigEndian),
                                          sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
                return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                } }
            }
        }

        /// SIGKILL: a child of the test process inherits its blocked signals, SIGTERM among them.
        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    static func startMicrosocks() async throws -> ProxyProcess {
        let port = try freePort()
        let proxy = try ProxyProcess(microsocks, port: port) { _ in ["-i", "127.0.0.1", "-p", "\(port)"] }
        try await proxy.ready()
        return proxy
    }

    /// tinyproxy in the foreground, logging each CONNECT to `tinyproxy.log`.
    static func startTinyproxy(user: String, password: String) async throws -> ProxyProcess {
        let port = try freePort()
        let proxy = try ProxyProcess(tinyproxy, port: port) { directory in
            let config = """
            Port \(port)
            Listen 127.0.0.1
            Timeout 60
            MaxClients 50
            Allow 127.0.0.1
            LogFile "\(directory)/tinyproxy.log"
            LogLevel Connect
            BasicAuth \(user) \(password)
            DisableViaHeader Yes
            """
            try? config.write(toFile: directory + "/tinyproxy.conf", atomically: true, encoding: .utf8)
            return ["-d", "-c", directory + "/tinyproxy.conf"]
        }
        try await proxy.ready()
        return proxy
    }

    func status(_ daemon: DaemonProcess) async throws -> JSONValue {
        try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
    }

    func failingEverywhere(_ daemon: DaemonProcess) async throws -> [String]? {
        let report = try JSONValue(parsing: try await daemon.ctl("sources", "--json").stdout)
        let rows = (report["sources"]?.arrayElements ?? []).filter { $0["state"]?.stringValue != "disabled" }
        let errors = rows.compactMap { $0["last_error"]?.stringValue }
        return errors.count == rows.count && !rows.isEmpty ? errors : nil
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: microsocks), "microsocks is not installed (apt-get install microsocks)"))
    func restAndTheStreamGoThroughASOCKSProxy() async throws {
        let exchange = try await FakeExchange.start()
        // The stream closes at once until REST has been seen through the proxy: otherwise a
        // stream that comes up before the first poll's answer could leave REST resting.
        exchange.setStream(.binance, .closeAfter(trades: 0, shutdownNotice: false))
        let proxy = try await Self.startMicrosocks()
        defer { proxy.stop() }
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "BTCPRICED_PROXY": "socks5h://127.0.0.1:\(proxy.port)", "BTCPRICED_STREAM": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("REST through the proxy", context: { daemon.log }) { exchange.requestCount(.binance) >= 1 }
        exchange.setStream(.binance, .trades(prices: ["114470.25"], perSecond: 5))
        try await until("a streamed quote through the proxy", context: { daemon.log }) {
            try await status(daemon)["transport"] == .string("stream")
        }
        // Without the proxy nothing arrives any more: the stream ends and polling fails.
        proxy.stop()
        try await until("every venue fails with the proxy gone", context: { daemon.log }) { try await failingEverywhere(daemon) != nil }
        await exchange.shutdown()
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: tinyproxy), "tinyproxy is not installed (apt-get install tinyproxy)"))
    func restAndTheStreamGoThroughAnHTTPProxyWithCredentials() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .trades(prices: ["114470.25"], perSecond: 5))
        let proxy = try await Self.startTinyproxy(user: "alice", password: "s3cret")
        defer { proxy.stop() }
        let settings = ["BTCPRICED_PROXY": "http://alice:s3cret@127.0.0.1:\(proxy.port)", "BTCPRICED_STREAM": "binance"]
        let check = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config"],
                                         environment: settings.merging(["BTCPRICED_BINANCE_URL": exchange.baseURL]) { $1 })
        #expect(check.stdout.contains("binance: via http://***@127.0.0.1:\(proxy.port)"), "\(check.stdout)")
        #expect(!check.stdout.contains("s3cret") && !check.stderr.contains("s3cret"), "the password is never shown")
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: settings)
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a streamed quote through the proxy", context: { daemon.log }) {
            try await status(daemon)["transport"] == .string("stream")
        }
        let log = (try? String(contentsOfFile: proxy.directory + "/tinyproxy.log", encoding: .utf8)) ?? ""
        let port = URL(string: exchange.baseURL)?.port ?? 0
        let tunnels = log.components(separatedBy: "CONNECT 127.0.0.1:\(port) ").count - 1
        #expect(tunnels >= 2, "tinyproxy opened the REST and the stream tunnels: \(tunnels) in\n\(log.suffix(600))")
        #expect(!daemon.log.contains("s3cret"))
        let report = try JSONValue(parsing: try await daemon.ctl("sources", "--json").stdout)
        let routes = (report["sources"]?.arrayElements ?? []).compactMap { $0["route"]?.stringValue }
        #expect(!routes.isEmpty && routes.allSatisfy { $0 == "via http://***@127.0.0.1:\(proxy.port)" }, "sources' routes: \(routes)")
        let table = try await daemon.ctl("sources").stdout
        #expect(table.contains("route: via http://***@127.0.0.1:\(proxy.port)\n") && !table.contains("s3cret"), "\(table)")
        await exchange.shutdown()
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: tinyproxy), "tinyproxy is not installed (apt-get install tinyproxy)"))
    func aRefusedProxyPasswordIsAnErrorPerVenueNotADirectConnection() async throws {
        let exchange = try await FakeExchange.start()
        let proxy = try await Self.startTinyproxy(user: "alice", password: "s3cret")
        defer { proxy.stop() }
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_PROXY": "http://alice:wrong@127.0.0.1:\(proxy.port)"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        var errors: [String] = []
        try await until("every venue fails") { errors = try await failingEverywhere(daemon) ?? []; return !errors.isEmpty }
        #expect(errors.allSatisfy { $0.contains("407") || $0.lowercased().contains("proxy") }, "\(errors)")
        #expect(Market.allCases.allSatisfy { exchange.requestCount($0) == 0 }, "nothing reached the exchange")
        #expect(!daemon.log.contains("wrong"), "the password is never logged")
        await exchange.shutdown()
    }

    /// A proxy that is down: each venue fails with its own error, nothing goes direct; NO_PROXY
    /// naming the exchange's host sends it direct again.
    @Test func aDeadProxyFailsEveryVenueAndNoProxyExemptsAHost() async throws {
        let exchange = try await FakeExchange.start()
        let dead = try freePort()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["ALL_PROXY": "socks5h://127.0.0.1:\(dead)"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        var errors: [String] = []
        try await until("every venue fails") { errors = try await failingEverywhere(daemon) ?? []; return !errors.isEmpty }
        #expect(Market.allCases.allSatisfy { exchange.requestCount($0) == 0 }, "no direct connection as a fallback: \(errors)")
        #expect(errors.allSatisfy { $0 == "the proxy socks5h://127.0.0.1:\(dead) refused the connection: is tor (or the SOCKS proxy) running, and is this its SOCKSPort?" },
                "each names the proxy that refused: \(errors)")

        let exempt = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "ALL_PROXY": "socks5h://127.0.0.1:\(dead)", "NO_PROXY": "localhost,127.0.0.1"])
        defer { exempt.stop(); exempt.removeFiles() }
        try await exempt.start()
        try await until("a direct quote") { try await status(exempt)["state"] == .string("fresh") }
        let table = try await exempt.ctl("sources").stdout
        #expect(!table.contains("route"), "no route line while every venue goes direct: \(table)")
        await exchange.shutdown()
    }
}
