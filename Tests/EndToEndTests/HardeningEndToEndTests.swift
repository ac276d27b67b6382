import ClientKit
import FakeExchange
import Foundation
import JSONText
import Testing

/// Regressions from the torture run: hostile state files, a second daemon, hostile exchange
/// text, clocks, and the exit-code table (78 config, 73 socket or state path, 1 otherwise).
@Suite("Hardening, end to end")
struct HardeningEndToEndTests {
    @Test func aFIFOAsQuoteJSONNeitherHangsNorStopsTheDaemon() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { daemon.stop(); daemon.removeFiles() }
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        #expect(mkfifo(daemon.quoteFile, 0o644) == 0)
        try await daemon.start()
        try await until("a live price") { try await daemon.ctl("price").status == 0 }
        #expect(daemon.log.contains("it is a FIFO, not a file"))
        try await until("the quote is saved as a regular file again") {
            var info = stat()
            return stat(daemon.quoteFile, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        }
        await exchange.shutdown()
    }

    @Test func aSecondDaemonOnTheSameStateDirectoryRefusesAndTouchesNothing() async throws {
        let exchange = try await FakeExchange.start()
        // The first daemon saves its first quote and then nothing for an hour, so any change to
        // quote.json below is the second daemon's (at the harness's 0 it rewrites it every second).
        let first = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_PERSIST_INTERVAL": "1h"])
        defer { first.stop(); first.removeFiles() }
        try await first.start()
        try await until("a quote is saved") { FileManager.default.fileExists(atPath: first.quoteFile) }
        let before = try Data(contentsOf: URL(fileURLWithPath: first.quoteFile))
        try FileManager.default.createDirectory(atPath: first.directory + "/second", withIntermediateDirectories: true)
        let result = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--state-dir", first.stateDirectory,
                                                     "--socket", first.directory + "/second/btcpriced.sock"],
                                    environment: ["BTCPRICED_BINANCE_URL": exchange.baseURL, "BTCPRICED_SOURCES": "binance"])
        #expect(result.status == 73)
        #expect(result.stderr.contains("another btcpriced is already using"))
        #expect(!FileManager.default.fileExists(atPath: first.directory + "/second/btcpriced.sock"))
        let after = try Data(contentsOf: URL(fileURLWithPath: first.quoteFile))
        #expect(after == before, "quote.json changed: \(String(decoding: before, as: UTF8.self)) became \(String(decoding: after, as: UTF8.self))")
        #expect(try await first.ctl("ping").status == 0)
        await exchange.shutdown()
    }

    @Test func anUnusableSocketDirectoryExits73WithTheReason() async throws {
        let directory = NSTemporaryDirectory() + "btcpriced-e2e-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = FileManager.default.createFile(atPath: directory + "/file", contents: nil)
        let result = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--state-dir", directory + "/state",
                                                     "--socket", directory + "/file/btcpriced.sock"],
                                    environment: ["BTCPRICED_SOURCES": "binance", "BTCPRICED_BINANCE_URL": "http://127.0.0.1:9"])
        #expect(result.status == 73)
        #expect(result.stderr.contains("cannot serve the socket"))
    }

    @Test func aQuoteStampedInTheFutureIsStaleOfUnknownAge() async throws {
        let exchange = try await FakeExchange.start()
        for market in Market.allCases { exchange.set(market, .status(503)) }
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { daemon.stop(); daemon.removeFiles() }
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        try #"{"version":1,"price":"70000","currency":"USD","symbol":"BTC-USD","source":"coinbase","timestamp":"9999-01-01T00:00:00.000Z"}"#
            .write(toFile: daemon.quoteFile, atomically: true, encoding: .utf8)
        try await daemon.start()
        let status = try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)
        #expect(status["state"] == .string("stale"))
        #expect(status["age"] == .null)
        #expect(status["price"] == .string("70000"))
        #expect(try await daemon.ctl("price").status == 3)
        #expect(daemon.log.contains("in the future"))
        await exchange.shutdown()
    }

    @Test func exchangeTextCannotForgeLogLines() async throws {
        let exchange = try await FakeExchange.start()
        exchange.set(.binance, .body(#"{"msg":"oops\nwarning: forged line\nSTOPPING=1"}"#))
        // A timeout well beyond the fake's answer: on a loaded machine an 800 ms one turned the
        // body under test into "timeout after 800ms", which forges nothing and proves nothing.
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "BTCPRICED_SOURCES": "binance,coinbase", "BTCPRICED_INTERVAL": "10s", "BTCPRICED_TIMEOUT": "8s"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("binance's failure is logged") { daemon.log.contains("binance is failing") }
        let lines = daemon.log.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("warning: forged line") })
        #expect(!lines.contains { $0.hasPrefix("STOPPING=1") })
        #expect(daemon.log.contains("oops\\nwarning: forged line"))
        await exchange.shutdown()
    }

    @Test func aTimeoutLongerThanTheIntervalIsAConfigurationError() async throws {
        let result = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--interval", "500ms"],
                                          environment: ["BTCPRICED_TIMEOUT": "800ms"])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("must be shorter than --interval (500ms)"), "\(result.stderr)")
    }

    @Test func withFewDescriptorsExtraClientsGetBusyAndTheDaemonKeepsWorking() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { daemon.removeFiles() }
        // 256 descriptors, soft and hard: the daemon caps clients at 256 - 160 = 96.
        let process = try SpawnedProcess(["/bin/sh", "-c", "ulimit -n 256 && exec \"$0\" \"$@\"", Binaries.daemon] + (daemon.process.arguments ?? []),
                                         environment: daemon.process.environment ?? [:], output: daemon.logFile)
        defer { process.stop() }
        try await until("the socket answers") { (try? await runCommand(Binaries.ctl, ["--socket", daemon.socket, "ping"]).status) == 0 }
        try await until("a quote is saved") { FileManager.default.fileExists(atPath: daemon.quoteFile) }
        #expect(daemon.log.contains("serving at most 96 clients at once"))

        // All 130 from one thread, with no hop back to a busy test pool between two connects,
        // so they connect well inside the 5 s request deadline that frees places.
        let connecting = ContinuousClock.now
        var idle = try await offPool { try (0..<130).map { _ in try UnixSocketClient(path: daemon.socket, timeoutMilliseconds: 3000) } }
        defer { for client in idle { client.closeConnection() } }
        let connected = ContinuousClock.now - connecting
        var busy = 0
        for index in 100..<130 {
            if let line = try? await idle[index].nextLine(), line.contains("\"error\":\"busy\"") { busy += 1 }
        }
        // Exactly 30 only if no idle client reached its 5 s request deadline (freeing its place)
        // while the 130 were connecting, which a starved parallel run can take.
        if connected < .seconds(4) {
            #expect(busy == 30, "over-cap clients are told busy")
        } else {
            #expect(busy > 0, "over-cap clients are told busy (connecting took \(connected), so some places were freed)")
        }
        let savedBefore = try FileManager.default.attributesOfItem(atPath: daemon.quoteFile)[.modificationDate] as? Date
        // The idle ones are cut at the 5 s request deadline; a polite client is answered after that.
        try await until("a polite client is answered") {
            try await Task.sleep(for: .milliseconds(100))
            return (try? await runCommand(Binaries.ctl, ["--socket", daemon.socket, "price"]).status) == 0
        }
        let before = try #require(savedBefore)
        func saved() -> Date? { try? FileManager.default.attributesOfItem(atPath: daemon.quoteFile)[.modificationDate] as? Date }
        try await until("the quote is saved again after the crowd", context: { "saved at \(saved().map { "\($0)" } ?? "nil"), before \(before)" }) {
            (saved() ?? before) > before
        }
        let exhausted = daemon.log.split(separator: "\n").filter { $0.contains("Too many open files") }
        #expect(exhausted.isEmpty, "\(exhausted)")
        await exchange.shutdown()
    }

    @Test func fiftyReloadsKeepTheRateAndTheCooldown() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance,coinbase"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a binance quote") { exchange.requestCount(.binance) >= 1 }
        // Signals sent faster than they are handled merge in the kernel, so 20 ms apart (pacing
        // the sender, not waiting for an outcome). The storm ends when 25 reloads are logged and
        // two more cycles of `venue` have run after the last signal, so what the venues saw is
        // read after a later event, not after a sleep.
        func storm(then venue: Market) async throws {
            let before = daemon.log.components(separatedBy: "reloaded configuration").count
            for _ in 0..<50 {
                kill(daemon.process.processIdentifier, SIGHUP)
                try await Task.sleep(for: .milliseconds(20))
            }
            try await until("25 reloads logged") { daemon.log.components(separatedBy: "reloaded configuration").count - before >= 25 }
            let calls = exchange.requestCount(venue)
            try await until("two cycles after the storm") { exchange.requestCount(venue) >= calls + 2 }
        }
        let before = exchange.requestCount(.binance)
        let started = ContinuousClock.now
        try await storm(then: .binance)
        // A real-time guarantee: venue limits count wall-clock seconds, so the allowance does too.
        let seconds = Int((ContinuousClock.now - started).components.seconds) + 1
        #expect(exchange.requestCount(.binance) - before <= seconds + 1, "at most one call a second, reloads or not")

        // A Retry-After survives the same storm.
        exchange.set(.binance, .status(429, retryAfter: 30))
        try await until("binance is rate-limited") { daemon.log.contains("binance is failing: rate-limited") }
        let limited = exchange.requestCount(.binance)
        try await storm(then: .coinbase)
        #expect(exchange.requestCount(.binance) == limited, "the 30 s rest held through 50 reloads")
        // Counted by reason: on a loaded host a timeout before the 429 is a warning of its own.
        #expect(daemon.log.components(separatedBy: "binance is failing: rate-limited").count == 2, "one warning, not one per reload")
        #expect(try await daemon.ctl("price").stdout == "114460.215\n", "coinbase serves meanwhile")
        await exchange.shutdown()
    }

    @Test func aFailingDiskShowsInStatusAndClearsWhenItWorksAgain() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("a quote is saved") { FileManager.default.fileExists(atPath: daemon.quoteFile) }
        // A non-empty directory where quote.json goes: every rename onto it fails. The daemon
        // may save again between the removal and the mkdir, so both are tried until they hold.
        try await until("a directory stands where quote.json goes") {
            try? FileManager.default.removeItem(atPath: daemon.quoteFile)
            return (try? FileManager.default.createDirectory(atPath: daemon.quoteFile + "/blocker", withIntermediateDirectories: true)) != nil
        }
        func lastError() async throws -> String? {
            try JSONValue(parsing: try await daemon.ctl("status", "--json").stdout)["last_error"]?.stringValue
        }
        try await until("status reports the failing save") { try await lastError()?.contains("saving: cannot rename") == true }
        #expect(try await daemon.ctl("price").status == 0, "still serving")
        try FileManager.default.removeItem(atPath: daemon.quoteFile)
        try await until("the problem clears") { try await lastError() == nil }
        #expect(daemon.log.components(separatedBy: "cannot save the quote").count == 2, "one error line for the outage")
        await exchange.shutdown()
    }

    @Test func aRefusedConnectionIsReportedAsRefusedInOneConciseLine() async throws {
        let daemon = try DaemonProcess(exchangeURL: "http://127.0.0.1:9", settings: ["BTCPRICED_SOURCES": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("the failure is logged") { daemon.log.contains("binance is failing") }
        let line = daemon.log.split(separator: "\n").first { $0.contains("binance is failing") }.map(String.init) ?? ""
        #expect(line.contains("binance is failing: connection refused"), "\(line)")
        #expect(!line.contains("error="), "the console line repeats no metadata its message says: \(line)")
        try await until("the outage is logged") { daemon.log.contains("no source returned a price") }
        #expect(daemon.log.contains("no quote to serve yet"), "no saved quote, so none is served")
    }
}
