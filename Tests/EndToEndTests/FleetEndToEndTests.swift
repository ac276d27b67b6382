import FakeExchange
import Foundation
import JSONText
import Testing

/// Twenty daemons, each its own "host" (own state, no shared pace), behind Debian's real nginx
/// running the shipped micro-cache example, with the fake exchange behind nginx.
@Suite("A fleet behind one cache, end to end", .serialized)
struct FleetEndToEndTests {
    /// Unpacked by scripts/setup, or an installed one.
    static let nginx = [DocumentationTests.repository + "/.build/nginx-tools/usr/sbin/nginx", "/usr/sbin/nginx"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/nginx"
    static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../packaging/examples/nginx-btcpriced-cache.conf").standardized.path
    static let fleetSize = 20

    /// The shipped example, pointed at the fake and a scratch cache, inside a minimal nginx.conf.
    static func startCache(origin: String) async throws -> ProxyEndToEndTests.ProxyProcess {
        let port = try freePort()
        var site = try String(contentsOfFile: example, encoding: .utf8)
        for upstream in ["https://api.binance.com/", "https://api.coinbase.com/", "https://api.kraken.com/", "https://www.bitstamp.net/",
                         "https://mempool.space/"] {
            #expect(site.contains(upstream), "the example lacks \(upstream)")
            site = site.replacingOccurrences(of: upstream, with: origin + "/")
        }
        // The CA bundle is for the venues' TLS, which the fake does not speak.
        site = site.replacingOccurrences(of: "proxy_ssl_trusted_certificate /etc/ssl/certs/ca-certificates.crt;", with: "")
        return try ProxyEndToEndTests.ProxyProcess(nginx, port: port) { directory in
            let prefix = directory
            chmod(prefix, 0o777)
            let config = """
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log warn;
            events { worker_connections 256; }
            http {
                access_log \(prefix)/access.log;
                client_body_temp_path \(prefix)/client_body; proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi; uwsgi_temp_path \(prefix)/uwsgi; scgi_temp_path \(prefix)/scgi;
            \(site.replacingOccurrences(of: "/var/cache/nginx/btcpriced", with: prefix + "/cache")
                  .replacingOccurrences(of: "listen 8380;", with: "listen 127.0.0.1:\(port);"))
            }
            """
            try? config.write(toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
            return ["-p", prefix, "-e", prefix + "/error.log", "-c", prefix + "/nginx.conf", "-g", "daemon off; master_process off;"]
        }
    }

    nonisolated(unsafe) static let rfc3339: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()

    /// A venue's calls since an instant, and the gaps between them.
    static func calls(_ exchange: FakeExchange, _ market: Market, since start: ContinuousClock.Instant) -> ([ContinuousClock.Instant], [Duration]) {
        let calls = exchange.requests(market).map(\.receivedAt).filter { $0 >= start }.sorted()
        return (calls, zip(calls, calls.dropFirst()).map { $1 - $0 })
    }

    func status(_ daemon: DaemonProcess) async throws -> JSONValue? {
        try? JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: nginx), "nginx is missing: scripts/setup unpacks it into .build/nginx-tools"),
          .timeLimit(.minutes(3)))
    func twentyDaemonsBehindNginxCostTheVenueOneRequestASecond() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.coinbase, .price("85866.185"))
        // Kraken agrees, as real venues do: the fall-through below is then no move to confirm.
        exchange.set(.kraken, .price("85870.1"))
        let cache = try await Self.startCache(origin: exchange.baseURL)
        defer { cache.stop() }
        try await cache.ready()
        let base = "http://127.0.0.1:\(cache.port)"
        let daemons = try (0..<Self.fleetSize).map { _ in
            try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
                "BTCPRICED_SOURCES": "coinbase,kraken", "BTCPRICED_COINBASE_URL": base + "/coinbase", "BTCPRICED_KRAKEN_URL": base + "/kraken",
            ])
        }
        defer { for daemon in daemons { daemon.stop(); daemon.removeFiles() } }
        for daemon in daemons { try await daemon.start() }

        try await until("every daemon has a fresh coinbase quote", timeout: .seconds(60)) {
            var fresh = 0
            for daemon in daemons where try await status(daemon)?["state"]?.stringValue == "fresh" { fresh += 1 }
            return fresh == Self.fleetSize
        }
        // Eight seconds of twenty daemons asking once a second each, counted at the venue.
        let windowStart = ContinuousClock.now
        try await until("eight seconds of the fleet polling", timeout: .seconds(30)) { ContinuousClock.now - windowStart >= .seconds(8) }
        let (calls, gaps) = Self.calls(exchange, .coinbase, since: windowStart)
        // nginx keeps an answer 1 s counted in whole seconds, so the venue sees one call every 1-2 s.
        #expect(!calls.isEmpty && calls.count <= 9, "the venue saw \(calls.count) calls in 8 s from \(Self.fleetSize) daemons")
        #expect(gaps.allSatisfy { $0 >= .milliseconds(900) }, "two calls less than a second apart: \(gaps)")
        // A loaded host may time a cached answer out and rightly ask kraken once for that daemon;
        // the fleet as a whole stays on coinbase.
        #expect(exchange.requestCount(.kraken) <= Self.fleetSize / 4, "the chain fell through \(exchange.requestCount(.kraken)) times")

        // Each daemon dates its quote by the Date the venue sent, however long nginx kept the
        // answer: whole seconds the venue named, not the moment the daemon got it.
        // The venue's Dates are read after the daemons' quotes: the fleet keeps polling, and a
        // quote read later than the Dates could carry one sent in between.
        var stamps: [String] = []
        for daemon in daemons {
            let served = try #require(try await status(daemon))
            stamps.append(served["timestamp"]?.stringValue ?? "none")
        }
        let origins = Set(exchange.requests(.coinbase).map(\.dated))
        for stamp in stamps {
            let seconds = Self.rfc3339.date(from: stamp).map { Int64($0.timeIntervalSince1970.rounded(.down)) }
            #expect(stamp.hasSuffix(".000Z") && seconds.map(origins.contains) == true,
                    "quote time \(stamp) is not a Date the venue sent (\(origins.sorted()))")
        }

        // The venue fails. Its 503 is cached like an answer: every daemon falls through to
        // kraken, and the failing venue still sees at most one request a second.
        exchange.set(.coinbase, .status(503))
        let outageStart = ContinuousClock.now
        try await until("every daemon falls through to kraken", timeout: .seconds(60)) {
            var moved = 0
            for daemon in daemons where try await status(daemon)?["source"]?.stringValue == "kraken" { moved += 1 }
            return moved == Self.fleetSize
        }
        try await until("four seconds of the outage", timeout: .seconds(30)) { ContinuousClock.now - outageStart >= .seconds(4) }
        for market in [Market.coinbase, .kraken] {
            let (calls, gaps) = Self.calls(exchange, market, since: outageStart)
            #expect(!calls.isEmpty && gaps.allSatisfy { $0 >= .milliseconds(900) }, "\(market) during the outage: \(calls.count) calls, gaps \(gaps)")
        }
        let access = (try? String(contentsOfFile: cache.directory + "/access.log", encoding: .utf8)) ?? ""
        let venueCalls = exchange.requestCount(.coinbase) + exchange.requestCount(.kraken)
        #expect(access.split(separator: "\n").count > 5 * venueCalls,
                "nginx answered \(access.split(separator: "\n").count) requests and the venues saw \(venueCalls)")
        await exchange.shutdown()
    }
}
