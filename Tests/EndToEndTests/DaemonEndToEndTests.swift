import ClientKit
import FakeExchange
import Foundation
import JSONText
import Testing
import WireProtocol

@Suite("btcpriced and btcctl, as built, against the fake exchange", .serialized)
struct DaemonEndToEndTests {
    @Test func fetchesPersistsAndServesTheExactPrice() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .price("68901.23000000"))
        // Binance alone: on a loaded host its first answer can miss the timeout, and the next
        // venue's price would then be the one saved first (for the next two minutes).
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a quote is persisted") { FileManager.default.fileExists(atPath: daemon.quoteFile) }

        let saved = try JSONValue(parsing: String(contentsOfFile: daemon.quoteFile, encoding: .utf8))
        #expect(saved["price"] == .string("68901.23"))
        #expect(saved["symbol"] == .string("BTCUSDT"))
        #expect(saved["source"] == .string("binance"))

        let price = try await daemon.ctl("price")
        #expect(price.status == 0)
        #expect(price.stdout == "68901.23\n")

        let status = try await daemon.ctl("status", "--json")
        #expect(status.status == 0)
        let json = try JSONValue(parsing: status.stdout)
        for key in ["price", "currency", "symbol", "source", "timestamp", "age", "state", "stale", "last_error", "version"] {
            #expect(json[key] != nil, "status lacks \(key)")
        }
        #expect(json["state"] == .string("fresh"))

        let human = try await daemon.ctl("status")
        #expect(human.stdout.hasPrefix("BTC/USDT  68,901.23\n"))

        var watch = try UnixSocketClient(path: daemon.socket, timeoutMilliseconds: 3000)
        try watch.send("watch\n")
        let first = try await watch.nextLine()
        let second = try await watch.nextLine()
        #expect(first?.contains("\"price\":\"68901.23\"") == true)
        #expect(second?.contains("\"state\":\"fresh\"") == true)
        watch.closeConnection()
        await exchange.shutdown()
    }

    /// Every poll runs on the daemon's event loop. A task started on Swift's global executor for
    /// each request (AsyncHTTPClient's async API starts one) woke a libdispatch worker thread every
    /// second, and the loop again when it was done: two of an idle daemon's six wakeups. Workers
    /// may exist (NIO resolves a new connection's host on one); over an open connection they sleep.
    @Test func pollingOverAnOpenConnectionWakesNoLibdispatchWorker() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .price("68901.23"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("binance has been asked twice") { exchange.requestCount(.binance) >= 2 }
        let before = Self.workerSwitches(of: daemon.process.processIdentifier)
        let asked = exchange.requestCount(.binance)
        try await until("binance has been asked three more times") { exchange.requestCount(.binance) >= asked + 3 }
        let after = Self.workerSwitches(of: daemon.process.processIdentifier)
        // A worker started in between counts as woken; one that ended had nothing to do.
        let woken = after.filter { thread, switches in before[thread].map { switches > $0 } ?? true }
        #expect(woken.isEmpty, "libdispatch workers woken while binance was asked three times: \(woken) (before: \(before))")
        await exchange.shutdown()
    }

    /// Context switches of each libdispatch worker thread of a process, by thread id; a worker
    /// is named after its queue's last 15 characters, "oot.default-qos".
    static func workerSwitches(of process: Int32) -> [String: Int] {
        let tasks = "/proc/\(process)/task"
        var workers: [String: Int] = [:]
        for thread in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let name = try? String(contentsOfFile: "\(tasks)/\(thread)/comm", encoding: .utf8), name.hasSuffix("default-qos\n"),
                  let status = try? String(contentsOfFile: "\(tasks)/\(thread)/status", encoding: .utf8) else { continue }
            workers[thread] = status.split(separator: "\n").filter { $0.contains("ctxt_switches:") }
                .compactMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }.reduce(0, +)
        }
        return workers
    }

    @Test func hungPrimaryFallsBackWithinTheTimeout() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .hang)
        exchange.set(.coinbase, .price("68000.5"))
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_TIMEOUT": "500ms"])
        defer { daemon.stop(); daemon.removeFiles() }
        try daemon.process.run()
        var client: UnixSocketClient?
        try await until("the socket exists") {
            client = try? UnixSocketClient(path: daemon.socket, timeoutMilliseconds: 3000)
            return client != nil
        }
        guard var watch = client else { return }
        try watch.send("watch\n")
        let initial = try await watch.nextLine()
        var line = initial
        while let current = line, !current.contains("coinbase") { line = try await watch.nextLine() }
        #expect(line?.contains("\"price\":\"68000.5\"") == true)
        // A hung venue never answers, so reaching coinbase at all shows the timeout fired; its
        // exact length is tested on a manual clock (FallbackFetcherTests).
        #expect(line?.contains("binance: timeout after 500ms") == true)
        watch.closeConnection()
        await exchange.shutdown()
    }

    @Test func restartOfflineServesThePersistedQuoteThenGoesStale() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .price("70123.45"))
        let first = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { first.removeFiles() }
        try await first.start()
        try await until("a quote is persisted") { FileManager.default.fileExists(atPath: first.quoteFile) }
        first.stop()
        // Every venue failing, at the same URLs (the saved quote is restored only for the venues
        // it came from). A fake shut down here freed its port, which another test's fake once took.
        for market in Market.allCases { exchange.set(market, .status(503)) }

        let second = try DaemonProcess(exchangeURL: exchange.baseURL, directory: first.directory,
                                       settings: ["BTCPRICED_STALE_AFTER": "1s"])
        defer { second.stop() }
        try await second.start()
        let served = try await second.ctl("price")
        #expect(served.stdout == "70123.45\n")
        // Generous: the age is computed per request, so only a starved machine takes seconds here.
        var last: CommandResult?
        try await until("the quote turns stale",
                        context: { "last btcctl price: \(last.map { "\($0)" } ?? "none")\ndaemon log:\n\(second.log)" }) {
            last = try await second.ctl("price")
            return last?.status == 3
        }
        let status = try await second.ctl("status", "--json")
        #expect(status.status == 3)
        #expect(status.stdout.contains("\"state\":\"stale\""))
        #expect(status.stdout.contains("\"price\":\"70123.45\""))
        #expect(try await second.ctl("status").stdout.contains("STALE"))
        await exchange.shutdown()
    }

    /// A daemon that ignored SIGTERM would hold `waitUntilExit` forever: the limit catches it.
    @Test(.timeLimit(.minutes(1))) func sigtermExitsCleanlyAndRemovesTheSocket() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { daemon.removeFiles() }
        try await daemon.start()
        try await until("a quote is persisted") { FileManager.default.fileExists(atPath: daemon.quoteFile) }
        daemon.process.terminate()
        try await offPool { daemon.process.waitUntilExit() }
        #expect(daemon.process.terminationReason == .exit)
        #expect(daemon.process.terminationStatus == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
        #expect(FileManager.default.fileExists(atPath: daemon.quoteFile))
        await exchange.shutdown()
    }

    @Test func junkOnTheSocketDoesNotDisturbTheDaemon() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        for junk in ["GET / HTTP/1.1\r\n\r\n", String(repeating: "\u{1}", count: 5000), "\u{FF}\n", "status status\n"] {
            var client = try UnixSocketClient(path: daemon.socket, timeoutMilliseconds: 30_000)
            try? client.send(junk)
            #expect(try await client.nextLine()?.hasPrefix("{\"error\":\"bad-request\"") == true)
            client.closeConnection()
        }
        #expect(try await daemon.ctl("ping").stdout == "pong\n")
        #expect(daemon.process.isRunning)
        await exchange.shutdown()
    }

    @Test func configErrorsExitWith78AndNameTheProblem() async throws {
        let bad = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--interval", "0"])
        #expect(bad.status == 78)
        #expect(bad.stderr == "btcpriced: --interval: must be greater than zero, got \"0\"\n")
        let missing = try await runCommand(Binaries.daemon, ["--config", "/nonexistent/btcpriced.conf", "--check-config"])
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("/nonexistent/btcpriced.conf does not exist"))
        let file = NSTemporaryDirectory() + "btcpriced-bad-\(UUID().uuidString.prefix(6)).conf"
        try "# ok\nBTCPRICED_TIMEOUT=fast\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let invalid = try await runCommand(Binaries.daemon, ["--config", file, "--check-config"])
        #expect(invalid.status == 78)
        #expect(invalid.stderr.contains("\(file):2: BTCPRICED_TIMEOUT"))
        let scratch = NSTemporaryDirectory() + "btcpriced-check-\(UUID().uuidString.prefix(8))"
        #expect(try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--state-dir", scratch + "/state",
                                                 "--socket", scratch + "/run/btcpriced.sock"]).status == 0)
        let unusable = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--state-dir", "/dev/null/state"])
        #expect(unusable.status == 73)
        #expect(unusable.stderr.contains("state directory unusable: /dev/null/state cannot be created: /dev/null is not a directory"))
        #expect(try await runCommand(Binaries.daemon, ["--bogus"]).status == 64)
        #expect(try await runCommand(Binaries.daemon, ["--version"]).stdout.hasPrefix("btcpriced "))
    }

    @Test func btcctlExitCodesAndErrors() async throws {
        let missing = try await runCommand(Binaries.ctl, ["--socket", "/nonexistent/btcpriced.sock", "price"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "btcctl: cannot connect to /nonexistent/btcpriced.sock: No such file or directory (is btcpriced running?)\n")
        #expect(try await runCommand(Binaries.ctl, ["frobnicate"]).status == 2)
        #expect(try await runCommand(Binaries.ctl, ["--help"]).stdout.contains("Exit status"))
    }

    /// Without --socket, btcctl looks for the system daemon and then the user's own: when
    /// neither is there, the error names both, and how to start each.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/run/btcpriced/btcpriced.sock"), "skipped: a system btcpriced runs on this host"))
    func withNoDaemonAtAllBtcctlNamesBothPlacesItLooked() async throws {
        let result = try await runCommand(Binaries.ctl, ["price"], environment: ["PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": "/nonexistent-runtime"])
        #expect(result.status == 1)
        #expect(result.stderr == "btcctl: cannot connect to /run/btcpriced/btcpriced.sock (the system daemon's) or /nonexistent-runtime/btcpriced/btcpriced.sock (your own): neither exists (is btcpriced running? systemctl start btcpriced.socket, or systemctl --user start btcpriced.socket)\n",
                "\(result.stderr)")
    }

    @Test(.timeLimit(.minutes(1))) func btcctlGivesUpOnAStuckDaemon() async throws {
        // A listener that never answers: btcctl must time out, not hang.
        let path = NSTemporaryDirectory() + "stuck-\(UUID().uuidString.prefix(6)).sock"
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        _ = UnixSocketAddress.bind(fd, to: path)
        listen(fd, 4)
        defer { close(fd); unlink(path) }
        let result = try await runCommand(Binaries.ctl, ["--socket", path, "--timeout", "300ms", "status"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no answer"), "\(result.stderr)")
    }
}
