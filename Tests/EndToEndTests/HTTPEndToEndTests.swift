import FakeExchange
import Foundation
import Testing

/// The HTTP listener as its users meet it: curl and jq against the built daemon, event streams
/// read as a client reads them, the limits from the outside, and a second btcpriced reading the
/// first one's mempool-compatible route as its mempool source.
@Suite("HTTP listener, end to end")
struct HTTPEndToEndTests {
    static var hasJQ: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/jq") }

    static func curl(_ arguments: [String], timeout: Duration = .seconds(10)) async throws -> CommandResult {
        try await runCommand("/usr/bin/curl", ["-sS", "--max-time", "5"] + arguments, timeout: timeout)
    }

    /// `jq -c FILTER` over `input`.
    static func jq(_ filter: String, _ input: String) async throws -> String {
        let file = NSTemporaryDirectory() + "btcpriced-jq-\(UUID().uuidString.prefix(8))"
        try input.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try await runCommand("/usr/bin/jq", ["-c", filter, file])
        #expect(result.status == 0, "jq \(filter): \(result)")
        return result.stdout.trimmingCharacters(in: .newlines)
    }

    /// A daemon with the listener on a free loopback port; returns it and the base URL.
    static func start(_ exchange: FakeExchange, settings: [String: String] = [:]) async throws -> (DaemonProcess, String, Int) {
        let port = try freePort()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_HTTP_LISTEN": "127.0.0.1:\(port)"].merging(settings) { $1 })
        try await daemon.start()
        try await until("a fresh price", context: { daemon.log }) { try await daemon.ctl("price").status == 0 }
        return (daemon, "http://127.0.0.1:\(port)", port)
    }

    @Test(.enabled(if: hasJQ, "skipped: jq is missing (scripts/setup installs it)"))
    func everyRouteAsCurlAndJqSeeIt() async throws {
        let exchange = try await FakeExchange.start()
        // Binance alone: every route below shows its quote, even when a loaded host times it out
        // for a cycle (the chain would then serve coinbase's quote; that is tested elsewhere).
        let (daemon, base, _) = try await Self.start(exchange, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }

        // The status is the socket's, key for key; between two reads only the age and the
        // quote's time move (a new poll every second). A loaded host can time binance out for a
        // cycle between the two reads, and last_error then differs: read both again until a pair
        // shows binance's quote alike.
        var pair: (http: String, socket: String) = ("", "")
        try await until("the HTTP and socket status show the same binance quote", context: { "http \(pair.http)\nsocket \(pair.socket)" }) {
            pair = (try await Self.curl(["\(base)/api/v1/status"]).stdout, try await daemon.ctl("status", "--json").stdout)
            let sources = [try await Self.jq(".source", pair.http), try await Self.jq(".source", pair.socket)]
            let http = try await Self.jq("del(.age, .timestamp)", pair.http), socket = try await Self.jq("del(.age, .timestamp)", pair.socket)
            return sources == ["\"binance\"", "\"binance\""] && http == socket
        }
        #expect(try await Self.jq(".price", pair.http) == "\"114459.8\"", "\(pair.http)")

        let price = try await Self.curl(["-i", "\(base)/api/v1/price"])
        #expect(price.stdout.hasPrefix("HTTP/1.1 200 OK\r\n") && price.stdout.contains("X-Price-State: fresh\r\n"), "\(price.stdout)")
        #expect(price.stdout.hasSuffix("\r\n\r\n" + (try await daemon.ctl("price").stdout)), "the body is what btcctl price prints: \(price.stdout)")

        let mempool = try await Self.curl(["\(base)/api/v1/prices"])
        #expect(try await Self.jq(".USD", mempool.stdout) == "114460", "whole units, half to even: \(mempool.stdout)")
        #expect(try await Self.jq(".time | type", mempool.stdout) == "\"number\"")
        let rates = try await Self.curl(["\(base)/api/rates?currencyPairs=BTC_USD"])
        #expect(try await Self.jq(".[0] | [.currencyPair, .rate]", rates.stdout) == #"["BTC_USD",114459.8]"#, "\(rates.stdout)")
        let history = try await Self.curl(["\(base)/api/v1/history?range=1h&points=5"])
        #expect(try await Self.jq("[.range, (.points | length), .points[-1][1]]", history.stdout) == #"["1h",5,"114459.8"]"#, "\(history.stdout)")
        let sources = try await Self.curl(["\(base)/api/v1/sources"])
        #expect(try await Self.jq(".sources[0] | [.name, .selected]", sources.stdout) == #"["binance",true]"#, "\(sources.stdout)")
        let metrics = try await Self.curl(["\(base)/metrics"])
        #expect(metrics.stdout.contains(#"btcpriced_http_requests_total{route="metrics"}"#) || metrics.stdout.contains("btcpriced_price{"), "\(metrics.stdout.prefix(300))")
        let page = try await Self.curl(["\(base)/"])
        #expect(page.stdout.contains("114,459.80") && page.stdout.utf8.count < 64 * 1024, "\(page.stdout.utf8.count) bytes")

        // Wrong paths, methods and hosts, as a client sees them.
        let codes = [("\(base)/api/v1/nope", [String](), "404"), ("\(base)/api/v1/status", ["-X", "POST"], "405"),
                     ("\(base)/api/v1/status", ["-H", "Host: rebind.example:80"], "421"),
                     ("\(base)/api/v1/status", ["-H", "X-Big: " + String(repeating: "a", count: 9000)], "431"),
                     ("\(base)/api/v1/status", ["-H", "Host: localhost"], "200")]
        for (url, extra, expected) in codes {
            let result = try await Self.curl(extra + ["-o", "/dev/null", "-w", "%{http_code}", url])
            #expect(result.stdout == expected, "\(extra.first ?? "GET") \(url): \(result)")
        }
        let notAllowed = try await Self.curl(["-i", "-X", "DELETE", "\(base)/api/v1/price"])
        #expect(notAllowed.stdout.contains("Allow: GET, HEAD\r\n") && notAllowed.stdout.contains(#""error":"method-not-allowed""#), "\(notAllowed.stdout)")
        let head = try await Self.curl(["-I", "\(base)/api/v1/status"])
        #expect(head.stdout.contains("Content-Type: application/json; charset=utf-8\r\n") && head.stdout.contains("Content-Length: "), "\(head.stdout)")
        #expect(head.stdout.range(of: #"Date: [A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT\r\n"#, options: .regularExpression) != nil,
                "every answer is dated (RFC 9110): \(head.stdout)")

        // Keep-alive: curl asks twice over one connection.
        let twice = try await Self.curl(["-v", "-o", "/dev/null", "-o", "/dev/null", "\(base)/api/v1/price", "\(base)/api/v1/status"])
        #expect(twice.stderr.contains("Re-using existing connection") || twice.stderr.contains("Reusing existing connection"), "\(twice.stderr)")
        await exchange.shutdown()
    }

    @Test func theEventStreamSendsEachWatchLineAsAnEvent() async throws {
        let exchange = try await FakeExchange.start()
        let (daemon, base, _) = try await Self.start(exchange)
        defer { daemon.stop(); daemon.removeFiles() }
        let output = daemon.directory + "/events.out"
        let reader = try SpawnedProcess(["/usr/bin/curl", "-sS", "-N", "-i", "\(base)/api/v1/events"], environment: [:], output: output)
        defer { reader.stop() }
        var text = ""
        try await until("the first event", context: { text }) {
            text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return text.contains("\ndata: {")
        }
        #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n") && text.contains("Content-Type: text/event-stream; charset=utf-8\r\n"), "\(text)")
        #expect(text.contains("\r\n\r\nretry: 2000\n\nid: "), "\(text)")
        exchange.set(.binance, .price("115001.25"))
        try await until("the new price as an event", context: { text }) {
            text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return text.contains(#"data: {"price":"115001.25""#)
        }
        // Every event is an id line, one data line holding a status object, and a blank line.
        let events = text.components(separatedBy: "\r\n\r\n").dropFirst().joined().components(separatedBy: "\n\n").filter { $0.hasPrefix("id: ") }
        #expect(events.count >= 2, "\(text)")
        for event in events {
            let lines = event.split(separator: "\n")
            #expect(lines.count == 2 && lines[1].hasPrefix("data: {\"price\":") && lines[1].hasSuffix("}"), "\(event)")
        }
        await exchange.shutdown()
    }

    @Test func aMalformedRequestGets400AndTheConnectionCloses() async throws {
        let exchange = try await FakeExchange.start()
        let (daemon, _, port) = try await Self.start(exchange)
        defer { daemon.stop(); daemon.removeFiles() }
        let client = try TCPClient(port: port, sending: "GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n")
        let reply = try await offPool { client.readUntilClosed(limit: .seconds(30)) }
        let text = String(decoding: reply.bytes, as: UTF8.self)
        #expect(reply.closed && text.hasPrefix("HTTP/1.1 400 Bad Request\r\n") && text.contains(#""error":"bad-request""#), "\(text)")
        await exchange.shutdown()
    }

    @Test func aClientThatSendsNothingIsClosedAndCounted() async throws {
        let exchange = try await FakeExchange.start()
        let (daemon, base, port) = try await Self.start(exchange)
        defer { daemon.stop(); daemon.removeFiles() }
        let idle = try TCPClient(port: port)
        let closed = try await offPool { idle.readUntilClosed(limit: .seconds(60)) }
        #expect(closed.closed && closed.bytes.isEmpty, "closed without a word: \(closed)")
        let metrics = try await Self.curl(["\(base)/metrics"])
        #expect(metrics.stdout.contains(#"btcpriced_http_rejected_total{reason="request_timeout"} 1"#), "\(metrics.stdout)")
        await exchange.shutdown()
    }

    /// A remote address is one party: 127.0.0.1 holding its share of event streams and
    /// connections is told so, and 127.0.0.2, another party, still gets in.
    @Test func connectionsAreSharedPerRemoteAddress() async throws {
        let exchange = try await FakeExchange.start()
        let (daemon, base, port) = try await Self.start(exchange, settings: ["BTCPRICED_USER_CONNECTIONS": "4", "BTCPRICED_USER_WATCHERS": "2"])
        defer { daemon.stop(); daemon.removeFiles() }
        let request = "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let streams = try (0..<2).map { _ in try TCPClient(port: port, sending: request) }
        for stream in streams {
            let start = try await offPool { stream.read(until: "\ndata: ", limit: .seconds(30)) }
            #expect(start.contains("200 OK"), "\(start)")
        }
        let third = try TCPClient(port: port, sending: request)
        let refused = try await offPool { third.readUntilClosed(limit: .seconds(30)) }
        let text = String(decoding: refused.bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 503 ") && text.contains("address 127.0.0.1 already holds 2 watch streams, its share of the HTTP listener (BTCPRICED_USER_WATCHERS)"), "\(text)")
        // Its own one-shot request still finds room beside its streams.
        #expect(try await Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/api/v1/price"]).stdout == "200")
        let idle = try (0..<2).map { _ in try TCPClient(port: port) }
        let full = try TCPClient(port: port, sending: "GET /api/v1/price HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let busy = String(decoding: try await offPool { full.readUntilClosed(limit: .seconds(30)) }.bytes, as: UTF8.self)
        #expect(busy.hasPrefix("HTTP/1.1 503 ") && busy.contains("already holds 4 connections"), "\(busy)")
        let other = try await Self.curl(["--interface", "127.0.0.2", "-o", "/dev/null", "-w", "%{http_code}", "\(base)/api/v1/price"])
        #expect(other.stdout == "200", "another address is another party: \(other)")
        withExtendedLifetime((streams, idle)) {}
        await exchange.shutdown()
    }

    /// An event stream that stops reading is dropped by the `watch` rules: here, not drained for
    /// BTCPRICED_WATCH_STALL (1 s) while trades stream at 50 a second.
    /// SIGTERM drains the listener: an idle keep-alive connection is closed, an event stream
    /// gets its last event (`stopping`) and ends, and the daemon exits cleanly.
    @Test func aStopDrainsKeepAliveConnectionsAndEndsEventStreamsWithALastEvent() async throws {
        let exchange = try await FakeExchange.start()
        let (daemon, _, port) = try await Self.start(exchange)
        defer { daemon.stop(); daemon.removeFiles() }
        let idle = try TCPClient(port: port, sending: "GET /api/v1/price HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let answered = try await offPool { idle.read(until: "\n114459.8\n", limit: .seconds(30)) }
        #expect(answered.hasPrefix("HTTP/1.1 200 OK") && !answered.contains("Connection: close"), "a keep-alive answer: \(answered)")
        let stream = try TCPClient(port: port, sending: "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let opened = try await offPool { stream.read(until: "\n\nid: ", limit: .seconds(30)) }
        #expect(opened.contains("retry: "), "the stream opened: \(opened)")
        daemon.process.terminate()
        let streamEnd = try await offPool { stream.readUntilClosed(limit: .seconds(30)) }
        let tail = String(decoding: streamEnd.bytes, as: UTF8.self)
        #expect(streamEnd.closed && tail.contains("event: stopping\ndata: {\"reason\":\"btcpriced is stopping\"}\n\n"),
                "the stream's last bytes (closed: \(streamEnd.closed)): \(tail)")
        let idleEnd = try await offPool { idle.readUntilClosed(limit: .seconds(30)) }
        #expect(idleEnd.closed && idleEnd.bytes.isEmpty, "the idle connection closed with nothing more: \(idleEnd.bytes.count) bytes")
        try await offPool { daemon.process.waitUntilExit() }
        #expect(daemon.process.terminationStatus == 0, "the daemon stopped cleanly: \(daemon.process.terminationStatus)\n\(daemon.log.suffix(2000))")
        await exchange.shutdown()
    }

    @Test func anEventStreamThatStopsReadingIsDropped() async throws {
        let exchange = try await FakeExchange.start()
        exchange.setStream(.binance, .trades(prices: ["114459.80", "114460.25"], perSecond: 50))
        let (daemon, base, port) = try await Self.start(exchange, settings: [
            "BTCPRICED_STREAM": "binance", "BTCPRICED_PUBLISH_INTERVAL": "0", "BTCPRICED_WATCH_STALL": "1s",
        ])
        defer { daemon.stop(); daemon.removeFiles() }
        let stuck = try TCPClient(port: port, sending: "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", receiveBuffer: 2048)
        var metrics = ""
        try await until("the stuck stream is dropped", context: { metrics }) {
            metrics = (try? await Self.curl(["\(base)/metrics"]).stdout) ?? ""
            return metrics.contains(#"btcpriced_http_rejected_total{reason="slow_client"} 1"#) && metrics.contains("btcpriced_http_event_streams 0")
        }
        let rest = try await offPool { stuck.readUntilClosed(limit: .seconds(30)) }
        #expect(rest.closed, "the daemon closed it (\(rest.bytes.count) bytes were still on their way)")
        #expect(try await Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/api/v1/price"]).stdout == "200")
        await exchange.shutdown()
    }

    @Test func bothNamesOfTheListenerAreAConfigurationError() async throws {
        let result = try await runCommand(Binaries.daemon, ["--check-config", "--config", "/dev/null"],
                                          environment: ["BTCPRICED_HTTP_LISTEN": "127.0.0.1:9843", "BTCPRICED_METRICS_LISTEN": "127.0.0.1:9844"])
        #expect(result.status == 78 && result.stderr.contains("BTCPRICED_METRICS_LISTEN is its older name"), "\(result)")
        let alias = try await runCommand(Binaries.daemon, ["--check-config", "--config", "/dev/null", "--state-dir", NSTemporaryDirectory(),
                                                           "--socket", NSTemporaryDirectory() + "check.sock"],
                                         environment: ["BTCPRICED_METRICS_LISTEN": "127.0.0.1:9844"])
        #expect(alias.stdout.contains("http: http://127.0.0.1:9844/"), "the older name still names the listener: \(alias)")
    }

    /// mempool compatibility, proved by a mempool client: a second btcpriced whose only source
    /// is mempool, pointed at the first one's listener, serves the first one's price in whole
    /// units.
    @Test func aSecondDaemonReadsTheFirstAsItsMempool() async throws {
        let exchange = try await FakeExchange.start()
        let (upstream, base, _) = try await Self.start(exchange)
        defer { upstream.stop(); upstream.removeFiles() }
        let downstream = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "mempool", "BTCPRICED_MEMPOOL_URL": base])
        defer { downstream.stop(); downstream.removeFiles() }
        try await downstream.start()
        try await until("the second daemon's price", context: { downstream.log }) { try await downstream.ctl("price").status == 0 }
        #expect(try await downstream.ctl("price").stdout == "114460\n")
        let status = try await downstream.ctl("status", "--json").stdout
        #expect(status.contains(#""source":"mempool""#) && status.contains(#""currency":"USD""#), "\(status)")
        #expect(exchange.requestCount(.mempool) == 0, "the fake's own mempool was never asked")
        await exchange.shutdown()
    }

    /// Every venue down: mempool's and BTCPay's routes answer the last price, marked stale,
    /// within BTCPRICED_SERVE_STALE_FOR of it going stale, then no number at all; the native
    /// routes keep their states. A second daemon reading the first as its mempool then has no
    /// price rather than an old one.
    @Test func theCompatibilityRoutesFailClosedOnceTheQuoteIsStaleForLong() async throws {
        let exchange = try await FakeExchange.start()
        let (daemon, base, _) = try await Self.start(exchange, settings: [
            "BTCPRICED_SOURCES": "binance", "BTCPRICED_STALE_AFTER": "3s", "BTCPRICED_SERVE_STALE_FOR": "20s"])
        defer { daemon.stop(); daemon.removeFiles() }
        let fresh = try await Self.curl(["-i", "\(base)/api/v1/prices"]).stdout
        #expect(fresh.contains("X-Price-State: fresh\r\n") && fresh.hasSuffix(#""USD":114460}"# + "\n"), "\(fresh)")

        // A cache's answer 6 s old, every second: stale, and steadily within the window
        // however slowly this host runs the checks.
        exchange.set(.binance, .cached(ageSeconds: 6, price: "114459.8"))
        var stale = ""
        try await until("the price on mempool's route, marked stale", context: { stale }) {
            stale = try await Self.curl(["-i", "\(base)/api/v1/prices"]).stdout
            return stale.contains("X-Price-State: stale\r\n")
        }
        #expect(stale.hasSuffix(#""USD":114460}"# + "\n"), "within the window: \(stale)")
        let servedRate = try await Self.curl(["\(base)/api/rates?currencyPairs=BTC_USD"]).stdout
        #expect(servedRate.contains(#""rate":114459.8,"errors":[]"#), "within the window: \(servedRate)")
        for path in ["/api/v1/rate/USD", "/exrates/BTC", "/rate/USD/BTC"] {
            let served = try await Self.curl(["-i", base + path]).stdout
            #expect(served.hasPrefix("HTTP/1.1 200 OK\r\n") && served.contains("X-Price-State: stale\r\n") && served.contains("114459.8"),
                    "\(path) within the window: \(served)")
        }

        exchange.set(.binance, .status(503))
        var closed = ""
        try await until("no number on mempool's route", context: { closed }) {
            closed = try await Self.curl(["-i", "\(base)/api/v1/prices"]).stdout
            return closed.hasSuffix(#"{"time":0,"USD":-1}"# + "\n")
        }
        #expect(closed.hasPrefix("HTTP/1.1 200 OK\r\n") && closed.contains("X-Price-Error: the price is stale: its last quote is "), "\(closed)")
        let rates = try await Self.curl(["\(base)/api/rates?currencyPairs=BTC_USD"]).stdout
        #expect(rates.contains(#""rate":null,"errors":["the price is stale: its last quote is "#), "\(rates)")
        for path in ["/api/v1/rate/USD", "/exrates/BTC", "/rate/USD/BTC"] {
            let refused = try await Self.curl(["-i", base + path]).stdout
            #expect(refused.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n") && refused.contains(#""error":"stale""#) && !refused.contains("114459"),
                    "\(path) past the window carries no price: \(refused)")
        }
        let price = try await Self.curl(["-i", "\(base)/api/v1/price"]).stdout
        #expect(price.contains("X-Price-State: stale\r\n") && price.hasSuffix("\r\n\r\n114459.8\n"), "the native route keeps its state: \(price)")
        #expect(try await daemon.ctl("status", "--json").stdout.contains(#""state":"stale""#))

        let downstream = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "mempool", "BTCPRICED_MEMPOOL_URL": base])
        defer { downstream.stop(); downstream.removeFiles() }
        try await downstream.start()
        var sources = ""
        try await until("the second daemon's mempool source to report the first's refusal", context: { sources }) {
            sources = try await downstream.ctl("sources", "--json").stdout
            return sources.contains("no BTC/USD price yet")
        }
        #expect(try await downstream.ctl("price").status != 0, "no price from a source that has none: \(sources)")
    }
}

extension HTTPEndToEndTests {
    /// docs/HTTP.md's fenced block after `<!-- recipe: NAME -->`, with the documented port made `port`.
    static func recipe(_ name: String, port: Int) throws -> String {
        let readme = try String(contentsOfFile: DocumentationTests.repository + "/docs/HTTP.md", encoding: .utf8)
        guard let marker = readme.range(of: "<!-- recipe: \(name) -->\n```"), let open = readme[marker.upperBound...].firstIndex(of: "\n"),
              let close = readme[open...].range(of: "\n```") else { throw POSIXError(.ENOENT) }
        return String(readme[readme.index(after: open)..<close.lowerBound]).replacingOccurrences(of: "127.0.0.1:9843", with: "127.0.0.1:\(port)")
    }

    /// docs/HTTP.md's recipes, run as written against a real daemon.
    @Test(.enabled(if: hasJQ, "skipped: jq is missing (scripts/setup installs it)"))
    func theReadmeRecipesWorkAsWritten() async throws {
        let exchange = try await FakeExchange.start()
        // Binance alone: the documented outputs are its quote, kept through a timed-out cycle.
        let (daemon, base, port) = try await Self.start(exchange, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }

        // Home Assistant: its resource answers, with the template's value and every attribute.
        let sensor = try Self.recipe("home-assistant", port: port)
        let resource = sensor.split(separator: "\n").first { $0.contains("resource:") }.map { String($0.split(separator: " ").last ?? "") } ?? ""
        #expect(resource.hasPrefix(base), "\(sensor)")
        let status = try await Self.curl([resource]).stdout
        #expect(try await Self.jq(".price | type", status) == "\"string\"", "value_json.price: \(status)")
        let attributes = sensor.split(separator: "\n").first { $0.contains("json_attributes:") }?
            .drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
        #expect(attributes.count == 5, "\(sensor)")
        for key in attributes { #expect(try await Self.jq("has(\"\(key)\")", status) == "true", "\(key) in \(status)") }

        // BTCPay, LNbits and Yadio: each command prints what docs/HTTP.md shows under it.
        for name in ["btcpay", "lnbits", "yadio"] {
            let lines = try Self.recipe(name, port: port).split(separator: "\n")
            #expect(lines.count >= 2 && lines.count % 2 == 0, "\(name): a command and its output, each on a line: \(lines)")
            for index in stride(from: 0, to: lines.count - 1, by: 2) {
                let command = String(lines[index].dropFirst(2)), shown = String(lines[index + 1])
                let printed = try await runCommand("/bin/sh", ["-c", command]).stdout
                #expect(printed == shown + "\n", "\(name): \(command)\nprinted \(printed)\ndocs/HTTP.md \(shown)")
            }
        }

        // Waybar: the module's exec, run as Waybar runs it, prints one JSON object per event.
        let module = try Self.recipe("waybar", port: port)
        let json = try JSONSerialization.jsonObject(with: Data(("{" + module + "}").utf8)) as? [String: [String: Any]]
        let exec = try #require(json?["custom/btc"]?["exec"] as? String)
        let output = daemon.directory + "/waybar-module.out"
        // In a session of its own, so the whole pipeline goes with it.
        let bar = try SpawnedProcess(["/usr/bin/setsid", "/bin/sh", "-c", exec], environment: ["PATH": "/usr/bin:/bin"], output: output)
        defer {
            kill(-bar.pid, SIGTERM)
            bar.stop()
        }
        var lines: [Substring] = []
        try await until("two lines from the module", context: { lines.joined(separator: "\n") }) {
            lines = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
            return lines.count >= 2
        }
        for line in lines.prefix(2) {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
            #expect(object?["text"] == "₿ 114459.8" && object?["class"] == "fresh" && object?["tooltip"] == "binance, fresh", "\(line)")
        }
        await exchange.shutdown()
    }
}

/// A plain TCP client for what curl will not do: hold a connection idle, or read a refusal.
final class TCPClient: @unchecked Sendable {
    let descriptor: Int32

    /// `receiveBuffer` shrinks the client's socket buffer, for a client that stops reading.
    init(port: Int, sending request: String? = nil, receiveBuffer: Int32? = nil) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if var size = receiveBuffer { setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        if let request { _ = request.withCString { send(descriptor, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }
    }

    deinit { close(descriptor) }

    /// Reads until the server closes or `limit` passes; what came, and whether it closed.
    func readUntilClosed(limit: Duration) -> (bytes: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            guard let chunk = readChunk() else { continue }
            if chunk.isEmpty { return (received, true) }
            received += chunk
        }
        return (received, false)
    }

    /// Reads until `marker` has come (or `limit` passes); everything read.
    func read(until marker: String, limit: Duration) -> String {
        var received: [UInt8] = []
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, !String(decoding: received, as: UTF8.self).contains(marker) {
            guard let chunk = readChunk() else { continue }
            if chunk.isEmpty { break }
            received += chunk
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// One read, waiting at most 200 ms: nil when nothing came, empty at the end of the stream.
    private func readChunk() -> [UInt8]? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 200) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return count <= 0 ? [] : Array(buffer[..<count])
    }
}
