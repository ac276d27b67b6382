import FakeExchange
import Foundation
import Testing

@Suite("Socket activation with systemd-socket-activate", .serialized)
struct SocketActivationTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-socket-activate")))
    func servesTheInheritedSocketAndNeverUnlinksIt() async throws {
        let exchange = try await FakeExchange.start()
        let daemon = try DaemonProcess(exchangeURL: exchange.baseURL)
        defer { daemon.stop(); daemon.removeFiles() }
        let activated = daemon.directory + "/activated.sock"
        // systemd-socket-activate binds the socket, waits for the first client, then execs the
        // daemon with LISTEN_FDS. It passes no environment unless told to (-E).
        let activator = try SpawnedProcess(
            ["/usr/bin/systemd-socket-activate", "--listen=\(activated)"]
            + (daemon.process.environment ?? [:]).keys.filter { $0.hasPrefix("BTCPRICED_") }.sorted().flatMap { ["-E", $0] }
            + [Binaries.daemon] + (daemon.process.arguments ?? []),
            environment: daemon.process.environment ?? [:], output: daemon.logFile)
        defer { activator.stop() }
        try await until("a quote on the inherited socket") {
            (try? await runCommand(Binaries.ctl, ["--socket", activated, "price"]).status) == 0
        }
        #expect(daemon.log.contains("serving on the socket passed by systemd"))
        #expect(!FileManager.default.fileExists(atPath: daemon.socket), "bound its own socket despite LISTEN_FDS")
        activator.signal(SIGTERM)
        #expect(try await activator.exitStatus() == 0)
        #expect(FileManager.default.fileExists(atPath: activated), "unlinked a socket it did not create")
        await exchange.shutdown()
    }
}
