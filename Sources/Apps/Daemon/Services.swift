import DaemonKit
import DaemonConfig
import Logging
import PriceCore
import ServiceLifecycle
import SocketServer
import Systemd
import UnixSignals

/// Keeps the socket open until shutdown, then closes it and ends `watch` streams: the one place
/// the server is shut down, also when the group is cancelled after an error.
struct ServerService: Service {
    let server: QuoteServer

    func run() async throws {
        try? await gracefulShutdown()
        await server.shutdown()
    }
}

/// SIGTERM/SIGINT end the service (which shuts the group down gracefully); SIGHUP reloads.
/// The signal sequence is created, and so armed, before READY=1 is sent.
struct SignalService: Service {
    let signals: UnixSignalsSequence
    let reloader: Reloader
    let notifier: SystemdNotifier
    let logger: Logger

    func run() async throws {
        for await signal in signals.cancelOnGracefulShutdown() {
            switch signal {
            case .sighup:
                await reloader.reload()
            default:
                logger.info("received \(signal), stopping")
                notifier.stopping(status: "stopping")
                return
            }
        }
    }
}
