import FakeExchange
import Foundation
import JSONText
import Testing

/// What a new user meets in the first hour: help that tells the truth, examples that work,
/// errors that say what to do.
@Suite("The first hour, end to end")
struct FirstHourEndToEndTests {
    @Test func bothProgramsAnswerDashHAndBtcctlHelp() async throws {
        let daemonHelp = try await runCommand(Binaries.daemon, ["-h"])
        #expect(daemonHelp.status == 0 && daemonHelp.stdout.contains("Usage: btcpriced"), "\(daemonHelp)")
        #expect(daemonHelp.stdout.contains("73 if the state or socket directory cannot be used"), "the real exit codes: \(daemonHelp.stdout)")
        let ctlHelp = try await runCommand(Binaries.ctl, ["help"])
        #expect(ctlHelp.status == 0 && ctlHelp.stdout.contains("Usage: btcctl"), "\(ctlHelp)")
        #expect(ctlHelp.stdout.contains("wait: no limit unless given"), "the real default of wait: \(ctlHelp.stdout)")
        let unknown = try await runCommand(Binaries.ctl, ["hepl"])
        #expect(unknown.status == 2, "\(unknown)")
        for command in ["status", "price", "watch", "sources", "ping", "metrics", "waybar", "i3blocks", "polybar", "prompt", "chart", "wait", "version", "help"] {
            #expect(unknown.stderr.contains(command), "\(command) missing from the list: \(unknown.stderr)")
        }
    }

    /// `--help` suggests `--interval 500ms`: it works, with the timeout following it.
    @Test func theHelpsIntervalExampleWorks() async throws {
        let directory = NSTemporaryDirectory() + "btcpriced-e2e-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--interval", "500ms",
                                                            "--state-dir", directory + "/state", "--socket", directory + "/btcpriced.sock"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("interval 500ms, timeout 400ms"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("configuration OK\n"), "said last, once every check passed: \(result.stdout)")
    }

    @Test func checkConfigNamesAnEnvironmentTypoWithTheKeyItMeant() async throws {
        let directory = NSTemporaryDirectory() + "btcpriced-e2e-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try await runCommand(Binaries.daemon, ["--config", "/dev/null", "--check-config", "--state-dir", directory + "/state",
                                                            "--socket", directory + "/btcpriced.sock"],
                                          environment: ["BTCPRICED_INTERVL": "2s"])
        #expect(result.status == 0, "a typo is a warning, not an error: \(result)")
        #expect(result.stderr.contains("ignoring unknown environment variable BTCPRICED_INTERVL (did you mean BTCPRICED_INTERVAL?)"), "\(result.stderr)")
    }

    @Test func aPathThatIsNotASocketIsSaidToBeNone() async throws {
        let result = try await runCommand(Binaries.ctl, ["--socket", "/etc/passwd", "price"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("/etc/passwd: it is not a socket"), "\(result.stderr)")
        #expect(!result.stderr.contains("Connection refused"), "\(result.stderr)")
    }

    /// A normal user without --socket meets the system's /run path: the error says what to do.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "skipped: needs root and setpriv to run the daemon as a normal user (nobody)"))
    func aSocketDirectoryTheUserCannotCreateSuggestsTheSocketSetting() async throws {
        let directory = "/run/btcpriced-e2e-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let state = NSTemporaryDirectory() + "btcpriced-e2e-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        defer { try? FileManager.default.removeItem(atPath: directory); try? FileManager.default.removeItem(atPath: state) }
        let result = try await runCommand("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Binaries.daemon,
                                                             "--config", "/dev/null", "--state-dir", state + "/state", "--socket", directory + "/sub/btcpriced.sock"],
                                          environment: ["BTCPRICED_SOURCES": "binance", "BTCPRICED_BINANCE_URL": "http://127.0.0.1:9"])
        #expect(result.status == 73, "\(result)")
        #expect(result.stderr.contains("Permission denied; choose a socket path you can write with --socket PATH or BTCPRICED_SOCKET"), "\(result.stderr)")
    }

    /// A server that sends the subscription's first line twice, as a daemon whose publisher
    /// flushes the same quote right after it: btcctl watch prints it once.
    @Test func watchPrintsARepeatedLineOnce() async throws {
        let directory = NSTemporaryDirectory() + "btcpriced-e2e-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let line = #"{"price":"114459.8","currency":"USDT","symbol":"BTCUSDT","source":"binance","timestamp":"2026-11-21T16:00:00.123Z","age":0.4,"state":"fresh","stale":false,"last_error":null,"version":"0.1.0","sources":["binance"],"spread":null,"transport":"stream"}"#
        let aged = line.replacingOccurrences(of: #""age":0.4"#, with: #""age":0.6"#)
        let newer = line.replacingOccurrences(of: "114459.8", with: "114460.25").replacingOccurrences(of: "16:00:00.123", with: "16:00:01.001")
        let socket = directory + "/s.sock"
        // One connection: read the request, send the three lines, close.
        let serve = """
        import socket, sys
        import os
        server = socket.socket(socket.AF_UNIX); server.bind(sys.argv[1] + ".tmp"); server.listen(1)
        os.rename(sys.argv[1] + ".tmp", sys.argv[1])
        client, _ = server.accept(); client.recv(256)
        client.sendall("".join(line + "\\n" for line in sys.argv[2:]).encode()); client.close()
        """
        let server = try SpawnedProcess(["/usr/bin/python3", "-c", serve, socket, line, aged, newer],
                                        environment: ["PATH": "/usr/bin:/bin"], output: directory + "/server.log")
        defer { server.stop() }
        try await until("the server listens") { FileManager.default.fileExists(atPath: socket) }
        let result = try await runCommand(Binaries.ctl, ["--socket", socket, "watch", "--json"])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2, "the first line once, then the newer quote: \(result)")
        #expect(lines.last?.contains("114460.25") == true, "\(lines)")
    }
}
