import FakeExchange
import Foundation
import Testing

/// promtool, prometheus and node_exporter, unpacked by scripts/setup from Debian's packages
/// (or installed system-wide).
enum PrometheusTools {
    static let directory = DocumentationTests.repository + "/.build/prometheus-tools/usr/bin"

    static func path(_ name: String) -> String? {
        [directory + "/" + name, "/usr/bin/" + name].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var available: Bool { ["promtool", "prometheus", "prometheus-node-exporter"].allSatisfy { path($0) != nil } }
}

/// A loopback port nothing listens on now, for a server a test starts. It is drawn from below
/// the kernel's ephemeral range: a port that bind(0) hands out comes from that range, and any
/// outgoing connection's local end (the suite makes thousands, to the fake exchange, nginx and
/// the proxies) may take it before the server binds it, as one run saw.
func freePort() throws -> Int {
    let ephemeralLow = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
        .flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) } } ?? 32_768
    let range = 10_000..<max(10_001, min(ephemeralLow, 32_768))
    for _ in 0..<200 {
        let port = Int.random(in: range)
        if canBindLoopback(port) { return port }
    }
    throw POSIXError(.EADDRINUSE)
}

/// Whether a listener could bind 127.0.0.1:`port` now (with SO_REUSEADDR, as servers do).
private func canBindLoopback(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

/// Sends raw bytes to a loopback TCP port and reads until the server closes (at most 3 s).
func exchangeOnce(port: Int, sending request: String) throws -> String {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var timeout = timeval(tv_sec: 3, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    guard connected else { throw POSIXError(.ECONNREFUSED) }
    _ = request.withCString { send(fd, $0, strlen($0), 0) }
    var reply: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { break }
        reply += buffer[..<count]
    }
    return String(decoding: reply, as: UTF8.self)
}

@Suite("Metrics, end to end: promtool, node_exporter and a real Prometheus")
struct MetricsEndToEndTests {
    let priceLine = #"btcpriced_price{source="binance",quote_asset="USDT",currency="USD",symbol="BTCUSDT"} 114459.8"#
    /// node_exporter re-renders what it reads, labels sorted.
    let relayedPriceLine = #"btcpriced_price{currency="USD",quote_asset="USDT",source="binance",symbol="BTCUSDT"} 114459.8"#

    func promtoolCheck(_ exposition: String) async throws -> CommandResult {
        let file = NSTemporaryDirectory() + "btcpriced-metrics-\(UUID().uuidString.prefix(8)).prom"
        try exposition.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try await runCommand("/bin/sh", ["-c", "\"$0\" check metrics < \"$1\"", PrometheusTools.path("promtool")!, file])
    }

    func curl(_ arguments: String...) async throws -> CommandResult {
        try await runCommand("/usr/bin/curl", ["-s", "--max-time", "3"] + arguments)
    }

    @Test(.enabled(if: PrometheusTools.available, "skipped: promtool, prometheus and node_exporter are missing (scripts/setup unpacks them)"))
    func theSocketTheTextfileAndTheListenerServeTheSameValidMetrics() async throws {
        let exchange = try await FakeExchange.start()
        let port = try freePort()
        let textfiles = NSTemporaryDirectory() + "btcpriced-textfile-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: textfiles) }
        // Binance alone: a loaded host once timed binance out between the checks, and the
        // listener then rightly served coinbase's price, not the line compared.
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "BTCPRICED_METRICS_LISTEN": "127.0.0.1:\(port)", "BTCPRICED_METRICS_TEXTFILE": textfiles + "/btcpriced.prom",
            "BTCPRICED_METRICS_TEXTFILE_INTERVAL": "200ms", "BTCPRICED_SOURCES": "binance",
        ])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a quote") { try await daemon.ctl("price").status == 0 }

        let socket = try await daemon.ctl("metrics")
        #expect(socket.status == 0 && socket.stdout.contains(priceLine + "\n"), "\(socket.stdout)")
        #expect(socket.stdout.contains("btcpriced_socket_requests_total{request=\"status\"}"))
        try await until("the textfile has the price") {
            (try? String(contentsOfFile: textfiles + "/btcpriced.prom", encoding: .utf8))?.contains(priceLine) == true
        }
        let textfile = try String(contentsOfFile: textfiles + "/btcpriced.prom", encoding: .utf8)
        let http = try await curl("http://127.0.0.1:\(port)/metrics")
        #expect(http.stdout.contains(priceLine))
        for (output, text) in [("socket", socket.stdout), ("textfile", textfile), ("http", http.stdout)] {
            let check = try await promtoolCheck(text)
            #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty, "promtool on the \(output): \(check)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: textfiles) == ["btcpriced.prom"], "no temp file left")

        #expect(try await curl("-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/other").stdout == "404")
        #expect(try await curl("-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "http://127.0.0.1:\(port)/metrics").stdout == "405")
        let junk = try await offPool { try exchangeOnce(port: port, sending: "NOT HTTP\r\n\r\n") }
        #expect(junk.hasPrefix("HTTP/1.1 400"), "\(junk)")
        #expect(try await daemon.ctl("ping").stdout == "pong\n", "junk on the metrics port leaves the daemon serving")
        await exchange.shutdown()
    }

    @Test(.enabled(if: PrometheusTools.available, "skipped: promtool, prometheus and node_exporter are missing (scripts/setup unpacks them)"))
    func nodeExporterReadsTheTextfileWithoutErrors() async throws {
        let exchange = try await FakeExchange.start()
        let textfiles = NSTemporaryDirectory() + "btcpriced-node-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: textfiles, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: textfiles) }
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "BTCPRICED_METRICS_TEXTFILE": textfiles + "/btcpriced.prom", "BTCPRICED_METRICS_TEXTFILE_INTERVAL": "200ms",
        ])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        let port = try freePort()
        let exporter = try SpawnedProcess([PrometheusTools.path("prometheus-node-exporter")!, "--web.listen-address=127.0.0.1:\(port)",
                                           "--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=\(textfiles)"],
                                          environment: [:], output: textfiles + "/../node-exporter-\(port).log")
        defer { exporter.stop() }
        try await until("node_exporter serves btcpriced_price") {
            (try? await curl("http://127.0.0.1:\(port)/metrics"))?.stdout.contains(relayedPriceLine) == true
        }
        let scraped = try await curl("http://127.0.0.1:\(port)/metrics").stdout
        #expect(scraped.contains("node_textfile_scrape_error 0"), "\(scraped.prefix(2000))")
        #expect(scraped.contains(#"node_textfile_mtime_seconds{file="#) && scraped.contains("btcpriced.prom"))
        await exchange.shutdown()
    }

    @Test(.enabled(if: PrometheusTools.available, "skipped: promtool, prometheus and node_exporter are missing (scripts/setup unpacks them)"))
    func aPrometheusServerScrapesThePriceAndSeesItGoStale() async throws {
        let exchange = try await FakeExchange.start()
        let listen = try freePort()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            // 10 s, not less: the fresh reading below must not catch a quote a loaded host answered late.
            "BTCPRICED_METRICS_LISTEN": "127.0.0.1:\(listen)", "BTCPRICED_STALE_AFTER": "10s",
        ])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        let web = try freePort()
        let directory = daemon.directory + "/prometheus"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try """
        global:
          scrape_interval: 1s
        scrape_configs:
          - job_name: btcpriced
            static_configs:
              - targets: ["127.0.0.1:\(listen)"]
        """.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        let server = try SpawnedProcess([PrometheusTools.path("prometheus")!, "--config.file=\(directory)/prometheus.yml",
                                         "--storage.tsdb.path=\(directory)/data", "--web.listen-address=127.0.0.1:\(web)"],
                                        environment: [:], output: directory + "/prometheus.log")
        defer { server.stop() }
        func query(_ expression: String) async throws -> String {
            try await curl("--get", "--data-urlencode", "query=\(expression)", "http://127.0.0.1:\(web)/api/v1/query").stdout
        }
        try await until("Prometheus has scraped the price") {
            (try? await query("btcpriced_price"))?.contains(#""114459.8"]"#) == true
        }
        #expect(try await query("btcpriced_stale").contains(#""0"]"#))
        for market in Market.allCases { exchange.set(market, .status(503)) }
        try await until("Prometheus sees btcpriced_stale turn 1") {
            (try? await query("btcpriced_stale"))?.contains(#""1"]"#) == true
        }
        await exchange.shutdown()
    }

    @Test(.enabled(if: PrometheusTools.available, "skipped: promtool is missing (scripts/setup unpacks it)"))
    func theShippedRulesAreValidAndAStaleHostFires() async throws {
        let directory = DocumentationTests.repository + "/packaging/prometheus"
        let check = try await runCommand(PrometheusTools.path("promtool")!, ["check", "rules", directory + "/btcpriced-rules.yml"])
        #expect(check.status == 0 && check.stdout.contains("SUCCESS: 4 rules found"), "\(check)")
        let test = try await runCommand("/bin/sh", ["-c", "cd \"$1\" && \"$0\" test rules btcpriced-rules.test.yml",
                                                    PrometheusTools.path("promtool")!, directory])
        #expect(test.status == 0 && test.stdout.contains("SUCCESS"), "\(test)")
        let dashboard = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/btcpriced-dashboard.json")))
        #expect((dashboard as? [String: Any])?["panels"] as? [Any] != nil)
    }

    @Test func aMetricsPortInUseStopsTheStartWithExit78AndAnUnwritableTextfileIsOneError() async throws {
        let exchange = try await FakeExchange.start()
        let taken = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_METRICS_LISTEN": "127.0.0.1:\(try freePort())"])
        defer { taken.stop(); taken.removeFiles() }
        try await taken.start()
        let address = taken.process.environment!["BTCPRICED_METRICS_LISTEN"]!
        let second = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_METRICS_LISTEN": address])
        defer { second.removeFiles() }
        try second.process.run()
        try await offPool { second.process.waitUntilExit() }
        #expect(second.process.terminationStatus == 78)
        #expect(second.log.contains("cannot listen for HTTP on \(address) (BTCPRICED_METRICS_LISTEN): Address already in use"), "\(second.log)")

        let missing = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "BTCPRICED_METRICS_TEXTFILE": "/nonexistent-\(UUID().uuidString.prefix(6))/btcpriced.prom", "BTCPRICED_METRICS_TEXTFILE_INTERVAL": "100ms",
        ])
        defer { missing.stop(); missing.removeFiles() }
        try await missing.start()
        try await until("the first quote") { try await missing.ctl("price").status == 0 }
        // Read after two more fetch cycles (1 s apart), which span ten or more write attempts at
        // 100 ms: a later event of the daemon's own, not a sleep.
        let calls = exchange.requestCount(.binance)
        try await until("two more cycles") { exchange.requestCount(.binance) >= calls + 2 }
        #expect(missing.log.components(separatedBy: "cannot write the metrics textfile").count == 2, "one error line, no flood: \(missing.log)")
        #expect(try await missing.ctl("ping").stdout == "pong\n")
        await exchange.shutdown()
    }
}
