import FakeExchange
import Foundation
import JSONText
import Testing

/// A Tor circuit per venue without any torrc change: through a SOCKS5 proxy without
/// credentials, each venue sends its own user name (Tor's IsolateSOCKSAuth keys circuits on
/// them), and a blocked exit gets the venue new credentials, so a new circuit, before it rests.
/// The proxy is a recording SOCKS5 server on loopback that authenticates whenever offered, as
/// Tor does.
@Suite("A Tor circuit per venue, end to end")
struct TorCircuitEndToEndTests {
    struct Recorder {
        let process: SpawnedProcess
        let port: Int
        let log: String

        /// `user password` per CONNECT, in order.
        var connections: [(user: String, password: String)] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map { line in
                let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
                return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
            }
        }
    }

    func startRecorder(in directory: String, blockFirst: Int = 0) async throws -> Recorder {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/recording_socks5.py").path
        let port = try freePort(), log = directory + "/socks.log", output = directory + "/socks.out"
        let process = try SpawnedProcess(["/usr/bin/python3", script, "\(port)", log, "--block-first", "\(blockFirst)"],
                                         environment: ["PATH": "/usr/bin:/bin"], output: output)
        try await until("the SOCKS5 recorder listens") { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("listening") }
        return Recorder(process: process, port: port, log: log)
    }

    @Test func eachVenueSendsItsOwnCredentialsAndTheRouteNamesTheProxy() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "114460.5")
        exchange.set(.binance, .status(503))  // so that coinbase is asked every cycle too
        let recorder = try await startRecorder(in: directory)
        defer { recorder.process.stop() }
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "BTCPRICED_PROXY": "socks5h://127.0.0.1:\(recorder.port)", "BTCPRICED_STREAM": "off"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("binance and coinbase through the proxy", context: { "\(recorder.connections)\n\(daemon.log)" }) {
            let users = Set(recorder.connections.map(\.user))
            return users.contains("btcpriced-binance") && users.contains("btcpriced-coinbase")
        }
        try await until("a quote through coinbase's circuit") { try await daemon.ctl("price").stdout == "114460.5\n" }
        let connections = recorder.connections
        #expect(connections.allSatisfy { $0.user.hasPrefix("btcpriced-") }, "every connection authenticated, by venue: \(connections)")
        #expect(Set(connections.map(\.password)).count == 1 && connections.allSatisfy { $0.password.count >= 16 },
                "one secret per process, not guessable: \(connections)")
        #expect(daemon.log.contains("a Tor circuit per venue: each venue sends its own SOCKS credentials (Tor's IsolateSOCKSAuth)"), "\(daemon.log)")
        let sources = try JSONValue(parsing: try await daemon.ctl("sources", "--json").stdout)
        let route = sources["sources"]?.arrayElements?.first { $0["name"] == .string("coinbase") }?["route"]?.stringValue
        #expect(route == "via socks5h://127.0.0.1:\(recorder.port) (host name resolved by the proxy)", "the proxy, not the relay: \(String(describing: route))")
        await exchange.shutdown()
    }

    @Test func aBlockedExitGetsTheVenueANewCircuitBeforeItRests() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let exchange = try await FakeExchange.start()
        exchange.setEveryVenue(price: "114460.5")
        let recorder = try await startRecorder(in: directory, blockFirst: 1)
        defer { recorder.process.stop() }
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: [
            "BTCPRICED_PROXY": "socks5h://127.0.0.1:\(recorder.port)", "BTCPRICED_STREAM": "off", "BTCPRICED_SOURCES": "binance"])
        defer { daemon.stop(); daemon.removeFiles() }
        try await daemon.start()
        try await until("binance answers on a new circuit", context: { "\(recorder.connections)\n\(daemon.log)" }) {
            try await daemon.ctl("price").stdout == "114460.5\n"
        }
        let binance = recorder.connections.filter { $0.user == "btcpriced-binance" }
        #expect(binance.count >= 2 && binance[0].password != binance[1].password, "new credentials after the block: \(binance)")
        #expect(daemon.log.contains("trying a new Tor circuit before resting"), "\(daemon.log)")
        await exchange.shutdown()
    }
}
