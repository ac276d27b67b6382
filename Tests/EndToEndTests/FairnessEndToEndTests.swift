import FakeExchange
import Foundation
import Testing

/// The socket's fair share per local user, with two real UIDs: this test (root) and a client
/// that drops to `nobody` with setpriv. The same UID is one party; root is not exempt.
@Suite("Fairness between local users, end to end")
struct FairnessEndToEndTests {
    static let nobody = "65534"
    static var canSwitchUsers: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    }

    /// The clients script, copied where `nobody` can read it.
    static func clients(in directory: String) throws -> String {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/socket_clients.py").path
        let copy = directory + "/socket_clients.py"
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy)
        return copy
    }

    /// Starts the clients script, as `nobody` when `asNobody`, and waits for its `ready` line.
    static func press(_ daemon: DaemonProcess, mode: String, count: Int, asNobody: Bool) async throws -> (SpawnedProcess, String) {
        let output = daemon.directory + "/clients-\(mode)-\(asNobody ? "nobody" : "root").out"
        let script = try clients(in: daemon.directory)
        let command = ["/usr/bin/python3", script, daemon.socket, mode, String(count), "60"]
        let user = asNobody ? ["/usr/bin/setpriv", "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups"] : []
        let process = try SpawnedProcess(user + command, environment: ["PATH": "/usr/bin:/bin"], output: output)
        var ready = ""
        try await until("the \(mode) clients are in place", context: { "clients: \(ready)\ndaemon:\n\(daemon.log)" }) {
            ready = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return ready.contains("ready")
        }
        return (process, ready)
    }

    static func startDaemon(_ exchange: FakeExchange, settings: [String: String] = [:]) async throws -> DaemonProcess {
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL, settings: ["BTCPRICED_SOURCES": "binance"].merging(settings) { $1 })
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: daemon.directory)
        try await daemon.start()
        try await until("a fresh price") { try await daemon.ctl("price").status == 0 }
        return daemon
    }

    /// Another user's one-shot request, three times, each within btcctl's 1 s timeout.
    static func expectAnswered(_ daemon: DaemonProcess, _ what: String) async throws {
        for attempt in 1...3 {
            let result = try await runCommand(Binaries.ctl, ["--socket", daemon.socket, "--timeout", "1s", "price"])
            #expect(result.status == 0, "\(what), attempt \(attempt): \(result)")
            #expect(result.stdout == "114459.80\n" || result.stdout.first?.isNumber == true, "\(what), attempt \(attempt): \(result.stdout)")
        }
    }

    @Test(.enabled(if: canSwitchUsers, "skipped: needs root and setpriv to run a second UID (nobody)"))
    func aUserHoldingEveryWatchStreamItCanGetLeavesOtherUsersAnswered() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try await Self.startDaemon(exchange)
        defer { daemon.stop(); daemon.removeFiles() }
        let (attacker, ready) = try await Self.press(daemon, mode: "watch", count: 1100, asNobody: true)
        defer { attacker.stop() }
        #expect(ready.contains("ready held=64 refused=1036"), "the default share is 64 watch streams: \(ready)")
        try await Self.expectAnswered(daemon, "root while nobody holds its watch streams")
        let metrics = try await daemon.ctl("metrics").stdout
        #expect(metrics.contains(#"btcpriced_socket_rejected_total{reason="per_user_limit"} 1036"#), "\(metrics.split(separator: "\n").filter { $0.contains("rejected") })")
        let logged = daemon.log.split(separator: "\n").filter { $0.contains("uid 65534 holds its share") }
        #expect(logged.count == 1, "one line when the share is reached: \(logged)")
        #expect(logged.first?.contains("64 watch streams (BTCPRICED_USER_WATCHERS)") == true, "\(logged)")
        attacker.stop()
        try await until("the recovery is logged", context: { daemon.log }) { daemon.log.contains("uid 65534 is below its share of the socket again; 1036 of its connections were refused") }
        await exchange.shutdown()
    }

    @Test(.enabled(if: canSwitchUsers, "skipped: needs root and setpriv to run a second UID (nobody)"))
    func aUserHoldingEveryIdleConnectionItCanGetLeavesOtherUsersAnswered() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try await Self.startDaemon(exchange)
        defer { daemon.stop(); daemon.removeFiles() }
        let (attacker, ready) = try await Self.press(daemon, mode: "idle", count: 400, asNobody: true)
        defer { attacker.stop() }
        #expect(!ready.contains("refused=0"), "nobody asked for more than its share: \(ready)")
        try await Self.expectAnswered(daemon, "root while nobody holds idle connections")
        let logged = daemon.log.split(separator: "\n").filter { $0.contains("uid 65534 holds its share") }
        #expect(logged.count == 1, "one line while the share is held, however often it is pressed: \(logged)")
        #expect(logged.first?.contains("128 connections (BTCPRICED_USER_CONNECTIONS)") == true, "\(logged)")
        await exchange.shutdown()
    }

    /// One UID alone: its watch streams use up their share, and its own prompt still finds room.
    @Test func aUsersOwnRequestsAreAnsweredAfterItsWatchersUsedUpTheirShare() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try await Self.startDaemon(exchange, settings: ["BTCPRICED_USER_WATCHERS": "8", "BTCPRICED_USER_CONNECTIONS": "16"])
        defer { daemon.stop(); daemon.removeFiles() }
        let (watchers, ready) = try await Self.press(daemon, mode: "watch", count: 20, asNobody: false)
        defer { watchers.stop() }
        #expect(ready.contains("ready held=8 refused=12"), "\(ready)")
        try await Self.expectAnswered(daemon, "the same user after its watchers used up their share")
        let refusal = try await daemon.ctl("watch")
        #expect(refusal.status == 1 && refusal.stderr.contains("already holds 8 watch streams, its share of the socket"), "\(refusal)")
        await exchange.shutdown()
    }

    /// The listen queue is as deep as the connection cap: a burst within it never sees EAGAIN,
    /// from a client that does not retry.
    @Test func aBurstOfAThousandConnectionsIsNeverRefusedAtConnect() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try await Self.startDaemon(exchange, settings: ["BTCPRICED_USER_CONNECTIONS": "1024"])
        defer { daemon.stop(); daemon.removeFiles() }
        let (burst, ready) = try await Self.press(daemon, mode: "burst", count: 1000, asNobody: false)
        defer { burst.stop() }
        #expect(ready.contains("connect_failed=0 "), "\(ready)")
        #expect(ready.contains(" silent=0"), "every connection got a line, pong or an error: \(ready)")
        await exchange.shutdown()
    }
}
